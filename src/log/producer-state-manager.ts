import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { RecordBatch } from '../records/record-batch';
import { offsetFromFileName, PRODUCER_SNAPSHOT_FILE_SUFFIX, producerSnapshotFile } from './log-file-names';
import type { AppendOrigin } from './log-validator';
import { CorruptSnapshotError, readProducerSnapshot, writeProducerSnapshot } from './producer-snapshot-file';
import { BatchMetadata, incrementSequence, NO_PRODUCER_EPOCH, NO_SEQUENCE, ProducerStateEntry } from './producer-state-entry';

/** A transaction of one producer in this partition: where it started and, once its marker is in, where it ended. */
export interface TxnMetadata {
  readonly producerId: number;
  readonly firstOffset: number;
  lastOffset: number | undefined;
}

/** A transaction a COMMIT/ABORT marker ended (Kafka's CompletedTxn): what the LSO and the .txnindex need. */
export interface CompletedTxn {
  readonly producerId: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly isAborted: boolean;
}

/** ControlRecordType: the marker's key is (version int16, type int16), ABORT 0, COMMIT 1. */
const CONTROL_TYPE_ABORT = 0;
const CONTROL_TYPE_COMMIT = 1;

const INT32_MAX = 0x7fffffff;

/**
 * One partition's producer state (Kafka 2.8's ProducerStateManager and ProducerAppendInfo): for each producer id
 * its epoch and last five batches, so that a leader refuses what is out of order or from a fenced epoch and
 * answers a retried batch with the offsets it was first written at; the transactions still open, for the last
 * stable offset; and `<offset>.snapshot` files, so a restart replays only the log after the latest one.
 *
 * Everything is read from batch headers (producer id, epoch, base sequence, last offset delta, attributes, max
 * timestamp); only a control batch's one marker record is decoded. Not synchronised: the Log calls it under its
 * append queue. The map end offset is the offset up to which the state reflects the log.
 */
export class ProducerStateManager {
  private readonly logger: Logger;
  private readonly producers = new Map<number, ProducerStateEntry>();
  /** Open transactions by first offset, in offset order (appended in order; sorted when loaded). */
  private readonly ongoingTxns = new Map<number, TxnMetadata>();
  /** Completed transactions whose marker is not yet below the high watermark. */
  private readonly unreplicatedTxns = new Map<number, TxnMetadata>();
  /** Snapshot offsets on disk, ascending. */
  private snapshots: number[];
  private lastMapOffset = 0;
  private lastSnapOffset = 0;

  constructor(
    readonly topicPartition: TopicPartition,
    private dir: string,
    readonly maxProducerIdExpirationMs: number,
    /** A directory just created has no snapshots: no need to list it. */
    fresh = false,
  ) {
    this.logger = getLogger('kafka.log.ProducerStateManager', `[ProducerStateManager partition=${tpString(topicPartition)}] `);
    this.snapshots = fresh ? [] : listSnapshotOffsets(dir);
  }

  get mapEndOffset(): number {
    return this.lastMapOffset;
  }

  get isEmpty(): boolean {
    return this.producers.size === 0 && this.unreplicatedTxns.size === 0;
  }

  get activeProducers(): ReadonlyMap<number, ProducerStateEntry> {
    return this.producers;
  }

  lastEntry(producerId: number): ProducerStateEntry | undefined {
    return this.producers.get(producerId);
  }

  latestSnapshotOffset(): number | undefined {
    return this.snapshots[this.snapshots.length - 1];
  }

  oldestSnapshotOffset(): number | undefined {
    return this.snapshots[0];
  }

  snapshotOffsets(): readonly number[] {
    return this.snapshots;
  }

  /** The log dir moved (a future log renamed into place). */
  updateParentDir(dir: string): void {
    this.dir = dir;
  }

  /**
   * A client's retry of one of the producer's last five batches (same epoch, same sequence range): the metadata
   * it was written with. Checked before `append`, as Kafka's Log.analyzeAndValidateProducerState does.
   */
  findDuplicate(batch: RecordBatch): BatchMetadata | undefined {
    const entry = this.producers.get(batch.producerId);
    if (entry === undefined) return undefined;
    const firstSeq = batch.baseSequence;
    return entry.findDuplicateBatch(batch.producerEpoch, firstSeq, incrementSequence(firstSeq, batch.lastOffsetDelta));
  }

