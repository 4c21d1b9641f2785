import * as fs from 'node:fs';
import * as path from 'node:path';
import { readInt64 } from '../common/int64';
import { OffsetIndex } from '../log/offset-index';
import { TimeIndex } from '../log/time-index';
import { CorruptIndexError } from '../log/abstract-index';
import { RecordBatch, LOG_OVERHEAD, compressionTypeName, crc32c, TimestampType, NO_TIMESTAMP } from '../records';
import type { Record } from '../records';
import { CliError } from './cli';
import { DecoderException, MessageParser, offsetsMessageParser, stringDecoderParser, transactionLogMessageParser } from './dump-log-decoders';
import { javaStringHash, scalaHashMapOrder } from './java-rendering';

export interface DumpLogOptions {
  files?: string;
  printDataLog?: boolean;
  verifyIndexOnly?: boolean;
  indexSanityCheck?: boolean;
  maxMessageSize?: string;
  deepIteration?: boolean;
  valueDecoderClass?: string | boolean;
  keyDecoderClass?: string | boolean;
  offsetsDecoder?: boolean;
  transactionLogDecoder?: boolean;
  clusterMetadataDecoder?: boolean;
  skipRecordMetadata?: boolean;
}

/** Where the tool writes: stdout lines and stderr lines. */
export interface DumpLogOutput {
  out(line: string): void;
  err(line: string): void;
}

/** The decoder Kafka's --key-decoder-class / --value-decoder-class default to, and the only one kafka-ts has. */
const STRING_DECODER = 'kafka.serializer.StringDecoder';
const DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024;
const RECORD_INDENT = '|';
/** LegacyRecord.RECORD_OVERHEAD_V0: FileLogInputStream's smallest acceptable entry size. */
const RECORD_OVERHEAD_V0 = 14;
/** Bytes up to and including the magic byte: what FileLogInputStream needs to see an entry. */
const HEADER_SIZE_UP_TO_MAGIC = 17;
const NO_SEQUENCE = -1;
const INT32_MAX = 0x7fffffff;

/** Kafka's settled options (DumpLogSegmentsOptions' lazy vals). */
export interface DumpLogSettings {
  files: string[];
  printContents: boolean;
  deepIteration: boolean;
  verifyOnly: boolean;
  indexSanityOnly: boolean;
  maxMessageSize: number;
  skipRecordMetadata: boolean;
  parser: MessageParser;
}

/** DumpLogSegmentsOptions: required --files, the decoders, and what implies what (any decoder prints data; printing data iterates deeply). */
export function dumpLogSettings(o: DumpLogOptions): DumpLogSettings {
  if (o.files === undefined) throw new CliError('Missing required argument "[files]"');
  let maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
  if (o.maxMessageSize !== undefined) {
    if (!/^[+-]?\d+$/.test(o.maxMessageSize) || Math.abs(Number(o.maxMessageSize)) > INT32_MAX) {
      throw new CliError(`Cannot parse argument '${o.maxMessageSize}' of option max-message-size`);
    }
    maxMessageSize = Number(o.maxMessageSize);
  }
  if (o.clusterMetadataDecoder) throw new CliError('--cluster-metadata-decoder reads a KRaft metadata log; kafka-ts runs in ZooKeeper mode only and has none');
  for (const [name, value] of [['key-decoder-class', o.keyDecoderClass], ['value-decoder-class', o.valueDecoderClass]] as const) {
    if (typeof value === 'string' && value !== STRING_DECODER) {
      throw new CliError(`--${name} ${value} is not supported: kafka-ts loads no Java classes; only ${STRING_DECODER} (the default) is available`);
    }
  }
  let parser: MessageParser = stringDecoderParser;
  if (o.offsetsDecoder) parser = offsetsMessageParser;
  else if (o.transactionLogDecoder) parser = transactionLogMessageParser;
  const printContents = Boolean(o.printDataLog || o.offsetsDecoder || o.transactionLogDecoder || o.valueDecoderClass !== undefined || o.keyDecoderClass !== undefined);
  return {
    files: o.files.split(','),
    printContents,
    deepIteration: Boolean(o.deepIteration) || printContents,
    verifyOnly: Boolean(o.verifyIndexOnly),
    indexSanityOnly: Boolean(o.indexSanityCheck),
    maxMessageSize,
    skipRecordMetadata: Boolean(o.skipRecordMetadata),
    parser,
  };
}

