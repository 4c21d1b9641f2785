import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { ErrorCode } from '../../../src/common/error-codes';
import { FetchApi } from '../../../src/protocol/apis/fetch';
import { ListOffsetsApi } from '../../../src/protocol/apis/list-offsets';
import { ProduceApi, ProduceResponse } from '../../../src/protocol/apis/produce';
import { ByteWriter } from '../../../src/protocol/primitives/byte-writer';
import { CompressionType } from '../../../src/records/compression-type';
import { legacyEntrySize, writeLegacyEntry } from '../../../src/records/legacy-message-set';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { TestCluster } from '../../helpers/test-cluster';
import { gzipZeros, lz4Zeros, rawBatch, zstdZerosStreamed } from '../../helpers/raw-records';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';
import { runChild } from '../protocol/run-child';

const MiB = 1024 * 1024;
const TOPIC = 'abused';
/** The decompression cap at the default max.message.bytes (src/records/compression.ts). */
const CAP = 128 * MiB;
/**
 * The broker's RSS may grow by at most this much above its level before the abuse: each refused bomb costs at
 * most the cap (plus zlib's chunk list, and garbage not yet collected from the previous one). A bomb inflated in
 * full would need 512 MiB to 1 GiB.
 */
const RSS_GROWTH_BOUND = 3 * CAP;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

function legacyEntry(magic: 0 | 1, attributes: number, key: string | null, value: Buffer | string): Buffer {
  const k = key === null ? null : Buffer.from(key);
  const v = Buffer.isBuffer(value) ? value : Buffer.from(value);
  const buf = Buffer.alloc(legacyEntrySize(magic, k, v));
  writeLegacyEntry(buf, 0, 0, magic, attributes, Date.now(), k, v);
  return buf;
}

function partitionError(response: ProduceResponse): number {
  return response.responses[0]?.partitionResponses[0]?.errorCode ?? -999;
}