  /**
   * Validates (for `client` and `coordinator` appends) and records one batch whose offsets are assigned. Throws
   * INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_TXN_STATE or TRANSACTION_COORDINATOR_FENCED
   * before changing anything. Replicated batches are recorded as their leader wrote them (a lower epoch only
   * warned about). Returns the transaction a marker completed.
   */
  append(batch: RecordBatch, origin: AppendOrigin): CompletedTxn | undefined {
    const producerId = batch.producerId;
    if (producerId < 0) return undefined;
    const epoch = batch.producerEpoch;
    let entry = this.producers.get(producerId);
    const offset = batch.baseOffset;
    if (entry !== undefined) this.checkProducerEpoch(entry, epoch, offset, origin);
    if (batch.isControlBatch) return this.appendEndTxnMarker(entry, batch, origin);
    const firstSeq = batch.baseSequence;
    const delta = batch.lastOffsetDelta;
    if (origin === 'client') this.checkSequence(entry, epoch, firstSeq, offset);
    const transactional = batch.isTransactional;
    const inTxn = entry !== undefined && entry.currentTxnFirstOffset >= 0;
    if (inTxn && !transactional) {
      throw new KafkaError('INVALID_TXN_STATE', `Expected transactional write from producer ${producerId} at offset ${offset} in partition ${tpString(this.topicPartition)}`);
    }
    if (entry === undefined) {
      entry = new ProducerStateEntry(producerId);
      this.producers.set(producerId, entry);
    }
    entry.addBatch(epoch, incrementSequence(firstSeq, delta), offset + delta, delta, batch.maxTimestamp);
    if (transactional && !inTxn) {
      entry.currentTxnFirstOffset = offset;
      this.ongoingTxns.set(offset, { producerId, firstOffset: offset, lastOffset: undefined });
    }
    return undefined;
  }

  private checkProducerEpoch(entry: ProducerStateEntry, epoch: number, offset: number, origin: AppendOrigin): void {
    if (epoch >= entry.producerEpoch) return;
    const message = `Epoch of producer ${entry.producerId} at offset ${offset} in ${tpString(this.topicPartition)} is ${epoch}, which is smaller than the last seen epoch ${entry.producerEpoch}`;
    if (origin === 'replication') this.logger.warn(message);
    // Kafka 2.7+ answers INVALID_PRODUCER_EPOCH here (not the fatal PRODUCER_FENCED): the producer may abort and go on.
    else throw new KafkaError('INVALID_PRODUCER_EPOCH', message);
  }

  /**
   * Kafka 2.8's checkSequence (KIP-360): a new epoch must start at sequence 0 unless the producer is unknown;
   * within an epoch the batch must follow the last one; a producer whose state is gone (expired, or its data
   * removed) is accepted at any sequence, as 2.8 does.
   */
  private checkSequence(entry: ProducerStateEntry | undefined, epoch: number, firstSeq: number, offset: number): void {
    const currentEpoch = entry?.producerEpoch ?? NO_PRODUCER_EPOCH;
    if (epoch !== currentEpoch) {
      if (firstSeq !== 0 && currentEpoch !== NO_PRODUCER_EPOCH) {
        throw new KafkaError(
          'OUT_OF_ORDER_SEQUENCE_NUMBER',
          `Invalid sequence number for new epoch of producer ${entry?.producerId ?? -1} at offset ${offset} in partition ${tpString(this.topicPartition)}: ${epoch} (request epoch), ${firstSeq} (seq. number), ${currentEpoch} (current producer epoch)`,
        );
      }
      return;
    }
    const lastSeq = entry === undefined || entry.isEmpty ? NO_SEQUENCE : entry.lastSeq;
    const inSequence = firstSeq === lastSeq + 1 || (firstSeq === 0 && lastSeq === INT32_MAX);
    if (currentEpoch !== NO_PRODUCER_EPOCH && !inSequence) {
      throw new KafkaError(
        'OUT_OF_ORDER_SEQUENCE_NUMBER',
        `Out of order sequence number for producer ${entry?.producerId ?? -1} at offset ${offset} in partition ${tpString(this.topicPartition)}: ${firstSeq} (incoming seq. number), ${lastSeq} (current end sequence number)`,
      );
    }
  }