/** A failure Kafka's tool dies of: printed as the JVM prints an uncaught exception's first line. */
export class JavaException extends Error {
  constructor(
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
  }

  line(): string {
    return `Exception in thread "main" ${this.javaClass}${this.message === '' ? '' : `: ${this.message}`}`;
  }
}

/** DefaultRecordBatch.incrementSequence: sequences wrap from Integer.MAX_VALUE to 0. */
function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

/** DefaultRecordBatch.lastSequence. */
export function lastSequenceOf(batch: RecordBatch): number {
  const base = batch.baseSequence;
  return base === NO_SEQUENCE ? NO_SEQUENCE : incrementSequence(base, batch.lastOffsetDelta);
}

function timestampTypeName(batch: RecordBatch): string {
  return batch.timestampType === TimestampType.LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime';
}

/** CompressionType's enum name as Java's toString prints it (NONE, GZIP, ...). */
function codecName(batch: RecordBatch): string {
  try {
    return compressionTypeName(batch.compressionType).toUpperCase();
  } catch {
    throw new JavaException('java.lang.IllegalArgumentException', `Unknown compression type id: ${batch.compressionId}`);
  }
}

/** printBatchLevel: the batch line of a magic-2 batch at byte `position` of its segment. */
export function formatBatchLine(batch: RecordBatch, position: number): string {
  return (
    `baseOffset: ${batch.baseOffset} lastOffset: ${batch.lastOffset} count: ${batch.recordsCount}` +
    ` baseSequence: ${batch.baseSequence} lastSequence: ${lastSequenceOf(batch)}` +
    ` producerId: ${batch.producerId} producerEpoch: ${batch.producerEpoch}` +
    ` partitionLeaderEpoch: ${batch.partitionLeaderEpoch} isTransactional: ${batch.isTransactional}` +
    ` isControl: ${batch.isControlBatch}` +
    ` position: ${position} ${timestampTypeName(batch)}: ${batch.maxTimestamp} size: ${batch.sizeInBytes} magic: ${batch.magic}` +
    ` compresscodec: ${codecName(batch)} crc: ${batch.checksum} isvalid: ${batch.isValid()}`
  );
}

/** ControlRecordType by id (Kafka 2.8: ABORT, COMMIT, LEADER_CHANGE; anything else UNKNOWN). */
const CONTROL_TYPES: Readonly<{ [id: number]: string | undefined }> = { 0: 'ABORT', 1: 'COMMIT', 2: 'LEADER_CHANGE' };

function controlText(record: Record): string {
  const key = record.key;
  if (key === null || key.length < 4) {
    throw new JavaException('org.apache.kafka.common.InvalidRecordException', `Invalid value size found for end control record key. Must have at least 4 bytes, but found only ${key?.length ?? 0}`);
  }
  const version = key.readInt16BE(0);
  if (version < 0) throw new JavaException('org.apache.kafka.common.InvalidRecordException', `Invalid version found for control record: ${version}. May indicate data corruption`);
  const typeId = key.readInt16BE(2);
  const type = CONTROL_TYPES[typeId] ?? 'UNKNOWN';
  if (type === 'ABORT' || type === 'COMMIT') {
    const value = record.value;
    if (value === null || value.length < 6) throw new JavaException('org.apache.kafka.common.InvalidRecordException', 'Invalid value size found for end transaction marker');
    return ` endTxnMarker: ${type} coordinatorEpoch: ${value.readInt32BE(2)}`;
  }
  return ` controlType: ${type}(${typeId})`;
}

