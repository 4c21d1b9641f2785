import { ErrorCode } from '../../../src/common/error-codes';
import { GroupCoordinator } from '../../../src/rebalance/group-coordinator';
import { groupMetadataKey, offsetCommitKey, offsetCommitValue, readOffsetCommitValue, readOffsetsTopicKey } from '../../../src/rebalance/offset-commit-record';
import { OffsetsLog, OffsetsLogBatch, OffsetsLogRecord } from '../../../src/rebalance/offsets-log';
import { emptyReplay, replayOffsetsBatches } from '../../../src/rebalance/offsets-log-replay';
import { TopicPartitionOffset, ZkOffsetStore } from '../../../src/rebalance/zk-offset-store';
import { offsetsMessageParser } from '../../../src/tools/dump-log-decoders';
import { MockClock } from '../../helpers/mock-clock';

/** int16 length + UTF-8, as Kafka's old Struct strings. */
const str = (s: string): string => Buffer.from(s).length.toString(16).padStart(4, '0') + Buffer.from(s).toString('hex');

describe('__consumer_offsets records (Kafka 2.8 OffsetCommitKey v1, OffsetCommitValue v3, GroupMetadataKey v2)', () => {
  it('lays out the key and value fields in the schemas order', () => {
    // OffsetCommitKey: group, topic, partition.
    expect(offsetCommitKey('g', 'tp', 3).toString('hex')).toBe(`0001${str('g')}${str('tp')}00000003`);
    // OffsetCommitValue v3: offset, leaderEpoch, metadata, commitTimestamp (no expireTimestamp: v1 only).
    expect(offsetCommitValue({ offset: 42, leaderEpoch: 7, metadata: 'm', commitTimestamp: 1000 }).toString('hex')).toBe(`0003${'000000000000002a'}00000007${str('m')}${'00000000000003e8'}`);
    expect(groupMetadataKey('g').toString('hex')).toBe(`0002${str('g')}`);
  });

  it('round-trips, reads the older value versions, and is what kafka-dump-log --offsets-decoder prints', () => {
    const v = { offset: 2 ** 40, leaderEpoch: 7, metadata: 'héllo', commitTimestamp: 1_700_000_000_000 };
    expect(readOffsetCommitValue(offsetCommitValue(v))).toEqual(v);
    expect(readOffsetsTopicKey(offsetCommitKey('g', 't', 1))).toEqual({ kind: 'offset', group: 'g', topic: 't', partition: 1 });
    expect(readOffsetsTopicKey(groupMetadataKey('g'))).toEqual({ kind: 'group', group: 'g' });
    expect(readOffsetsTopicKey(Buffer.from('0009', 'hex'))).toBeUndefined();
    // v1 (with expireTimestamp): the epoch is unknown.
    const v1 = Buffer.from(`0001${'0000000000000005'}${str('x')}${'0000000000000001'}${'ffffffffffffffff'}`, 'hex');
    expect(readOffsetCommitValue(v1)).toEqual({ offset: 5, leaderEpoch: -1, metadata: 'x', commitTimestamp: 1 });
    expect(() => readOffsetCommitValue(Buffer.from('0003', 'hex'))).toThrow(/too short/);
    const record = { offset: 0, timestamp: 0, key: offsetCommitKey('g', 't', 1), value: offsetCommitValue(v), headers: [] };
    expect(offsetsMessageParser(record as never)).toEqual({ key: 'offset_commit::group=g,partition=t-1', payload: `offset=${2 ** 40},metadata=héllo` });
    expect(offsetsMessageParser({ ...record, key: groupMetadataKey('g'), value: null } as never)).toEqual({ key: 'group_metadata::group=g', payload: '<DELETE>' });
  });
});

