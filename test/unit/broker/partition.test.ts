import { HIGH_WATERMARK_OFFSET, lowWatermark, Partition } from '../../../src/broker/partition';
import { TopicPartition } from '../../../src/common/topic-partition';
import { Log } from '../../../src/log/log';
import { LeaderAndIsrPartitionState } from '../../../src/protocol/apis/leader-and-isr';
import { FakeIsrStateWriter } from '../../helpers/fake-isr-state-writer';
import { LogFixture, logFixture, makeBatch } from '../log/log-test-utils';
import { quietLogging } from '../../helpers/quiet-logging';

/**
 * The leader side of replication in cluster.Partition (Kafka's PartitionTest): high watermark advancement, the
 * ISR shrink and expand decisions and what they write and notify. A real Log in a temp dir, time from a
 * MockClock, the ZooKeeper ISR write faked.
 */

const LOCAL = 1;
const MAX_LAG_MS = 10_000;
const tp: TopicPartition = { topic: 't', partition: 0 };

let restoreLogging: () => void;
beforeAll(() => (restoreLogging = quietLogging()));
afterAll(() => restoreLogging());

let fixture: LogFixture;
let log: Log;
let writer: FakeIsrStateWriter;
/** What the partition told its broker, in order: `isrChanged` (queue an ISR change notification) and `notify@HW`. */
let events: string[];
let partition: Partition;

beforeEach(() => {
  fixture = logFixture('t-0');
  log = fixture.open();
  writer = new FakeIsrStateWriter();
  events = [];
  partition = new Partition(tp, LOCAL, { clock: fixture.clock, replicaLagTimeMaxMs: MAX_LAG_MS }, {
    isrWriter: writer,
    onIsrChanged: (p) => events.push(`isrChanged ${p.topic}-${p.partition}`),
    notify: () => events.push(`notify@${partition.highWatermark}`),
  });
});
afterEach(async () => fixture.cleanup());

function state(o: { isr: number[]; leader?: number; leaderEpoch?: number; replicas?: number[]; zkVersion?: number }): LeaderAndIsrPartitionState {
  return {
    topicName: tp.topic,
    partitionIndex: tp.partition,
    controllerEpoch: 7,
    leader: o.leader ?? LOCAL,
    leaderEpoch: o.leaderEpoch ?? 2,
    isr: o.isr,
    zkVersion: o.zkVersion ?? 4,
    replicas: o.replicas ?? [1, 2, 3],
    addingReplicas: [],
    removingReplicas: [],
    isNew: false,
  };
}

async function append(count: number): Promise<void> {
  await partition.appendRecordsToLeader(makeBatch({ count }), 1);
}