/** One `| offset: ...` line of --deep-iteration (with key and payload when contents are printed). */
export function formatRecordLine(batch: RecordBatch, record: Record, s: Pick<DumpLogSettings, 'printContents' | 'skipRecordMetadata' | 'parser'>): string {
  let line = '';
  let prefix = `${RECORD_INDENT} `;
  if (!s.skipRecordMetadata) {
    const base = batch.baseSequence;
    const sequence = base >= 0 ? incrementSequence(base, record.offset - batch.baseOffset) : NO_SEQUENCE;
    line +=
      `${prefix}offset: ${record.offset} ${timestampTypeName(batch)}: ${record.timestamp}` +
      ` keySize: ${record.key === null ? -1 : record.key.length} valueSize: ${record.value === null ? -1 : record.value.length}` +
      ` sequence: ${sequence} headerKeys: [${record.headers.map((h) => h.key).join(',')}]`;
    prefix = ' ';
    if (batch.isControlBatch) line += controlText(record);
  }
  if (s.printContents && !batch.isControlBatch) {
    let parsed;
    try {
      parsed = s.parser(record);
    } catch (err) {
      if (err instanceof DecoderException) throw new JavaException(err.javaClass, err.message);
      throw err;
    }
    if (parsed.key !== undefined) {
      line += `${prefix}key: ${parsed.key}`;
      prefix = ' ';
    }
    if (parsed.payload !== undefined) line += ` payload: ${parsed.payload}`;
  }
  return line;
}

/** `00000000000000000042.log` → 42 (`file.getName.split("\\.")(0).toLong`). */
function startOffsetOf(file: string): number {
  const name = path.basename(file).split('.')[0] ?? '';
  if (!/^[+-]?\d+$/.test(name)) throw new JavaException('java.lang.NumberFormatException', `For input string: "${name}"`);
  return Number(name);
}

function siblingFile(file: string, suffix: string): string {
  return path.join(path.dirname(path.resolve(file)), `${path.basename(file).split('.')[0] ?? ''}${suffix}`);
}

function readWholeFile(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'No such file or directory' : code === 'EACCES' ? 'Permission denied' : code === 'EISDIR' ? 'Is a directory' : String(code);
    throw new JavaException('java.io.FileNotFoundException', `${file} (${reason})`);
  }
}

/**
 * FileLogInputStream's walk over a segment from `start` to `end`: an entry needs its 17 header bytes and its whole
 * size inside the range (else the walk ends); a size below 14 bytes is a CorruptRecordException.
 */
function* batchesOf(buf: Buffer, file: string, start = 0, end = buf.length): Generator<RecordBatch> {
  let pos = start;
  while (pos + HEADER_SIZE_UP_TO_MAGIC <= end) {
    const size = buf.readInt32BE(pos + 8);
    if (size < RECORD_OVERHEAD_V0) {
      throw new JavaException('org.apache.kafka.common.errors.CorruptRecordException', `Found record size ${size} smaller than minimum record overhead (${RECORD_OVERHEAD_V0}) in file ${file}.`);
    }
    if (pos + LOG_OVERHEAD + size > end) return;
    const magic = buf.readInt8(pos + 16);
    if (magic !== 2) throw new JavaException('java.lang.IllegalStateException', `kafka-ts reads magic-2 record batches only; found magic ${magic} at position ${pos} of ${file}`);
    yield new RecordBatch(buf, pos);
    pos += LOG_OVERHEAD + size;
  }
}

function recordsOf(batch: RecordBatch): Record[] {
  try {
    return batch.records();
  } catch (err) {
    throw new JavaException('org.apache.kafka.common.errors.CorruptRecordException', err instanceof Error ? err.message : String(err));
  }
}

/** What the whole run collects for the closing reports on stderr (Kafka's maps keyed by absolute path). */
interface DumpReports {
  indexMismatches: Map<string, [number, number][]>;
  nonConsecutive: Map<string, [number, number][]>;
  timeMismatches: Map<string, [number, number][]>;
  outOfOrder: Map<string, [number, number][]>;
  shallowNotFound: Map<string, [number, number][]>;
}

function push(map: Map<string, [number, number][]>, file: string, pair: [number, number]): void {
  const key = path.resolve(file);
  const list = map.get(key) ?? [];
  list.push(pair);
  map.set(key, list);
}

/** dumpLog: `Starting offset: N`, a line per batch, a line per record when deep, trailing bytes. */
export function dumpLog(file: string, s: DumpLogSettings, reports: DumpReports, out: (line: string) => void): void {
  out(`Starting offset: ${startOffsetOf(file)}`);
  const buf = readWholeFile(file);
  let validBytes = 0;
  let lastOffset = -1;
  for (const batch of batchesOf(buf, file)) {
    out(formatBatchLine(batch, validBytes));
    if (s.deepIteration) {
      for (const record of recordsOf(batch)) {
        if (lastOffset === -1) lastOffset = record.offset;
        else if (record.offset !== lastOffset + 1) push(reports.nonConsecutive, file, [lastOffset, record.offset]);
        lastOffset = record.offset;
        out(formatRecordLine(batch, record, s));
      }
    }
    validBytes += batch.sizeInBytes;
  }
  const trailing = buf.length - validBytes;
  if (trailing > 0) out(`Found ${trailing} invalid bytes at the end of ${path.basename(file)}`);
}