/** An in-memory `__consumer_offsets`: the batches in append order, offsets assigned. */
class MemoryOffsetsLog implements OffsetsLog {
  readonly batches: OffsetsLogBatch[] = [];
  private end = 0;
  async append(_partition: number, records: readonly OffsetsLogRecord[], producer: { producerId: number; producerEpoch: number } | undefined): Promise<undefined> {
    const base = this.end;
    this.end += records.length;
    this.batches.push({ nextOffset: this.end, producerId: producer?.producerId ?? -1, isTransactional: producer !== undefined, marker: null, records: records.map((r, i) => ({ offset: base + i, key: r.key, value: r.value })) });
    return undefined;
  }
  marker(producerId: number, commit: boolean): void {
    this.end += 1;
    this.batches.push({ nextOffset: this.end, producerId, isTransactional: true, marker: commit ? 'COMMIT' : 'ABORT', records: [] });
  }
  bounds(): { logStartOffset: number; logEndOffset: number } {
    return { logStartOffset: 0, logEndOffset: this.end };
  }
  read(_partition: number, from: number): OffsetsLogBatch[] {
    return this.batches.filter((b) => b.nextOffset > from);
  }
}

class MemoryOffsetStore {
  readonly offsets = new Map<string, number>();
  async commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<(Error | null)[]> {
    for (const o of offsets) this.offsets.set(`${group}/${o.topic}/${o.partition}`, o.offset);
    return offsets.map(() => null);
  }
  async fetchMany(group: string, tps: readonly { topic: string; partition: number }[]): Promise<number[]> {
    return tps.map((tp) => this.offsets.get(`${group}/${tp.topic}/${tp.partition}`) ?? -1);
  }
  // What the expiry reads and deletes: every offset committed at time 0.
  async allGroups(): Promise<string[]> {
    return [...new Set([...this.offsets.keys()].map((k) => k.split('/')[0]!))];
  }
  async isZookeeperConsumerGroup(): Promise<boolean> {
    return false;
  }
  async fetchAllWithCommitTimes(group: string): Promise<{ topic: string; partition: number; commitTimestamp: number; version: number }[]> {
    return [...this.offsets.keys()].filter((k) => k.startsWith(`${group}/`)).map((k) => ({ topic: k.split('/')[1]!, partition: Number(k.split('/')[2]), commitTimestamp: 0, version: 0 }));
  }
  async deleteExpired<T extends { topic: string; partition: number }>(group: string, offsets: readonly T[]): Promise<T[]> {
    for (const o of offsets) this.offsets.delete(`${group}/${o.topic}/${o.partition}`);
    return [...offsets];
  }
  async removeEmptyGroup(): Promise<void> {}
}