  private appendEndTxnMarker(current: ProducerStateEntry | undefined, batch: RecordBatch, origin: AppendOrigin): CompletedTxn | undefined {
    // An empty control batch: the cleaner removed the whole transaction.
    const record = batch.records()[0];
    if (record === undefined || record.key === null || record.key.length < 4) return undefined;
    const controlType = record.key.readInt16BE(2);
    if (controlType !== CONTROL_TYPE_ABORT && controlType !== CONTROL_TYPE_COMMIT) return undefined;
    const coordinatorEpoch = record.value !== null && record.value.length >= 6 ? record.value.readInt32BE(2) : -1;
    const producerId = batch.producerId;
    const offset = batch.baseOffset;
    const entry = current ?? new ProducerStateEntry(producerId);
    if (entry.coordinatorEpoch > coordinatorEpoch) {
      if (origin === 'replication') {
        this.logger.info(`Detected invalid coordinator epoch for producerId ${producerId} at offset ${offset} in partition ${tpString(this.topicPartition)}: ${coordinatorEpoch} is older than previously known coordinator epoch ${entry.coordinatorEpoch}`);
      } else {
        throw new KafkaError('TRANSACTION_COORDINATOR_FENCED', `Invalid coordinator epoch for producerId ${producerId} at offset ${offset} in partition ${tpString(this.topicPartition)}: ${coordinatorEpoch} (zombie), ${entry.coordinatorEpoch} (current)`);
      }
    }
    const firstOffset = entry.currentTxnFirstOffset;
    const completed = firstOffset >= 0 ? { producerId, firstOffset, lastOffset: offset, isAborted: controlType === CONTROL_TYPE_ABORT } : undefined;
    entry.maybeUpdateProducerEpoch(batch.producerEpoch);
    entry.currentTxnFirstOffset = -1;
    entry.coordinatorEpoch = coordinatorEpoch;
    entry.lastTimestamp = record.timestamp;
    if (current === undefined) this.producers.set(producerId, entry);
    if (completed !== undefined) this.completeTxn(completed);
    return completed;
  }

  /** A marker is written: the transaction stops being undecided, and is unstable until the HW passes its marker. */
  private completeTxn(txn: CompletedTxn): void {
    const meta = this.ongoingTxns.get(txn.firstOffset);
    if (meta === undefined) return;
    this.ongoingTxns.delete(txn.firstOffset);
    meta.lastOffset = txn.lastOffset;
    this.unreplicatedTxns.set(txn.firstOffset, meta);
  }

  /** The LSO a completed transaction leaves (Kafka's lastStableOffset(completedTxn)), for the .txnindex. */
  lastStableOffset(txn: CompletedTxn): number {
    for (const t of this.ongoingTxns.values()) if (t.producerId !== txn.producerId) return t.firstOffset;
    return txn.lastOffset + 1;
  }

  /** The first offset of a transaction that is open, or completed above the high watermark (the LSO bound). */
  firstUnstableOffset(): number | undefined {
    const unreplicated = first(this.unreplicatedTxns);
    const undecided = first(this.ongoingTxns);
    if (unreplicated === undefined) return undecided;
    if (undecided === undefined) return unreplicated;
    return Math.min(undecided, unreplicated);
  }

  /** The first offset of a transaction still open. */
  firstUndecidedOffset(): number | undefined {
    return first(this.ongoingTxns);
  }

  onHighWatermarkUpdated(highWatermark: number): void {
    this.removeUnreplicatedTransactions(highWatermark);
  }

  updateMapEndOffset(offset: number): void {
    this.lastMapOffset = offset;
  }

  /** Writes `<mapEndOffset>.snapshot` unless the latest snapshot is already there. */
  takeSnapshot(now?: () => number, sync = false): void {
    if (this.lastMapOffset <= this.lastSnapOffset) return;
    const started = now?.() ?? Date.now();
    writeProducerSnapshot(producerSnapshotFile(this.dir, this.lastMapOffset), this.producers.values(), sync);
    this.logger.info(`Wrote producer snapshot at offset ${this.lastMapOffset} with ${this.producers.size} producer ids in ${(now?.() ?? Date.now()) - started} ms.`);
    this.addSnapshotOffset(this.lastMapOffset);
    this.lastSnapOffset = this.lastMapOffset;
  }

  /**
   * Kafka's truncateAndReload: snapshots outside (logStartOffset, logEndOffset] go; unless the state already ends
   * at logEndOffset it is reset to the latest remaining snapshot (the caller replays the log after it).
   */
  truncateAndReload(logStartOffset: number, logEndOffset: number, now: number): void {
    for (const offset of [...this.snapshots]) if (offset > logEndOffset || offset <= logStartOffset) this.removeAndDeleteSnapshot(offset);
    if (logEndOffset !== this.lastMapOffset) {
      this.producers.clear();
      this.ongoingTxns.clear();
      this.unreplicatedTxns.clear();
      this.loadFromSnapshot(logStartOffset, now);
    } else {
      this.onLogStartOffsetIncremented(logStartOffset);
    }
  }