/** Lets a write started without being awaited (ISR expansion) finish: its continuation runs before this resolves. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('high watermark', () => {
  it('a leader alone in the ISR moves the HW to its log end offset on each append', async () => {
    partition.makeLeader(state({ isr: [1] }), log);
    await append(5);
    expect(partition.highWatermark).toBe(5);
    await append(3);
    expect([partition.logEndOffset, partition.highWatermark]).toEqual([8, 8]);
  });

  it('the HW is the smallest log end offset among the ISR members, and only moves when that does', async () => {
    partition.makeLeader(state({ isr: [1, 2, 3] }), log);
    await append(10);
    // Followers whose offsets the new leader does not know yet (-1) keep it where it is.
    expect(partition.highWatermark).toBe(0);
    expect(partition.updateFollowerFetchState(2, 6)).toBe(false);
    expect(partition.highWatermark).toBe(0);
    expect(partition.updateFollowerFetchState(3, 4)).toBe(true);
    expect(partition.highWatermark).toBe(4);
    expect(partition.updateFollowerFetchState(2, 10)).toBe(false);
    expect(partition.highWatermark).toBe(4);
    expect(partition.updateFollowerFetchState(3, 10)).toBe(true);
    expect(partition.highWatermark).toBe(10);
  });

  it('the HW never moves backwards, even when an ISR member reports a lower offset', async () => {
    partition.makeLeader(state({ isr: [1, 2] }), log);
    await append(10);
    partition.updateFollowerFetchState(2, 10);
    expect(partition.highWatermark).toBe(10);
    expect(partition.updateFollowerFetchState(2, 7)).toBe(false);
    expect(partition.followers.get(2)?.logEndOffset).toBe(7);
    expect(partition.highWatermark).toBe(10);
    expect(partition.maybeIncrementLeaderHW()).toBe(false);
    expect(log.highWatermark).toBe(10);
  });

  it('a follower outside the ISR that has not caught up within replica.lag.time.max.ms does not hold the HW back', async () => {
    partition.makeLeader(state({ isr: [1, 2] }), log);
    await append(10);
    expect(partition.updateFollowerFetchState(2, 10)).toBe(true);
    // Follower 3 last caught up when this leader took over, longer ago than replica.lag.time.max.ms.
    fixture.clock.advance(MAX_LAG_MS + 1);
    partition.updateFollowerFetchState(3, 2);
    await append(5);
    expect(partition.updateFollowerFetchState(2, 15)).toBe(true);
    expect(partition.highWatermark).toBe(15);
    await settle();
    expect(writer.writes).toEqual([]);
  });

  // Kafka 2.8's Partition.maybeIncrementLeaderHW also counts every follower that caught up within
  // replica.lag.time.max.ms (`curTime - replica.lastCaughtUpTimeMs <= replicaLagTimeMaxMs || maximalIsr.contains(id)`),
  // so that a follower catching up to a leader alone in the ISR is not outrun by the HW forever.
  it('the HW waits for a follower outside the ISR that caught up within replica.lag.time.max.ms (Kafka 2.8)', async () => {
    partition.makeLeader(state({ isr: [1], replicas: [1, 2] }), log);
    await append(10);
    expect(partition.highWatermark).toBe(10);
    fixture.clock.advance(1000);
    // It fetched the leader's log end offset as of its previous fetch (the leader's start): caught up then.
    partition.updateFollowerFetchState(2, 0);
    await append(10);
    expect(partition.highWatermark).toBe(10);
    fixture.clock.advance(1000);
    // At the HW it rejoins the ISR; the HW follows it, not the leader alone.
    partition.updateFollowerFetchState(2, 10);
    await append(10);
    expect(partition.highWatermark).toBe(10);
    partition.updateFollowerFetchState(2, 30);
    expect(partition.highWatermark).toBe(30);
    await settle();
    expect(writer.writes.map((w) => w.state.isr)).toEqual([[1, 2]]);
  });

  it('makeLeader advances the HW at once when the leader is alone in the ISR', async () => {
    await log.appendAsLeader(makeBatch({ count: 5 }), 0);
    expect(log.highWatermark).toBe(0);
    partition.makeLeader(state({ isr: [1] }), log);
    expect(partition.highWatermark).toBe(5);
  });

  it('the leader epoch starts at the log end offset and is recorded in the leader epoch cache; the HW may stay below it', async () => {
    await log.appendAsLeader(makeBatch({ count: 7 }), 0);
    log.updateHighWatermark(3);
    partition.makeLeader(state({ isr: [1, 2], leaderEpoch: 3 }), log);
    expect(partition.leaderEpochStartOffset).toBe(7);
    expect(log.leaderEpochCache.entries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 7 },
    ]);
    expect(partition.highWatermark).toBe(3);
    partition.updateFollowerFetchState(2, 7);
    expect(partition.highWatermark).toBe(7);
    partition.makeFollower(state({ isr: [2], leader: 2, leaderEpoch: 4 }), log);
    expect(partition.leaderEpochStartOffset).toBe(-1);
  });

  it('a new leader forgets the followers it knew; a new epoch of the same leader keeps their offsets', async () => {
    const t0 = fixture.clock.nowMs();
    expect(partition.makeLeader(state({ isr: [1, 2], leaderEpoch: 2 }), log)).toBe(true);
    expect(partition.followers.get(2)).toEqual({ logEndOffset: -1, logStartOffset: -1, lastCaughtUpTimeMs: t0, lastFetchLeaderLogEndOffset: 0, lastFetchTimeMs: t0 });
    expect(partition.followers.get(3)).toEqual({ logEndOffset: -1, logStartOffset: -1, lastCaughtUpTimeMs: 0, lastFetchLeaderLogEndOffset: 0, lastFetchTimeMs: t0 });
    await append(10);
    partition.updateFollowerFetchState(2, 10, 0);
    partition.updateFollowerFetchState(3, 6);

    fixture.clock.advance(500);
    expect(partition.makeLeader(state({ isr: [1, 2, 3], leaderEpoch: 3, zkVersion: 6 }), log)).toBe(true);
    expect(partition.followers.get(2)).toEqual({ logEndOffset: 10, logStartOffset: 0, lastCaughtUpTimeMs: t0 + 500, lastFetchLeaderLogEndOffset: 10, lastFetchTimeMs: t0 + 500 });
    expect(partition.followers.get(3)?.logEndOffset).toBe(6);
    expect(partition.highWatermark).toBe(10);
    // The same epoch again: nothing new.
    expect(partition.makeLeader(state({ isr: [1, 2, 3], leaderEpoch: 3, zkVersion: 6 }), log)).toBe(false);

    expect(partition.makeFollower(state({ isr: [2, 3], leader: 2, leaderEpoch: 4 }), log)).toBe(true);
    expect(partition.followers.size).toBe(0);
    expect(partition.makeLeader(state({ isr: [1, 2, 3], leaderEpoch: 5 }), log)).toBe(true);
    expect(partition.followers.get(2)?.logEndOffset).toBe(-1);
    expect(partition.followers.get(3)?.logEndOffset).toBe(-1);
  });

  it('a follower neither moves its HW nor tracks followers', async () => {
    partition.makeFollower(state({ isr: [2, 1], leader: 2 }), log);
    await log.appendAsLeader(makeBatch({ count: 5 }), 2);
    expect(partition.updateFollowerFetchState(3, 5)).toBe(false);
    expect(partition.maybeIncrementLeaderHW()).toBe(false);
    expect(partition.highWatermark).toBe(0);
  });
});

describe('ISR shrink (replica.lag.time.max.ms)', () => {
  it('a follower that has not caught up for longer than replica.lag.time.max.ms leaves the ISR', async () => {
    partition.makeLeader(state({ isr: [1, 2, 3], leaderEpoch: 2, zkVersion: 4 }), log);
    await append(10);
    fixture.clock.advance(5000);
    partition.updateFollowerFetchState(2, 10);
    fixture.clock.advance(MAX_LAG_MS - 5000 + 1);

    await partition.maybeShrinkIsr();

    expect(writer.writes).toEqual([{ tp: 't-0', state: { leader: 1, leaderEpoch: 2, isr: [1, 2], controllerEpoch: 7 }, expectedZkVersion: 4 }]);
    expect(partition.isr).toEqual([1, 2]);
    expect(partition.zkVersion).toBe(5);
    // The HW no longer waits for replica 3; the broker queues an ISR change notification and wakes waiters.
    expect(partition.highWatermark).toBe(10);
    expect(events).toEqual(['isrChanged t-0', 'notify@10']);
  });

  it('a follower exactly replica.lag.time.max.ms behind is still in sync', async () => {
    partition.makeLeader(state({ isr: [1, 2] }), log);
    await append(10);
    fixture.clock.advance(MAX_LAG_MS);
    await partition.maybeShrinkIsr();
    expect(writer.writes).toEqual([]);
    fixture.clock.advance(1);
    await partition.maybeShrinkIsr();
    expect(writer.writes.map((w) => w.state.isr)).toEqual([[1]]);
  });

  it('a follower at the leader log end offset stays in sync, however long ago it last caught up', async () => {
    partition.makeLeader(state({ isr: [1, 2, 3] }), log);
    partition.updateFollowerFetchState(2, 0);
    partition.updateFollowerFetchState(3, 0);
    fixture.clock.advance(6 * MAX_LAG_MS);
    await partition.maybeShrinkIsr();
    expect(writer.writes).toEqual([]);
    expect(partition.isr).toEqual([1, 2, 3]);
  });

  it('a follower keeping pace with a busy leader stays; a slow one that never reaches the previous LEO leaves', async () => {
    partition.makeLeader(state({ isr: [1, 2, 3] }), log);
    let previousEnd = partition.logEndOffset;
    for (let i = 0; i < 5; i++) {
      fixture.clock.advance(4000);
      await append(10);
      // Replica 2 fetches up to where the leader was at its last fetch; replica 3 stays 5 offsets short of that.
      partition.updateFollowerFetchState(2, previousEnd);
      partition.updateFollowerFetchState(3, Math.max(previousEnd - 5, 0));
      previousEnd = partition.logEndOffset;
    }
    expect(partition.followers.get(2)?.lastCaughtUpTimeMs).toBe(fixture.clock.nowMs() - 4000);
    await partition.maybeShrinkIsr();
    expect(writer.writes.map((w) => w.state.isr)).toEqual([[1, 2]]);
    expect(partition.isr).toEqual([1, 2]);
  });

  it('the ISR stays when ZooKeeper refuses the write (zkVersion conflict); the next check tries again', async () => {
    partition.makeLeader(state({ isr: [1, 2], zkVersion: 4 }), log);
    writer.setVersion(tp, 9);
    await append(10);
    fixture.clock.advance(MAX_LAG_MS + 1);
    await partition.maybeShrinkIsr();
    expect(writer.writes).toHaveLength(1);
    expect(partition.isr).toEqual([1, 2]);
    expect(partition.zkVersion).toBe(4);
    expect(partition.highWatermark).toBe(0);
    expect(events).toEqual([]);
    await partition.maybeShrinkIsr();
    expect(writer.writes).toHaveLength(2);
  });

  it('a failed write leaves the ISR as it was and does not block the next attempt', async () => {
    partition.makeLeader(state({ isr: [1, 2] }), log);
    await append(10);
    fixture.clock.advance(MAX_LAG_MS + 1);
    writer.failNext(new Error('connection loss'));
    await partition.maybeShrinkIsr();
    expect(partition.isr).toEqual([1, 2]);
    expect(events).toEqual([]);
    await partition.maybeShrinkIsr();
    expect(partition.isr).toEqual([1]);
    expect(writer.writes).toHaveLength(2);
  });

  it('no second ISR change is started while one is being written', async () => {
    partition.makeLeader(state({ isr: [1, 2], replicas: [1, 2, 3] }), log);
    await append(10);
    fixture.clock.advance(MAX_LAG_MS + 1);
    const release = writer.hold();
    const shrinking = partition.maybeShrinkIsr();
    await partition.maybeShrinkIsr();
    // Replica 3 would qualify for the ISR (at the HW), but the shrink is in flight.
    partition.updateFollowerFetchState(3, 10);
    expect(writer.writes.map((w) => w.state.isr)).toEqual([[1]]);
    release();
    await shrinking;
    expect(partition.isr).toEqual([1]);
    partition.updateFollowerFetchState(3, 10);
    await settle();
    expect(writer.writes.map((w) => w.state.isr)).toEqual([[1], [1, 3]]);
  });

  it('a LeaderAndIsr arriving while the ISR write is in flight wins over the write', async () => {
    partition.makeLeader(state({ isr: [1, 2], leaderEpoch: 2, zkVersion: 4 }), log);
    await append(10);
    fixture.clock.advance(MAX_LAG_MS + 1);
    const release = writer.hold();
    const shrinking = partition.maybeShrinkIsr();
    partition.makeLeader(state({ isr: [1, 2, 3], leaderEpoch: 3, zkVersion: 7 }), log);
    release();
    await shrinking;
    expect(partition.isr).toEqual([1, 2, 3]);
    expect(partition.zkVersion).toBe(7);
    expect(events).toEqual([]);
  });

  it('without an ISR writer the change is applied with the next zkVersion', async () => {
    const local = new Partition(tp, LOCAL, { clock: fixture.clock, replicaLagTimeMaxMs: MAX_LAG_MS });
    local.makeLeader(state({ isr: [1, 2], zkVersion: 4 }), log);
    await local.appendRecordsToLeader(makeBatch({ count: 3 }), 1);
    fixture.clock.advance(MAX_LAG_MS + 1);
    await local.maybeShrinkIsr();
    expect([local.isr, local.zkVersion, local.highWatermark]).toEqual([[1], 5, 3]);
  });

  it('a follower never shrinks the ISR', async () => {
    partition.makeFollower(state({ isr: [2, 3], leader: 2 }), log);
    fixture.clock.advance(MAX_LAG_MS + 1);
    await partition.maybeShrinkIsr();
    expect(writer.writes).toEqual([]);
  });
});

describe('ISR expansion', () => {
  it('a follower outside the ISR rejoins once it reaches the HW', async () => {
    partition.makeLeader(state({ isr: [1, 2], leaderEpoch: 2, zkVersion: 4 }), log);
    await append(10);
    partition.updateFollowerFetchState(2, 10);
    expect(partition.highWatermark).toBe(10);
    partition.updateFollowerFetchState(3, 9);
    await settle();
    expect(writer.writes).toEqual([]);

    partition.updateFollowerFetchState(3, 10);
    await settle();
    expect(writer.writes).toEqual([{ tp: 't-0', state: { leader: 1, leaderEpoch: 2, isr: [1, 2, 3], controllerEpoch: 7 }, expectedZkVersion: 4 }]);
    expect(partition.isr).toEqual([1, 2, 3]);
    expect(partition.zkVersion).toBe(5);
    // The high watermark stayed at 10: nothing waiting on it can complete, so nothing is woken.
    expect(events).toEqual(['isrChanged t-0']);
  });

  it('a follower at the HW but below the leader epoch start offset does not rejoin', async () => {
    await log.appendAsLeader(makeBatch({ count: 10 }), 0);
    log.updateHighWatermark(5);
    partition.makeLeader(state({ isr: [1, 2], leaderEpoch: 1 }), log);
    expect([partition.highWatermark, partition.leaderEpochStartOffset]).toEqual([5, 10]);
    partition.updateFollowerFetchState(3, 5);
    await settle();
    expect(writer.writes).toEqual([]);
    partition.updateFollowerFetchState(3, 10);
    await settle();
    expect(writer.writes.map((w) => w.state.isr)).toEqual([[1, 2, 3]]);
    expect(partition.isr).toEqual([1, 2, 3]);
  });

  it('while the expansion is being written the joining follower holds the HW back (maximal ISR)', async () => {
    partition.makeLeader(state({ isr: [1, 2] }), log);
    await append(10);
    partition.updateFollowerFetchState(2, 10);
    const release = writer.hold();
    partition.updateFollowerFetchState(3, 10);
    expect(writer.writes.map((w) => w.state.isr)).toEqual([[1, 2, 3]]);
    await append(5);
    partition.updateFollowerFetchState(2, 15);
    expect(partition.isr).toEqual([1, 2]);
    expect(partition.highWatermark).toBe(10);
    release();
    await settle();
    expect(partition.isr).toEqual([1, 2, 3]);
    expect(partition.highWatermark).toBe(10);
    expect(partition.updateFollowerFetchState(3, 15)).toBe(true);
    expect(partition.highWatermark).toBe(15);
  });

  it('a refused expansion leaves the ISR as it was', async () => {
    partition.makeLeader(state({ isr: [1, 2], zkVersion: 4 }), log);
    writer.setVersion(tp, 8);
    await append(10);
    partition.updateFollowerFetchState(2, 10);
    partition.updateFollowerFetchState(3, 10);
    await settle();
    expect(writer.writes).toHaveLength(1);
    expect(partition.isr).toEqual([1, 2]);
    expect(events).toEqual([]);
  });

  it('replicas outside the assignment and ISR members are never added', async () => {
    partition.makeLeader(state({ isr: [1, 2] }), log);
    await append(10);
    expect(partition.updateFollowerFetchState(4, 10)).toBe(false);
    partition.updateFollowerFetchState(2, 10);
    partition.updateFollowerFetchState(2, 10);
    await settle();
    expect(writer.writes).toEqual([]);
    expect(partition.followers.has(4)).toBe(false);
  });
});

describe('acks=-1 and min.insync.replicas', () => {
  it('an acks=-1 append is refused when the ISR is smaller than min.insync.replicas', async () => {
    log.updateConfig(fixture.config({ 'min.insync.replicas': '2' }));
    partition.makeLeader(state({ isr: [1] }), log);
    await expect(partition.appendRecordsToLeader(makeBatch({ count: 1 }), -1)).rejects.toMatchObject({ errorName: 'NOT_ENOUGH_REPLICAS' });
    await expect(partition.appendRecordsToLeader(makeBatch({ count: 1 }), 1)).resolves.toBeDefined();
  });

  it('checkEnoughReplicasReachOffset waits for the HW, then reports an ISR that shrank below min.insync.replicas', async () => {
    log.updateConfig(fixture.config({ 'min.insync.replicas': '2' }));
    partition.makeLeader(state({ isr: [1, 2] }), log);
    await partition.appendRecordsToLeader(makeBatch({ count: 4 }), -1);
    expect(partition.checkEnoughReplicasReachOffset(4)).toEqual({ done: false });
    partition.updateFollowerFetchState(2, 4);
    expect(partition.checkEnoughReplicasReachOffset(4)).toEqual({ done: true });
    fixture.clock.advance(MAX_LAG_MS + 1);
    await partition.appendRecordsToLeader(makeBatch({ count: 2 }), 1);
    await partition.maybeShrinkIsr();
    expect(partition.isr).toEqual([1]);
    expect(partition.checkEnoughReplicasReachOffset(6)).toEqual({ done: true, error: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND' });
    partition.makeFollower(state({ isr: [2], leader: 2, leaderEpoch: 3 }), log);
    expect(partition.checkEnoughReplicasReachOffset(6)).toEqual({ done: true, error: 'NOT_LEADER_OR_FOLLOWER' });
  });
});

describe('DeleteRecords: low watermark and deleteRecordsOnLeader', () => {
  const allAlive = (): boolean => true;

  it('lowWatermark is the smallest log start offset of the leader and the followers on live brokers', () => {
    const followers = new Map([
      [2, { logStartOffset: 4 }],
      [3, { logStartOffset: 2 }],
    ]);
    expect(lowWatermark(6, followers, allAlive)).toBe(2);
    expect(lowWatermark(6, followers, (id) => id !== 3)).toBe(4);
    expect(lowWatermark(1, followers, allAlive)).toBe(1);
    // A follower that has not fetched yet (-1) holds it at -1, as Kafka's Replica.logStartOffset does.
    expect(lowWatermark(6, new Map([[2, { logStartOffset: -1 }]]), allAlive)).toBe(-1);
  });

  it('moves the leader\'s log start offset, -1 meaning the high watermark, and waits for the followers\' to report', async () => {
    partition.makeLeader(state({ isr: [1, 2, 3] }), log);
    await append(10);
    partition.updateFollowerFetchState(2, 10, 0);
    partition.updateFollowerFetchState(3, 10, 0);
    expect(partition.highWatermark).toBe(10);
    expect(await partition.deleteRecordsOnLeader(4, allAlive)).toEqual({ requestedOffset: 4, lowWatermark: 0 });
    expect(log.logStartOffset).toBe(4);
    partition.updateFollowerFetchState(2, 10, 4);
    expect(partition.lowWatermarkIfLeader(allAlive)).toBe(0);
    partition.updateFollowerFetchState(3, 10, 4);
    expect(partition.lowWatermarkIfLeader(allAlive)).toBe(4);
    expect(await partition.deleteRecordsOnLeader(HIGH_WATERMARK_OFFSET, (id) => id === 1)).toEqual({ requestedOffset: 10, lowWatermark: 10 });
  });

  it('refuses an offset below 0 or above the high watermark, a compacted topic and a follower with Kafka\'s errors', async () => {
    partition.makeLeader(state({ isr: [1] }), log);
    await append(5);
    await expect(partition.deleteRecordsOnLeader(-2, allAlive)).rejects.toMatchObject({ errorName: 'OFFSET_OUT_OF_RANGE', message: 'The offset -2 for partition t-0 is not valid' });
    await expect(partition.deleteRecordsOnLeader(6, allAlive)).rejects.toMatchObject({
      errorName: 'OFFSET_OUT_OF_RANGE',
      message: 'Cannot increment the log start offset to 6 of partition t-0 since it is larger than the high watermark 5',
    });
    partition.makeFollower(state({ isr: [2], leader: 2, leaderEpoch: 3 }), log);
    await expect(partition.deleteRecordsOnLeader(1, allAlive)).rejects.toMatchObject({ errorName: 'NOT_LEADER_OR_FOLLOWER' });
    expect(() => partition.lowWatermarkIfLeader(allAlive)).toThrow('Leader not local for partition t-0 on broker 1');
  });

  it('refuses a topic whose cleanup.policy has no delete (POLICY_VIOLATION)', async () => {
    const compacted = fixture.open({ 'cleanup.policy': 'compact' });
    const p = new Partition({ topic: 't', partition: 0 }, LOCAL, { clock: fixture.clock, replicaLagTimeMaxMs: MAX_LAG_MS });
    p.makeLeader(state({ isr: [1] }), compacted);
    await expect(p.deleteRecordsOnLeader(0, allAlive)).rejects.toMatchObject({ errorName: 'POLICY_VIOLATION', message: 'Records of partition t-0 can not be deleted due to the configured policy' });
  });
});
