import * as fs from 'node:fs';
import { getLogger } from '../common/logging/logging';

/** One aborted transaction (Kafka's AbortedTxn): the producer, its data range and the LSO its ABORT marker left. */
export interface AbortedTxn {
  readonly producerId: number;
  readonly firstOffset: number;
  /** The offset of the ABORT marker. */
  readonly lastOffset: number;
  /** The last stable offset once the marker was written: no transaction that started below it is still open. */
  readonly lastStableOffset: number;
}

/** What a fetch's range finds in one segment's index; complete when later segments cannot add anything. */
export interface TxnIndexSearchResult {
  readonly abortedTransactions: AbortedTxn[];
  readonly isComplete: boolean;
}

/** Kafka's AbortedTxn.CurrentVersion and its fixed entry size: version int16 + four int64. */
export const ABORTED_TXN_VERSION = 0;
export const ABORTED_TXN_SIZE = 34;

const logger = getLogger('kafka.log.TransactionIndex');

/**
 * `<baseOffset>.txnindex` (Kafka 2.8's TransactionIndex): the transactions aborted by markers in one segment, in
 * marker order, as 34-byte entries (version 0, producerId, firstOffset, lastOffset, lastStableOffset). The file
 * exists only once the segment holds an ABORT marker, as Kafka creates it lazily. Entries are few (one per aborted
 * transaction), so they are kept in memory too: a read_committed fetch looks them up without touching the disk.
 * Appends are synchronous and unbuffered (an abort is rare); not synchronised: the Log calls it under its queue.
 */
export class TransactionIndex {
  private entries: AbortedTxn[];

  constructor(
    private fileValue: string,
    /** A segment created just now has no index on disk: no need to look. */
    fresh = false,
  ) {
    this.entries = fresh ? [] : TransactionIndex.load(fileValue);
  }

  get file(): string {
    return this.fileValue;
  }

  get allAbortedTxns(): readonly AbortedTxn[] {
    return this.entries;
  }

  /** Kafka's append: markers come in offset order, so an entry that does not end above the last is refused. */
  append(txn: AbortedTxn): void {
    const last = this.entries[this.entries.length - 1];
    if (last !== undefined && txn.lastOffset <= last.lastOffset) {
      throw new Error(`The last offset of appended transactions must increase sequentially, but ${txn.lastOffset} is not greater than current last offset ${last.lastOffset} of index ${this.fileValue}`);
    }
    fs.appendFileSync(this.fileValue, encode(txn));
    this.entries.push(txn);
  }

  /** Adds `txn` unless an entry already ends at or past it (the log replayed after a restart meets known markers). */
  appendIfAbsent(txn: AbortedTxn): void {
    const last = this.entries[this.entries.length - 1];
    if (last === undefined || txn.lastOffset > last.lastOffset) this.append(txn);
  }

  /**
   * Kafka's collectAbortedTxns: the transactions aborted in [fetchOffset, upperBoundOffset); complete once an
   * entry's LSO reaches the bound, since every transaction that started below it was decided by then.
   */
  collectAbortedTxns(fetchOffset: number, upperBoundOffset: number): TxnIndexSearchResult {
    const found: AbortedTxn[] = [];
    for (const txn of this.entries) {
      if (txn.lastOffset >= fetchOffset && txn.firstOffset < upperBoundOffset) found.push(txn);
      if (txn.lastStableOffset >= upperBoundOffset) return { abortedTransactions: found, isComplete: true };
    }
    return { abortedTransactions: found, isComplete: false };
  }

  /** Kafka's truncateTo: entries whose marker is at or above `offset` go. */
  truncateTo(offset: number): void {
    const keep = this.entries.findIndex((t) => t.lastOffset >= offset);
    if (keep < 0) return;
    this.entries = this.entries.slice(0, keep);
    truncateFile(this.fileValue, keep * ABORTED_TXN_SIZE);
  }

  /** Empties the index (its segment is being recovered and rebuilds it). */
  reset(): void {
    if (this.entries.length === 0) return;
    this.entries = [];
    truncateFile(this.fileValue, 0);
  }

  /** Renames the file if there is one; the path moves regardless, as the segment's other files. */
  renameTo(file: string): void {
    try {
      fs.renameSync(this.fileValue, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.fileValue = file;
  }

  deleteIfExists(): void {
    fs.rmSync(this.fileValue, { force: true });
  }

  /** fdatasync, when there is a file (called as a segment rolls or is swapped in). */
  flushSync(): void {
    if (this.entries.length === 0) return;
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.fileValue, 'r');
      fs.fdatasyncSync(fd);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  /**
   * Reads the file. A torn last entry (a crash mid-append) is cut off, and so is anything after an entry of an
   * unknown version; the segment's recovery replays its markers and appends what was lost.
   */
  private static load(file: string): AbortedTxn[] {
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const entries: AbortedTxn[] = [];
    let p = 0;
    for (; p + ABORTED_TXN_SIZE <= buf.length; p += ABORTED_TXN_SIZE) {
      const txn = decode(buf, p);
      if (txn === undefined) break;
      entries.push(txn);
    }
    if (p !== buf.length) {
      logger.warn(`Truncating transaction index ${file} from ${buf.length} to ${p} bytes: its tail is not a whole version ${ABORTED_TXN_VERSION} entry`);
      truncateFile(file, p);
    }
    return entries;
  }
}

function encode(txn: AbortedTxn): Buffer {
  const buf = Buffer.alloc(ABORTED_TXN_SIZE);
  buf.writeInt16BE(ABORTED_TXN_VERSION, 0);
  buf.writeBigInt64BE(BigInt(txn.producerId), 2);
  buf.writeBigInt64BE(BigInt(txn.firstOffset), 10);
  buf.writeBigInt64BE(BigInt(txn.lastOffset), 18);
  buf.writeBigInt64BE(BigInt(txn.lastStableOffset), 26);
  return buf;
}

function decode(buf: Buffer, p: number): AbortedTxn | undefined {
  if (buf.readInt16BE(p) !== ABORTED_TXN_VERSION) return undefined;
  return {
    producerId: Number(buf.readBigInt64BE(p + 2)),
    firstOffset: Number(buf.readBigInt64BE(p + 10)),
    lastOffset: Number(buf.readBigInt64BE(p + 18)),
    lastStableOffset: Number(buf.readBigInt64BE(p + 26)),
  };
}

function truncateFile(file: string, size: number): void {
  try {
    fs.truncateSync(file, size);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