function openIndex<T>(file: string, open: (size: number) => T): T {
  // The log package's index classes create a missing file; Kafka's read-only open fails instead.
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new JavaException('java.io.FileNotFoundException', `${file} (No such file or directory)`);
  }
  return open(Math.max(size, 1) * 2);
}

function sanityFailure(err: unknown): never {
  if (err instanceof CorruptIndexError) throw new JavaException('kafka.log.CorruptIndexException', err.message);
  throw err;
}

/** dumpIndex: `offset: N position: M` per entry; entries not pointing at a batch ending at N are mismatches. */
export function dumpIndex(file: string, s: DumpLogSettings, reports: DumpReports, out: (line: string) => void): void {
  const startOffset = startOffsetOf(file);
  const log = readWholeFile(siblingFile(file, '.log'));
  const index = openIndex(file, (max) => new OffsetIndex(file, startOffset, max));
  if (s.indexSanityOnly) {
    try {
      index.sanityCheck(log.length);
    } catch (err) {
      sanityFailure(err);
    }
    out(`${file} passed sanity check.`);
    return;
  }
  for (let i = 0; i < index.entries; i++) {
    const entry = index.entry(i);
    // A sparse (pre-allocated) file ends in zero entries: stop at the first one.
    if (entry.offset === index.baseOffset && i > 0) return;
    const first = batchesOf(log, file, entry.position, Math.min(log.length, entry.position + s.maxMessageSize)).next();
    if (first.done) throw new JavaException('java.util.NoSuchElementException', '');
    const firstBatchLastOffset = first.value.lastOffset;
    // Kafka prepends to an immutable List, so its report lists the mismatches last first.
    if (firstBatchLastOffset !== entry.offset) {
      const key = path.resolve(file);
      reports.indexMismatches.set(key, [[entry.offset, firstBatchLastOffset], ...(reports.indexMismatches.get(key) ?? [])]);
    }
    if (!s.verifyOnly) out(`offset: ${entry.offset} position: ${entry.position}`);
  }
}

/** dumpTimeIndex: `timestamp: T offset: N` per entry, checked against the batch it names and its records' timestamps. */
export function dumpTimeIndex(file: string, s: DumpLogSettings, reports: DumpReports, out: (line: string) => void): void {
  const startOffset = startOffsetOf(file);
  const log = readWholeFile(siblingFile(file, '.log'));
  const indexFile = siblingFile(file, '.index');
  const index = openIndex(indexFile, (max) => new OffsetIndex(indexFile, startOffset, max));
  const timeIndex = openIndex(file, (max) => new TimeIndex(file, startOffset, max));
  if (s.indexSanityOnly) {
    try {
      timeIndex.sanityCheck();
    } catch (err) {
      sanityFailure(err);
    }
    out(`${file} passed sanity check.`);
    return;
  }
  let prevTimestamp = NO_TIMESTAMP;
  for (let i = 0; i < timeIndex.entries; i++) {
    const entry = timeIndex.entry(i);
    if (entry.offset === timeIndex.baseOffset && i > 0) return;
    const position = index.lookup(entry.offset).position;
    let found: RecordBatch | undefined;
    for (const batch of batchesOf(log, file, position)) {
      if (batch.lastOffset >= entry.offset) {
        found = batch;
        break;
      }
    }
    if (found === undefined) push(reports.shallowNotFound, file, [entry.offset, -1]);
    else if (found.lastOffset !== entry.offset) push(reports.shallowNotFound, file, [entry.offset, found.lastOffset]);
    else {
      let maxTimestamp = NO_TIMESTAMP;
      for (const record of recordsOf(found)) maxTimestamp = Math.max(maxTimestamp, record.timestamp);
      if (maxTimestamp !== entry.timestamp) push(reports.timeMismatches, file, [entry.timestamp, maxTimestamp]);
      if (prevTimestamp >= entry.timestamp) push(reports.outOfOrder, file, [entry.timestamp, prevTimestamp]);
    }
    if (!s.verifyOnly) out(`timestamp: ${entry.timestamp} offset: ${entry.offset}`);
    prevTimestamp = entry.timestamp;
  }
}

