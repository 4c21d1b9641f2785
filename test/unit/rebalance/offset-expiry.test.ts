import { expiredOffsets, GroupExpiryView, OFFSET_ONLY_GROUP } from '../../../src/rebalance/offset-expiry';

const MINUTE = 60_000;
const RETENTION = 10 * MINUTE;
const NOW = 1_000 * MINUTE;

const at = (topic: string, partition: number, minutesAgo: number) => ({ topic, partition, commitTimestamp: NOW - minutesAgo * MINUTE });
const keys = (list: { topic: string; partition: number }[]): string[] => list.map((o) => `${o.topic}-${o.partition}`).sort();

describe('expiredOffsets (Kafka 2.8 GroupMetadata.removeExpiredOffsets)', () => {
  const offsets = [at('a', 0, 30), at('a', 1, 5), at('b', 0, 10)];

  it('an Empty group: everything once the retention has passed since it became Empty, whatever the commit times', () => {
    const emptyFor = (minutes: number): GroupExpiryView => ({ state: 'Empty', protocolType: 'consumer', currentStateTimestamp: NOW - minutes * MINUTE, subscribedTopics: null });
    expect(expiredOffsets(emptyFor(9), offsets, NOW, RETENTION)).toEqual([]);
    expect(keys(expiredOffsets(emptyFor(10), offsets, NOW, RETENTION))).toEqual(['a-0', 'a-1', 'b-0']);
  });

  it('an Empty group whose state time is unknown falls back on each commit time', () => {
    const view: GroupExpiryView = { state: 'Empty', protocolType: 'consumer', currentStateTimestamp: null, subscribedTopics: null };
    expect(keys(expiredOffsets(view, offsets, NOW, RETENTION))).toEqual(['a-0', 'b-0']);
  });

  it('a consumer group with members (KIP-496): only old offsets of topics no member subscribes to', () => {
    const view: GroupExpiryView = { state: 'Stable', protocolType: 'consumer', currentStateTimestamp: NOW - 100 * MINUTE, subscribedTopics: new Set(['a']) };
    expect(keys(expiredOffsets(view, offsets, NOW, RETENTION))).toEqual(['b-0']);
    expect(expiredOffsets({ ...view, subscribedTopics: new Set(['a', 'b']) }, offsets, NOW, RETENTION)).toEqual([]);
  });

  it('a group with members whose subscriptions are not known, or not a consumer group, keeps everything', () => {
    expect(expiredOffsets({ state: 'PreparingRebalance', protocolType: 'consumer', currentStateTimestamp: 0, subscribedTopics: null }, offsets, NOW, RETENTION)).toEqual([]);
    expect(expiredOffsets({ state: 'Stable', protocolType: 'connect', currentStateTimestamp: 0, subscribedTopics: new Set() }, offsets, NOW, RETENTION)).toEqual([]);
  });

  it('an offset-only group (no protocol type: commits outside group management, or known only from ZooKeeper): by commit time', () => {
    expect(keys(expiredOffsets(OFFSET_ONLY_GROUP, offsets, NOW, RETENTION))).toEqual(['a-0', 'b-0']);
    expect(expiredOffsets(OFFSET_ONLY_GROUP, offsets, NOW, 31 * MINUTE)).toEqual([]);
  });
});