describe('records a client must not be able to store (issue 12 item 4)', () => {
  let cluster: TestCluster;
  let conn: BrokerConnection;
  let pid: number;
  let baseline = 0;
  let peak = 0;
  let sampler: NodeJS.Timeout | undefined;

  const kafka = (): Kafka => new Kafka({ clientId: 'records-abuse', brokers: cluster.bootstrap.split(','), logLevel: process.env['KJS_DEBUG'] ? logLevel.DEBUG : logLevel.NOTHING, retry: { retries: 12, initialRetryTime: 200 } });

  const LED_BY_0 = [{ partition: 0, replicas: [0, 1, 2] }];

  beforeAll(async () => {
    // Three brokers, every topic led by broker 0 with followers on 1 and 2, so what the leader accepts is also what
    // its followers replicate.
    cluster = await TestCluster.start({ brokers: 3, props: { 'offsets.topic.num.partitions': '3' } });
    const admin = kafka().admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: TOPIC, replicaAssignment: LED_BY_0 },
        { topic: 'zstd-stored', replicaAssignment: LED_BY_0 },
        { topic: 'no-downconversion', replicaAssignment: LED_BY_0, configEntries: [{ name: 'message.downconversion.enable', value: 'false' }] },
        { topic: 'librdkafka-codecs', replicaAssignment: LED_BY_0 },
      ],
    });
    await admin.disconnect();
    await cluster.waitForLeaders(TOPIC, 1);
    await cluster.waitForLeaders('zstd-stored', 1);
    await cluster.waitForLeaders('no-downconversion', 1);
    await cluster.waitForLeaders('librdkafka-codecs', 1);
    conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(0).port, clientId: 'records-abuse' });
    await conn.connect();
    pid = cluster.broker(0).pid;
    baseline = rssBytes(pid);
    peak = baseline;
    sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid));
    }, 10);
  });

  afterAll(async () => {
    if (sampler) clearInterval(sampler);
    if (process.env['RECORDS_ABUSE_REPORT']) process.stdout.write(`broker RSS: baseline ${(baseline / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB\n`);
    conn?.close();
    await cluster?.close();
  });

  // acks=-1: the answer comes once the followers have the batch too, so the high watermark (what ListOffsets
  // answers) has moved by then.
  async function produce(version: number, records: Buffer, topic = TOPIC, c = conn): Promise<ProduceResponse> {
    const response = await c.send(ProduceApi, { transactionalId: null, acks: -1, timeoutMs: 10000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] }, { version });
    return response as ProduceResponse;
  }

  async function logEndOffset(topic = TOPIC): Promise<number> {
    const r = await conn.send(ListOffsetsApi, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1, maxNumOffsets: 1 }] }] }, { version: 1 });
    return r.topics[0]?.partitions[0]?.offset ?? -1;
  }

  /** Produces `records`, expects `error` for the partition, and that nothing was written. */
  async function refused(version: number, records: Buffer, error: keyof typeof ErrorCode, topic = TOPIC): Promise<void> {
    const before = await logEndOffset(topic);
    const response = await produce(version, records, topic);
    expect(partitionError(response)).toBe(ErrorCode[error].code);
    expect(await logEndOffset(topic)).toBe(before);
    peak = Math.max(peak, rssBytes(pid));
  }

  it('accepts a good batch first, so that offsets exist to compare with', async () => {
    const good = new RecordBatchBuilder().append({ timestamp: Date.now(), key: Buffer.from('k'), value: Buffer.from('v') }).build();
    expect(partitionError(await produce(7, good))).toBe(0);
    expect(await logEndOffset()).toBe(1);
  });

  it('accepts what librdkafka (kcat) writes with every codec, highly compressible batches included', async () => {
    const bootstrap = `127.0.0.1:${cluster.broker(0).port}`;
    const expected: string[] = [];
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      // many records per batch; some values of zeros-like repetition, so the batches compress hard
      const lines = Array.from({ length: 2000 }, (_, i) => `${codec}-${i}:${i % 3 === 0 ? 'z'.repeat(2000) : `value-${i}`}`);
      const p = await runChild('kcat', ['-b', bootstrap, '-P', '-t', 'librdkafka-codecs', '-p', '0', '-K', ':', '-z', codec, '-X', 'batch.size=1000000', '-X', 'linger.ms=20'], { input: `${lines.join('\n')}\n`, timeoutMs: 60000 });
      expect(p.code).toBe(0);
      expected.push(...lines);
    }
    expect(await logEndOffset('librdkafka-codecs')).toBe(expected.length);
    const c = await runChild('kcat', ['-b', bootstrap, '-C', '-t', 'librdkafka-codecs', '-p', '0', '-o', 'beginning', '-e', '-f', '%k:%s\n'], { timeoutMs: 60000 });
    expect(c.code).toBe(0);
    expect(c.stdout.trim().split('\n')).toEqual(expected);
  });

  it('refuses a CRC-valid batch of garbage records with INVALID_RECORD (sent over a raw connection)', async () => {
    const garbage = rawBatch(Buffer.from('\x20definitely not records, but the CRC is right'), { count: 3, firstTimestamp: Date.now(), maxTimestamp: Date.now() });
    const w = new ByteWriter();
    ProduceApi.encodeRequest(3, w, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: garbage }] }] });
    const raw = await RawConnection.open(cluster.broker(0).port);
    try {
      raw.send(requestFrame(0, 3, 41, w.toBuffer()));
      const frame = await raw.response(41, 10000);
      expect(frame).toBeDefined();
      // correlation id, [topic: name, [partition, error code, ...]]
      const f = frame as Buffer;
      const nameLength = f.readInt16BE(8);
      expect(f.subarray(10, 10 + nameLength).toString()).toBe(TOPIC);
      expect(f.readInt16BE(10 + nameLength + 8)).toBe(ErrorCode.INVALID_RECORD.code);
    } finally {
      raw.close();
    }
    expect(await logEndOffset()).toBe(1);
    // and records whose lengths overrun the batch, through the normal client path
    await refused(7, rawBatch(Buffer.from([0x7e, 0, 0, 0, 1, 1, 0]), { count: 1 }), 'INVALID_RECORD');
  });

  it('refuses a decompression bomb per codec with CORRUPT_MESSAGE, each costing at most the cap', async () => {
    const bombs: [string, CompressionType, Buffer][] = [
      ['gzip, 512 MiB of zeros', CompressionType.GZIP, gzipZeros(512 * MiB)],
      ['lz4, 192 MiB of zeros', CompressionType.LZ4, lz4Zeros(48)],
      ['zstd, 1 GiB of zeros', CompressionType.ZSTD, await zstdZerosStreamed(1024 * MiB)],
      // snappy inflates ~21:1 at most, so a batch within max.message.bytes cannot reach the cap by its data;
      // its bomb is a block declaring 4 GiB, which the decoder would allocate up front
      ['snappy, a raw block declaring 4 GiB', CompressionType.SNAPPY, Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.alloc(100)])],
    ];
    for (const [, codec, compressed] of bombs) {
      const batch = rawBatch(Buffer.alloc(0), { count: 1, compression: codec, compressed, firstTimestamp: Date.now(), maxTimestamp: Date.now() });
      expect(batch.length).toBeLessThan(1048588);
      await refused(7, batch, 'CORRUPT_MESSAGE');
    }
    // and undecodable compressed data
    await refused(7, rawBatch(Buffer.alloc(0), { count: 1, compression: CompressionType.GZIP, compressed: Buffer.from('not gzip') }), 'CORRUPT_MESSAGE');
    expect(peak - baseline).toBeLessThan(RSS_GROWTH_BOUND);
  });

  it('accepts legacy message sets only on Produce v0-v2, with the same caps', async () => {
    const legacy = Buffer.concat([legacyEntry(1, 0, 'a', 'one'), legacyEntry(1, 0, null, 'two')]);
    await refused(3, legacy, 'INVALID_RECORD');
    await refused(7, legacy, 'INVALID_RECORD');
    const before = await logEndOffset();
    expect(partitionError(await produce(2, legacy))).toBe(0);
    expect(await logEndOffset()).toBe(before + 2);
    const wrapper = legacyEntry(1, CompressionType.GZIP, null, zlib.gzipSync(Buffer.concat([legacyEntry(0, 0, null, 'x'), legacyEntry(0, 0, null, 'y')])));
    expect(partitionError(await produce(0, wrapper))).toBe(0);
    expect(await logEndOffset()).toBe(before + 4);
    // a gzip wrapper of 512 MiB of zeros, nested compression, two compressed wrappers
    await refused(2, legacyEntry(1, CompressionType.GZIP, null, gzipZeros(512 * MiB)), 'CORRUPT_MESSAGE');
    await refused(1, legacyEntry(1, CompressionType.GZIP, null, zlib.gzipSync(wrapper)), 'INVALID_RECORD');
    await refused(2, Buffer.concat([wrapper, wrapper]), 'INVALID_RECORD');
    expect(peak - baseline).toBeLessThan(RSS_GROWTH_BOUND);
  });

  it('follows ProduceRequest.validateRecords on v3+: one batch, zstd from v7 only', async () => {
    const one = (): Buffer => new RecordBatchBuilder().append({ timestamp: Date.now(), value: Buffer.from('x') }).build();
    await refused(3, Buffer.concat([one(), one()]), 'INVALID_RECORD');
    await refused(5, Buffer.alloc(0), 'INVALID_RECORD');
    // an incomplete second batch is dropped, as Kafka's log appends only the complete batches it iterated...
    const tail = Buffer.alloc(30);
    tail.writeInt32BE(500, 8);
    tail.writeInt8(2, 16);
    const before = await logEndOffset();
    expect(partitionError(await produce(7, Buffer.concat([one(), tail])))).toBe(0);
    expect(await logEndOffset()).toBe(before + 1);
    // ...but a size no batch can have is CORRUPT_MESSAGE (Kafka's batch iterator throws CorruptRecordException)
    tail.writeInt32BE(5, 8);
    await refused(7, Buffer.concat([one(), tail]), 'CORRUPT_MESSAGE');
    const zstdBatch = (): Buffer => new RecordBatchBuilder({ compression: CompressionType.ZSTD }).append({ timestamp: Date.now(), value: Buffer.from('z') }).build();
    await refused(6, zstdBatch(), 'UNSUPPORTED_COMPRESSION_TYPE', 'zstd-stored');
    expect(partitionError(await produce(7, zstdBatch(), 'zstd-stored'))).toBe(0);
  });

  it('answers old fetchers an error for the partition whose batch cannot be down-converted, and serves the others', async () => {
    const fetch = (version: number, topics = [TOPIC, 'zstd-stored']) =>
      conn.send(
        FetchApi,
        {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 10 * MiB,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: topics.map((topic) => ({ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: MiB }] })),
          forgottenTopicsData: [],
          rackId: '',
        },
        { version },
      );
    const old = await fetch(3);
    const byTopic = new Map(old.responses.map((t) => [t.topic, t.partitionResponses[0]]));
    expect(byTopic.get('zstd-stored')?.errorCode).toBe(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE.code);
    expect(byTopic.get(TOPIC)?.errorCode).toBe(0);
    expect((byTopic.get(TOPIC)?.recordSet as Buffer).length).toBeGreaterThan(0);
    const current = await fetch(4);
    for (const t of current.responses) expect(t.partitionResponses[0]?.errorCode).toBe(0);
    // message.downconversion.enable=false: old consumers get UNSUPPORTED_VERSION for that topic only
    expect(partitionError(await produce(7, new RecordBatchBuilder().append({ timestamp: Date.now(), value: Buffer.from('n') }).build(), 'no-downconversion'))).toBe(0);
    const refusedOld = await fetch(2, ['no-downconversion', TOPIC]);
    expect(refusedOld.responses.map((t) => t.partitionResponses[0]?.errorCode)).toEqual([ErrorCode.UNSUPPORTED_VERSION.code, 0]);
    expect((await fetch(4, ['no-downconversion'])).responses[0]?.partitionResponses[0]?.errorCode).toBe(0);
  });

  it('refuses client writes to internal topics with INVALID_TOPIC_EXCEPTION, and kafkajs still produces and consumes', async () => {
    const client = kafka();
    const producer = client.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: `after-abuse-${i}` })) });
    await producer.disconnect();
    const consumer = client.consumer({ groupId: 'after-abuse', maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${seen.length} records`)), 30000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const v = message.value?.toString() ?? '';
          if (v.startsWith('after-abuse-')) seen.push(v);
          if (seen.length === 100) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await consumer.disconnect();
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => `after-abuse-${i}`));

    // the group made __consumer_offsets exist: a client may not append to it
    await cluster.waitForLeaders('__consumer_offsets', 3);
    const record = new RecordBatchBuilder().append({ timestamp: Date.now(), key: Buffer.from('k'), value: Buffer.from('v') }).build();
    const before = await logEndOffset('__consumer_offsets');
    expect(partitionError(await produce(7, record, '__consumer_offsets'))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION.code);
    expect(partitionError(await produce(2, record, '__consumer_offsets'))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION.code);
    expect(await logEndOffset('__consumer_offsets')).toBe(before);
    expect(cluster.broker(0).child.isRunning()).toBe(true);
    expect(peak - baseline).toBeLessThan(RSS_GROWTH_BOUND);
  });
});