describe('offsets in __consumer_offsets across a coordinator failover', () => {
  const tp = { topic: 't', partition: 0 };
  const coordinatorOn = (log: MemoryOffsetsLog, store: MemoryOffsetStore): GroupCoordinator => {
    const c = new GroupCoordinator({
      config: { minSessionTimeoutMs: 1000, maxSessionTimeoutMs: 60000, initialRebalanceDelayMs: 0, maxGroupSize: 100, offsetMetadataMaxBytes: 100 },
      offsetStore: store as unknown as ZkOffsetStore,
      offsetsLog: log,
      partitionFor: () => 0,
      clock: new MockClock(),
    });
    c.startup();
    return c;
  };

  it('replays commits, tombstones and transactions as Kafka loads them', () => {
    const log = new MemoryOffsetsLog();
    const commit = (group: string, offset: number, producer?: number): Promise<undefined> =>
      log.append(0, [{ key: offsetCommitKey(group, 't', 0), value: offsetCommitValue({ offset, leaderEpoch: 1, metadata: '', commitTimestamp: 0 }), timestamp: 0 }], producer === undefined ? undefined : { producerId: producer, producerEpoch: 0 });
    void commit('a', 1);
    void commit('a', 2, 9); // committed below, then overtaken by a later plain commit
    log.marker(9, true);
    void commit('a', 3);
    void commit('b', 4, 10); // aborted
    log.marker(10, false);
    void commit('c', 5, 11); // still open
    void commit('d', 6);
    void log.append(0, [{ key: offsetCommitKey('d', 't', 0), value: null, timestamp: 0 }, { key: groupMetadataKey('d'), value: null, timestamp: 0 }], undefined);
    const state = emptyReplay();
    expect(replayOffsetsBatches(state, log.read(0, 0), () => undefined)).toBe(log.bounds().logEndOffset);
    expect(state.committed.get('a')?.get('t-0')).toMatchObject({ value: { offset: 3 }, transactional: false });
    expect(state.committed.has('b')).toBe(false);
    expect(state.committed.has('d')).toBe(false);
    expect(state.removedGroups).toEqual(new Set(['d']));
    expect(state.pending.get(11)?.get('c')?.get('t-0')?.value.offset).toBe(5);
  });

  it('answers epoch and metadata after a reload; a transaction open at the failover is pending, then lands in ZooKeeper on COMMIT', async () => {
    const log = new MemoryOffsetsLog();
    const store = new MemoryOffsetStore();
    const first = coordinatorOn(log, store);
    await first.onElection(0);
    expect(await first.commitOffsets('g', -1, '', [{ ...tp, offset: 10, metadata: 'm', leaderEpoch: 7 }])).toEqual([0]);
    expect(await first.txnCommitOffsets('g', 5, 0, -1, '', null, [{ ...tp, offset: 20, metadata: 'tx', leaderEpoch: 8 }])).toEqual([0]);
    expect(await first.txnCommitOffsets('h', 6, 0, -1, '', null, [{ ...tp, offset: 30, metadata: null }])).toEqual([0]);
    expect(log.batches.map((b) => b.isTransactional)).toEqual([false, true, true]);
    first.shutdown(); // the broker died: nothing of it is left but the log and ZooKeeper

    const second = coordinatorOn(log, store);
    await second.onElection(0);
    expect((await second.fetchOffsets('g', [tp])).offsets).toEqual([{ ...tp, offset: 10, leaderEpoch: 7, metadata: 'm' }]);
    expect(second.hasPendingTxnOffset('g', tp)).toBe(true);
    expect(second.hasPendingTxnOffset('h', tp)).toBe(true);
    log.marker(5, true);
    await second.handleTxnCompletion(5, [0], true);
    log.marker(6, false);
    await second.handleTxnCompletion(6, [0], false);
    expect(store.offsets.get('g/t/0')).toBe(20);
    expect(store.offsets.has('h/t/0')).toBe(false);
    expect((await second.fetchOffsets('g', [tp])).offsets).toEqual([{ ...tp, offset: 20, leaderEpoch: 8, metadata: 'tx' }]);
    second.shutdown();

    // A third coordinator finds the committed transaction in the log: ZooKeeper lost it (the second died before
    // writing it, say) and gets it again; the aborted one stays out.
    store.offsets.set('g/t/0', 10);
    const third = coordinatorOn(log, store);
    await third.onElection(0);
    expect(store.offsets.get('g/t/0')).toBe(20);
    expect(store.offsets.has('h/t/0')).toBe(false);
    expect(third.hasPendingTxnOffset('g', tp)).toBe(false);
    third.shutdown();
  });

  it('refuses the partition groups while loading', async () => {
    const log = new MemoryOffsetsLog();
    const c = coordinatorOn(log, new MemoryOffsetStore());
    const load = c.onElection(0);
    expect(await c.commitOffsets('g', -1, '', [{ ...tp, offset: 1, metadata: null }])).toEqual([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code]);
    await load;
    expect(await c.commitOffsets('g', -1, '', [{ ...tp, offset: 1, metadata: null }])).toEqual([0]);
    c.shutdown();
  });

  it('expires with tombstones but spares a partition an open transaction will commit', async () => {
    const log = new MemoryOffsetsLog();
    const store = new MemoryOffsetStore();
    const c = coordinatorOn(log, store);
    await c.onElection(0);
    expect(await c.commitOffsets('g', -1, '', [{ ...tp, offset: 1, metadata: null }, { topic: 't', partition: 1, offset: 2, metadata: null }])).toEqual([0, 0]);
    expect(await c.txnCommitOffsets('g', 5, 0, -1, '', null, [{ ...tp, offset: 3, metadata: null }])).toEqual([0]);
    expect(await c.cleanupGroupMetadata()).toBe(1);
    expect([...store.offsets.keys()]).toEqual(['g/t/0']);
    const tombstones = log.batches[log.batches.length - 1]!.records;
    expect(tombstones.map((r) => [readOffsetsTopicKey(r.key!), r.value])).toEqual([[{ kind: 'offset', group: 'g', topic: 't', partition: 1 }, null]]);
    c.shutdown();
  });
});
