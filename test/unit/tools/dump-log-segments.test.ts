import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32c } from '../../../src/records/crc32c';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { writeInt64 } from '../../../src/common/int64';
import { CliError } from '../../../src/tools/cli';
import { offsetsMessageParser, transactionLogMessageParser } from '../../../src/tools/dump-log-decoders';
import { dumpLogSettings, formatProducerSnapshotEntry, readProducerSnapshot, runDumpLogSegments } from '../../../src/tools/dump-log-segments';
import { logFixture, LogFixture } from '../log/log-test-utils';

function batch(records: { key: string | null; value: string | null; ts: number }[], opts: { producerId?: number; baseSequence?: number } = {}): Buffer {
  const b = new RecordBatchBuilder({ producerId: opts.producerId ?? -1, producerEpoch: opts.producerId === undefined ? -1 : 0, baseSequence: opts.baseSequence ?? -1 });
  for (const r of records) b.append({ timestamp: r.ts, key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value) });
  return b.build();
}

function run(args: Parameters<typeof runDumpLogSegments>[0]): { code: number; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const code = runDumpLogSegments(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('kafka-dump-log (DumpLogSegments) over segments written by the log package', () => {
  let fx: LogFixture;
  let logFile: string;
  let indexFile: string;
  let timeIndexFile: string;

  beforeAll(async () => {
    fx = logFixture('dump-0');
    // index.interval.bytes=1: every append gets an offset and a time index entry.
    const log = fx.open({ 'index.interval.bytes': '1' });
    await log.appendAsLeader(batch([{ key: 'k0', value: 'v0', ts: 1000 }, { key: null, value: 'v1', ts: 1001 }]), 3);
    await log.appendAsLeader(batch([{ key: 'k2', value: null, ts: 1005 }], { producerId: 7, baseSequence: 0 }), 3);
    await log.close();
    logFile = path.join(fx.logDir, '00000000000000000000.log');
    indexFile = path.join(fx.logDir, '00000000000000000000.index');
    timeIndexFile = path.join(fx.logDir, '00000000000000000000.timeindex');
  });

  afterAll(async () => fx.cleanup());

  it('prints the batch lines (shallow)', () => {
    const r = run({ files: logFile });
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    expect(r.out[0]).toBe(`Dumping ${logFile}`);
    expect(r.out[1]).toBe('Starting offset: 0');
    expect(r.out[2]).toMatch(
      /^baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false position: 0 CreateTime: 1001 size: \d+ magic: 2 compresscodec: NONE crc: \d+ isvalid: true$/,
    );
    const size = Number(/size: (\d+)/.exec(r.out[2]!)![1]);
    expect(r.out[3]).toMatch(
      new RegExp(`^baseOffset: 2 lastOffset: 2 count: 1 baseSequence: 0 lastSequence: 0 producerId: 7 producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: false isControl: false position: ${size} CreateTime: 1005 size: \\d+ magic: 2 compresscodec: NONE crc: \\d+ isvalid: true$`),
    );
    expect(r.out).toHaveLength(4);
  });

  it('--deep-iteration adds record lines, --print-data-log their keys and payloads', () => {
    const deep = run({ files: logFile, deepIteration: true });
    expect(deep.out.slice(3, 5)).toEqual(['| offset: 0 CreateTime: 1000 keySize: 2 valueSize: 2 sequence: -1 headerKeys: []', '| offset: 1 CreateTime: 1001 keySize: -1 valueSize: 2 sequence: -1 headerKeys: []']);
    const data = run({ files: logFile, printDataLog: true });
    expect(data.out.filter((l) => l.startsWith('|'))).toEqual([
      '| offset: 0 CreateTime: 1000 keySize: 2 valueSize: 2 sequence: -1 headerKeys: [] key: k0 payload: v0',
      '| offset: 1 CreateTime: 1001 keySize: -1 valueSize: 2 sequence: -1 headerKeys: [] payload: v1',
      '| offset: 2 CreateTime: 1005 keySize: 2 valueSize: -1 sequence: 0 headerKeys: [] key: k2',
    ]);
    const bare = run({ files: logFile, printDataLog: true, skipRecordMetadata: true });
    expect(bare.out.filter((l) => l.startsWith('|'))).toEqual(['| key: k0 payload: v0', '| key: k2']);
    // Kafka prints the payload without the indent when the record has neither metadata nor key.
    expect(bare.out).toContain(' payload: v1');
  });

  it('dumps the offset and time indexes and verifies them', () => {
    const idx = run({ files: `${indexFile},${timeIndexFile}` });
    expect(idx.code).toBe(0);
    // As Kafka's LogSegment: the first append is not indexed (no bytes since the last entry yet), the second is.
    const firstBatchSize = Number(/size: (\d+)/.exec(run({ files: logFile }).out[2]!)![1]);
    expect(idx.out).toEqual([`Dumping ${indexFile}`, `offset: 2 position: ${firstBatchSize}`, `Dumping ${timeIndexFile}`, 'timestamp: 1005 offset: 2']);
    expect(idx.err).toEqual([]);
    const verify = run({ files: `${indexFile},${timeIndexFile}`, verifyIndexOnly: true });
    expect(verify.out).toEqual([`Dumping ${indexFile}`, `Dumping ${timeIndexFile}`]);
    expect(verify.err).toEqual([]);
    const sanity = run({ files: `${indexFile},${timeIndexFile}`, indexSanityCheck: true });
    expect(sanity.out).toEqual([`Dumping ${indexFile}`, `${indexFile} passed sanity check.`, `Dumping ${timeIndexFile}`, `${timeIndexFile} passed sanity check.`]);
  });

  it('reports index entries that do not name the last offset of their batch', () => {
    const dir = path.join(fx.dir, 'bad-0');
    fs.mkdirSync(dir);
    fs.copyFileSync(logFile, path.join(dir, '00000000000000000000.log'));
    const bad = Buffer.alloc(8);
    bad.writeInt32BE(0, 0); // offset 0, but the batch at position 0 ends at 1
    bad.writeInt32BE(0, 4);
    const file = path.join(dir, '00000000000000000000.index');
    fs.writeFileSync(file, bad);
    const r = run({ files: file, verifyIndexOnly: true });
    expect(r.out).toEqual([`Dumping ${file}`]);
    expect(r.err).toEqual([`Mismatches in :${file}`, '  Index offset: 0, log offset: 1']);
  });

  it('counts trailing bytes that are no whole batch', () => {
    const dir = path.join(fx.dir, 'trail-0');
    fs.mkdirSync(dir);
    const file = path.join(dir, '00000000000000000005.log');
    fs.writeFileSync(file, Buffer.concat([fs.readFileSync(logFile), Buffer.alloc(20, 1)]));
    const r = run({ files: file });
    expect(r.out[1]).toBe('Starting offset: 5');
    expect(r.out.at(-1)).toBe('Found 20 invalid bytes at the end of 00000000000000000005.log');
  });

  it('ignores unknown files and fails on missing ones as Kafka does', () => {
    const r = run({ files: path.join(fx.dir, 'x.foo') });
    expect(r.err).toEqual([`Ignoring unknown file ${path.join(fx.dir, 'x.foo')}`]);
    const missing = path.join(fx.dir, '00000000000000000000.log');
    const m = run({ files: missing });
    expect(m.code).toBe(1);
    expect(m.err).toEqual([`Exception in thread "main" java.io.FileNotFoundException: ${missing} (No such file or directory)`]);
  });

  it('decodes producer snapshots and transaction indexes', () => {
    const entry = Buffer.alloc(46);
    writeInt64(entry, 0, 42);
    entry.writeInt16BE(1, 8);
    entry.writeInt32BE(9, 10);
    writeInt64(entry, 14, 100);
    entry.writeInt32BE(4, 22);
    writeInt64(entry, 26, 1234);
    entry.writeInt32BE(-1, 34);
    writeInt64(entry, 38, -1);
    const body = Buffer.concat([Buffer.from([0, 0, 0, 1]), entry]);
    const head = Buffer.alloc(6);
    head.writeInt16BE(1, 0);
    head.writeUInt32BE(crc32c(body), 2);
    const snap = path.join(fx.dir, '00000000000000000100.snapshot');
    fs.writeFileSync(snap, Buffer.concat([head, body]));
    expect(readProducerSnapshot(fs.readFileSync(snap)).map(formatProducerSnapshotEntry)).toEqual([
      'producerId: 42 producerEpoch: 1 coordinatorEpoch: -1 currentTxnFirstOffset: None firstSequence: 5 lastSequence: 9 lastOffset: 100 offsetDelta: 4 timestamp: 1234',
    ]);
    const txn = Buffer.alloc(34);
    writeInt64(txn, 2, 42);
    writeInt64(txn, 10, 3);
    writeInt64(txn, 18, 8);
    writeInt64(txn, 26, 9);
    const txnFile = path.join(fx.dir, '00000000000000000000.txnindex');
    fs.writeFileSync(txnFile, txn);
    const r = run({ files: `${snap},${txnFile}` });
    expect(r.out).toEqual([
      `Dumping ${snap}`,
      'producerId: 42 producerEpoch: 1 coordinatorEpoch: -1 currentTxnFirstOffset: None firstSequence: 5 lastSequence: 9 lastOffset: 100 offsetDelta: 4 timestamp: 1234',
      `Dumping ${txnFile}`,
      'version: 0 producerId: 42 firstOffset: 3 lastOffset: 8 lastStableOffset: 9',
    ]);
    fs.writeFileSync(snap, Buffer.concat([head.subarray(0, 2), Buffer.alloc(4), body]));
    const corrupt = run({ files: snap });
    expect(corrupt.err[0]).toMatch(/^Snapshot is corrupt \(CRC is no longer valid\)\. Stored crc: 0\. Computed crc: \d+$/);
  });
});

describe('kafka-dump-log options and decoders', () => {
  it('requires --files and implies deep iteration from any decoder', () => {
    expect(() => dumpLogSettings({})).toThrow(new CliError('Missing required argument "[files]"'));
    expect(dumpLogSettings({ files: 'a.log', offsetsDecoder: true })).toMatchObject({ printContents: true, deepIteration: true });
    expect(dumpLogSettings({ files: 'a.log', valueDecoderClass: true })).toMatchObject({ printContents: true, deepIteration: true });
    expect(dumpLogSettings({ files: 'a.log,b.index' })).toMatchObject({ files: ['a.log', 'b.index'], printContents: false, deepIteration: false, maxMessageSize: 5242880 });
    expect(() => dumpLogSettings({ files: 'a.log', maxMessageSize: 'x' })).toThrow("Cannot parse argument 'x' of option max-message-size");
    expect(() => dumpLogSettings({ files: 'a.log', keyDecoderClass: 'com.example.MyDecoder' })).toThrow(/not supported/);
  });

  const str = (s: string): Buffer => {
    const b = Buffer.alloc(2 + Buffer.byteLength(s));
    b.writeInt16BE(Buffer.byteLength(s), 0);
    b.write(s, 2);
    return b;
  };
  const i16 = (n: number): Buffer => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
  const i32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const i64 = (n: number): Buffer => {
    const b = Buffer.alloc(8);
    writeInt64(b, 0, n);
    return b;
  };
  const rec = (key: Buffer, value: Buffer | null) => ({ offset: 0, timestamp: 0, key, value, headers: [] });

  it('decodes __consumer_offsets records as GroupMetadataManager.formatRecordKeyAndValue', () => {
    const key = Buffer.concat([i16(1), str('g'), str('t'), i32(0)]);
    expect(offsetsMessageParser(rec(key, Buffer.concat([i16(3), i64(15), i32(2), str(''), i64(99)])))).toEqual({ key: 'offset_commit::group=g,partition=t-0', payload: 'offset=15' });
    expect(offsetsMessageParser(rec(key, Buffer.concat([i16(1), i64(15), str('m'), i64(99), i64(100)])))).toEqual({ key: 'offset_commit::group=g,partition=t-0', payload: 'offset=15,metadata=m' });
    expect(offsetsMessageParser(rec(key, null)).payload).toBe('<DELETE>');
    const assignment = Buffer.concat([i16(0), i32(1), str('t'), i32(2), i32(0), i32(1), i32(-1)]);
    const member = Buffer.concat([str('m-1'), i16(-1), str('c'), str('/127.0.0.1'), i32(300000), i32(10000), i32(0), i32(assignment.length), assignment]);
    const value = Buffer.concat([i16(3), str('consumer'), i32(4), str('range'), str('m-1'), i64(0), i32(1), member]);
    expect(offsetsMessageParser(rec(Buffer.concat([i16(2), str('g')]), value))).toEqual({
      key: 'group_metadata::group=g',
      payload: '{"protocolType":"consumer","protocol":"range","generationId":4,"assignment":"{m-1=[t-0, t-1]}"}',
    });
  });

  it('decodes __transaction_state records as TransactionLog.formatRecordKeyAndValue', () => {
    const key = Buffer.concat([i16(0), str('tx')]);
    const value = Buffer.concat([i16(0), i64(5), i16(1), i32(60000), Buffer.from([1]), i32(1), str('t'), i32(1), i32(0), i64(111), i64(100)]);
    expect(transactionLogMessageParser(rec(key, value))).toEqual({
      key: 'transaction_metadata::transactionalId=tx',
      payload: 'producerId:5,producerEpoch:1,state=Ongoing,partitions=[t-0],txnLastUpdateTimestamp=111,txnTimeoutMs=60000',
    });
    expect(transactionLogMessageParser(rec(Buffer.concat([i16(1), str('tx')]), null))).toEqual({ key: 'unknown::version=1' });
  });
});
