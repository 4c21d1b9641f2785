import { consumerLag, groupPartitions, partitionFlags, reassignmentsInFlight, topicView, totalLag } from '../../../src/ui/cluster-view';
import { ClusterReader, ZkState } from '../../../src/ui/cluster-reader';
import { ThroughputHistory } from '../../../src/ui/throughput-history';

describe('the cluster page view model', () => {
  it('flags a partition under-replicated when its ISR is short, offline when its leader is none or not live', () => {
    const live = new Set([0, 1, 2]);
    expect(partitionFlags([0, 1, 2], [0, 1, 2], 0, live)).toEqual({ underReplicated: false, offline: false });
    expect(partitionFlags([0, 1, 2], [0, 2], 0, live)).toEqual({ underReplicated: true, offline: false });
    expect(partitionFlags([0, 1], [1], -1, live)).toEqual({ underReplicated: true, offline: true });
    expect(partitionFlags([3], [3], 3, live)).toEqual({ underReplicated: false, offline: true });
  });

  it("computes kafka-consumer-groups' LAG, '-' (null) when an offset is unknown", () => {
    expect(consumerLag(5, 12)).toBe(7);
    expect(consumerLag(12, 12)).toBe(0);
    expect(consumerLag(null, 12)).toBeNull();
    expect(consumerLag(-1, 12)).toBeNull();
    expect(consumerLag(3, null)).toBeNull();
  });

  it('lists a group partitions sorted by topic then partition, with owners, lag and the total', () => {
    const rows = groupPartitions(
      [
        { topic: 'b', partition: 0, offset: 4 },
        { topic: 'a', partition: 1, offset: 2 },
        { topic: 'a', partition: 0, offset: 10 },
      ],
      new Map([['a-1', 'consumer-1']]),
      new Map([
        ['a-0', 10],
        ['a-1', 9],
      ]),
    );
    expect(rows.map((r) => [r.topic, r.partition, r.consumerId, r.logEndOffset, r.lag])).toEqual([
      ['a', 0, '-', 10, 0],
      ['a', 1, 'consumer-1', 9, 7],
      ['b', 0, '-', null, null],
    ]);
    expect(totalLag(rows)).toBe(7);
  });

  it('counts a topic row from its partitions in numeric order', () => {
    const p = (partition: number, isr: number[], leader: number) => ({ partition, leader, replicas: [0, 1], isr, logStartOffset: null, logEndOffset: null, size: null, ...partitionFlags([0, 1], isr, leader, new Set([0, 1])) });
    const t = topicView('t', [p(2, [0, 1], 0), p(0, [0], 0), p(1, [], -1)], false);
    expect(t.partitions.map((x) => x.partition)).toEqual([0, 1, 2]);
    expect([t.partitionCount, t.replicationFactor, t.underReplicatedPartitions, t.offlinePartitions]).toEqual([3, 2, 2, 1]);
  });

  it('lists the reassignments in flight from the topic znodes, and those requested but not yet taken up as Kafka computes them', () => {
    const assigned = [
      { topic: 'b', partition: 0, replicas: [2, 0, 1], addingReplicas: [2], removingReplicas: [1] },
      { topic: 'a', partition: 0, replicas: [0, 1], addingReplicas: [], removingReplicas: [] },
      { topic: 'a', partition: 1, replicas: [1], addingReplicas: [], removingReplicas: [] },
    ];
    // b-0 is moving already (its znode entry is not computed again); a-1 is only requested.
    const requested = [
      { topic: 'b', partition: 0, replicas: [2, 0] },
      { topic: 'a', partition: 1, replicas: [2, 0] },
    ];
    expect(reassignmentsInFlight(assigned, requested)).toEqual([
      { topic: 'a', partition: 1, replicas: [2, 0, 1], addingReplicas: [2, 0], removingReplicas: [1] },
      { topic: 'b', partition: 0, replicas: [2, 0, 1], addingReplicas: [2], removingReplicas: [1] },
    ]);
    expect(reassignmentsInFlight(assigned.slice(1), [])).toEqual([]);
  });

  it("joins ZooKeeper's fresh view with the brokers' last answers (unknown stays null)", () => {
    const zk: ZkState = {
      brokers: [{ id: 0, host: 'h', port: 9092, rack: null, controller: true }],
      controller: 0,
      topics: [{ topic: 't', markedForDeletion: false, partitions: [{ partition: 0, leader: 1, replicas: [0, 1], isr: [0, 1] }] }],
      reassignments: [],
    };
    const s = ClusterReader.snapshot(zk, undefined, new ThroughputHistory());
    // Broker 1 leads but is not registered: offline, and nothing known from the brokers yet.
    expect(s.topics[0]?.partitions[0]).toMatchObject({ offline: true, underReplicated: false, logEndOffset: null, size: null });
    expect(s.groups).toEqual([]);
  });
});