/** An entry of a producer state snapshot (ProducerStateManager's PidSnapshotMap schema, version 1). */
export interface ProducerSnapshotEntry {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  lastOffset: number;
  offsetDelta: number;
  timestamp: number;
  coordinatorEpoch: number;
  currentTxnFirstOffset: number;
}

const SNAPSHOT_ENTRY_SIZE = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;
/** version (int16) + crc (uint32): the CRC-32C covers everything after them. */
const SNAPSHOT_ENTRIES_OFFSET = 6;

/** A snapshot that cannot be read: Kafka prints the message on stderr and goes on. */
export class CorruptSnapshotError extends Error {}

/** ProducerStateManager.readSnapshot over a `.snapshot` file's bytes. */
export function readProducerSnapshot(buf: Buffer): ProducerSnapshotEntry[] {
  if (buf.length < SNAPSHOT_ENTRIES_OFFSET + 4) throw new CorruptSnapshotError('Snapshot failed schema validation: Error reading field \'version\': java.nio.BufferUnderflowException');
  const version = buf.readInt16BE(0);
  if (version !== 1) throw new CorruptSnapshotError(`Snapshot contained an unknown file version ${version}`);
  const crc = buf.readUInt32BE(2);
  const computed = crc32c(buf.subarray(SNAPSHOT_ENTRIES_OFFSET));
  if (crc !== computed) throw new CorruptSnapshotError(`Snapshot is corrupt (CRC is no longer valid). Stored crc: ${crc}. Computed crc: ${computed}`);
  const count = buf.readInt32BE(SNAPSHOT_ENTRIES_OFFSET);
  if (count < 0 || buf.length < SNAPSHOT_ENTRIES_OFFSET + 4 + count * SNAPSHOT_ENTRY_SIZE) {
    throw new CorruptSnapshotError("Snapshot failed schema validation: Error reading field 'producer_entries': java.nio.BufferUnderflowException");
  }
  const out: ProducerSnapshotEntry[] = [];
  let p = SNAPSHOT_ENTRIES_OFFSET + 4;
  for (let i = 0; i < count; i++) {
    out.push({
      producerId: readInt64(buf, p),
      producerEpoch: buf.readInt16BE(p + 8),
      lastSequence: buf.readInt32BE(p + 10),
      lastOffset: readInt64(buf, p + 14),
      offsetDelta: buf.readInt32BE(p + 22),
      timestamp: readInt64(buf, p + 26),
      coordinatorEpoch: buf.readInt32BE(p + 34),
      currentTxnFirstOffset: readInt64(buf, p + 38),
    });
    p += SNAPSHOT_ENTRY_SIZE;
  }
  return out;
}

/** BatchMetadata.firstSeq: DecodingHelper's decrementSequence of the last sequence by the offset delta. */
function firstSequenceOf(lastSeq: number, offsetDelta: number): number {
  if (lastSeq === NO_SEQUENCE) return NO_SEQUENCE;
  return lastSeq < offsetDelta ? INT32_MAX - (offsetDelta - lastSeq) + 1 : lastSeq - offsetDelta;
}

/** dumpProducerIdSnapshot's line of one entry (currentTxnFirstOffset is a Scala Option: `Some(5)` or `None`). */
export function formatProducerSnapshotEntry(e: ProducerSnapshotEntry): string {
  const txn = e.currentTxnFirstOffset >= 0 ? `Some(${e.currentTxnFirstOffset})` : 'None';
  return (
    `producerId: ${e.producerId} producerEpoch: ${e.producerEpoch} coordinatorEpoch: ${e.coordinatorEpoch} currentTxnFirstOffset: ${txn} ` +
    `firstSequence: ${firstSequenceOf(e.lastSequence, e.offsetDelta)} lastSequence: ${e.lastSequence} lastOffset: ${e.lastOffset} offsetDelta: ${e.offsetDelta} timestamp: ${e.timestamp}`
  );
}

/** One aborted transaction of a `.txnindex` (TransactionIndex's 34-byte AbortedTxn, version 0). */
const ABORTED_TXN_SIZE = 34;