  private loadFromSnapshot(logStartOffset: number, now: number): void {
    for (;;) {
      const offset = this.latestSnapshotOffset();
      if (offset === undefined) {
        this.lastSnapOffset = logStartOffset;
        this.lastMapOffset = logStartOffset;
        return;
      }
      const file = producerSnapshotFile(this.dir, offset);
      try {
        this.logger.info(`Loading producer state from snapshot file '${snapshotFileString(file, offset)}'`);
        const entries = readProducerSnapshot(file)
          .filter((e) => !this.isProducerExpired(now, e))
          .sort((a, b) => a.currentTxnFirstOffset - b.currentTxnFirstOffset);
        for (const e of entries) this.loadProducerEntry(e);
        this.lastSnapOffset = offset;
        this.lastMapOffset = offset;
        return;
      } catch (err) {
        if (!(err instanceof CorruptSnapshotError) && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        this.logger.warn(`Failed to load producer snapshot from '${file}': ${(err as Error).message}`);
        this.removeAndDeleteSnapshot(offset);
      }
    }
  }

  loadProducerEntry(entry: ProducerStateEntry): void {
    this.producers.set(entry.producerId, entry);
    if (entry.currentTxnFirstOffset >= 0) this.ongoingTxns.set(entry.currentTxnFirstOffset, { producerId: entry.producerId, firstOffset: entry.currentTxnFirstOffset, lastOffset: undefined });
  }

  private isProducerExpired(now: number, entry: ProducerStateEntry): boolean {
    return entry.currentTxnFirstOffset < 0 && now - entry.lastTimestamp >= this.maxProducerIdExpirationMs;
  }

  /** Forgets producers idle for transactional.id.expiration.ms without an open transaction (Kafka 2.8's rule). */
  removeExpiredProducers(now: number): void {
    for (const [id, entry] of this.producers) if (this.isProducerExpired(now, entry)) this.producers.delete(id);
  }

  /** The log start offset moved (retention, DeleteRecords): producer state is kept, as in Kafka 2.8. */
  onLogStartOffsetIncremented(logStartOffset: number): void {
    this.removeUnreplicatedTransactions(logStartOffset);
    if (this.lastMapOffset < logStartOffset) this.lastMapOffset = logStartOffset;
    this.lastSnapOffset = this.latestSnapshotOffset() ?? logStartOffset;
  }

  private removeUnreplicatedTransactions(offset: number): void {
    for (const [key, txn] of this.unreplicatedTxns) if (txn.lastOffset !== undefined && txn.lastOffset < offset) this.unreplicatedTxns.delete(key);
  }

  /** Everything forgotten, every snapshot deleted; the state starts at `offset`. */
  truncateFullyAndStartAt(offset: number): void {
    this.producers.clear();
    this.ongoingTxns.clear();
    this.unreplicatedTxns.clear();
    for (const s of [...this.snapshots]) this.removeAndDeleteSnapshot(s);
    this.lastSnapOffset = 0;
    this.lastMapOffset = offset;
  }

  /**
   * Kafka's removeStraySnapshots at load: a snapshot without a segment of the same base offset goes, except the
   * newest one if it is above every segment (the one a clean shutdown wrote at the log end offset).
   */
  removeStraySnapshots(segmentBaseOffsets: readonly number[]): void {
    const bases = new Set(segmentBaseOffsets);
    const maxBase = segmentBaseOffsets.length === 0 ? undefined : Math.max(...segmentBaseOffsets);
    let latestStray: number | undefined;
    for (const offset of [...this.snapshots]) {
      if (bases.has(offset)) continue;
      if (latestStray !== undefined) this.removeAndDeleteSnapshot(latestStray);
      latestStray = offset;
    }
    if (latestStray !== undefined && maxBase !== undefined && latestStray < maxBase) this.removeAndDeleteSnapshot(latestStray);
  }

  /** Deletes the snapshot at a segment's base offset, when the segment itself is deleted. */
  removeAndDeleteSnapshot(offset: number): void {
    const i = this.snapshots.indexOf(offset);
    if (i < 0) return;
    this.snapshots.splice(i, 1);
    fs.rmSync(producerSnapshotFile(this.dir, offset), { force: true });
  }

  deleteSnapshotsBefore(offset: number): void {
    for (const s of [...this.snapshots]) if (s < offset) this.removeAndDeleteSnapshot(s);
  }

  private addSnapshotOffset(offset: number): void {
    if (this.snapshots.includes(offset)) return;
    this.snapshots.push(offset);
    this.snapshots.sort((a, b) => a - b);
  }
}

function first(map: Map<number, unknown>): number | undefined {
  for (const key of map.keys()) return key;
  return undefined;
}

/** Scala's SnapshotFile case class toString, as Kafka's load line prints it. */
function snapshotFileString(file: string, offset: number): string {
  return `SnapshotFile(${file},${offset})`;
}

function listSnapshotOffsets(dir: string): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(PRODUCER_SNAPSHOT_FILE_SUFFIX) && fs.statSync(path.join(dir, n)).isFile())
    .map((n) => offsetFromFileName(n))
    .filter((o) => Number.isFinite(o))
    .sort((a, b) => a - b);
}