export function formatTxnIndex(buf: Buffer, file: string): string[] {
  const lines: string[] = [];
  for (let p = 0; p < buf.length; p += ABORTED_TXN_SIZE) {
    if (p + ABORTED_TXN_SIZE > buf.length) {
      throw new JavaException('kafka.log.CorruptIndexException', `Unexpected end of transaction index file ${path.resolve(file)}`);
    }
    const version = buf.readInt16BE(p);
    if (version !== 0) throw new JavaException('org.apache.kafka.common.KafkaException', `Unexpected aborted transaction version ${version} in transaction index ${path.resolve(file)}, current version is 0`);
    lines.push(`version: ${version} producerId: ${readInt64(buf, p + 2)} firstOffset: ${readInt64(buf, p + 10)} lastOffset: ${readInt64(buf, p + 18)} lastStableOffset: ${readInt64(buf, p + 26)}`);
  }
  return lines;
}

/**
 * Kafka's DumpLogSegments: each file by its suffix, then the reports on stderr (offset index mismatches, time
 * index errors, non-consecutive offsets). A failure Kafka dies of ends the run there with its exception line
 * and exit status 1.
 */
export function runDumpLogSegments(o: DumpLogOptions, io: DumpLogOutput): number {
  const s = dumpLogSettings(o);
  const reports: DumpReports = { indexMismatches: new Map(), nonConsecutive: new Map(), timeMismatches: new Map(), outOfOrder: new Map(), shallowNotFound: new Map() };
  try {
    for (const file of s.files) {
      io.out(`Dumping ${file}`);
      const name = path.basename(file);
      const suffix = name.includes('.') ? name.slice(name.lastIndexOf('.')) : '';
      if (suffix === '.log') dumpLog(file, s, reports, io.out);
      else if (suffix === '.index') dumpIndex(file, s, reports, io.out);
      else if (suffix === '.timeindex') dumpTimeIndex(file, s, reports, io.out);
      else if (suffix === '.snapshot') {
        try {
          for (const e of readProducerSnapshot(readWholeFile(file))) io.out(formatProducerSnapshotEntry(e));
        } catch (err) {
          if (!(err instanceof CorruptSnapshotError)) throw err;
          io.err(err.message);
        }
      } else if (suffix === '.txnindex') for (const line of formatTxnIndex(readWholeFile(file), file)) io.out(line);
      else if (suffix === '') throw new JavaException('java.lang.StringIndexOutOfBoundsException', `begin -1, end ${name.length}, length ${name.length}`);
      else io.err(`Ignoring unknown file ${file}`);
    }
  } catch (err) {
    if (err instanceof JavaException) {
      io.err(err.line());
      return 1;
    }
    throw err;
  }
  const byPath = (m: Map<string, [number, number][]>): [string, [number, number][]][] => scalaHashMapOrder([...m], ([p]) => javaStringHash(p));
  for (const [file, list] of byPath(reports.indexMismatches)) {
    io.err(`Mismatches in :${file}`);
    for (const [indexOffset, logOffset] of list) io.err(`  Index offset: ${indexOffset}, log offset: ${logOffset}`);
  }
  for (const [file, list] of byPath(reports.timeMismatches)) {
    io.err(`Found timestamp mismatch in :${file}`);
    for (const [indexTs, logTs] of list) io.err(`  Index timestamp: ${indexTs}, log timestamp: ${logTs}`);
  }
  for (const [file, list] of byPath(reports.outOfOrder)) {
    io.err(`Found out of order timestamp in :${file}`);
    for (const [indexTs, prevTs] of list) io.err(`  Index timestamp: ${indexTs}, Previously indexed timestamp: ${prevTs}`);
  }
  for (const [, list] of byPath(reports.shallowNotFound)) {
    io.err('The following indexed offsets are not found in the log.');
    for (const [indexed, found] of list) io.err(`Indexed offset: ${indexed}, found log offset: ${found}`);
  }
  for (const [file, list] of byPath(reports.nonConsecutive)) {
    io.err(`Non-consecutive offsets in ${file}`);
    // Prepended, as Kafka's List: last pair first.
    for (const [first, second] of [...list].reverse()) io.err(`  ${first} is followed by ${second}`);
  }
  return 0;
}
