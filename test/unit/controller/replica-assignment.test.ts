import { assignAddedPartitions, assignReplicasToBrokers } from '../../../src/controller/replica-assignment';

describe("Kafka's rack-unaware replica assignment", () => {
  it('matches AdminUtils for a fixed start index (Kafka AdminRackAwareTest expectations)', () => {
    // 5 brokers, 10 partitions, RF 3, startIndex 0, shift 0 (AdminUtilsTest.testReplicaAssignment).
    const a = assignReplicasToBrokers([0, 1, 2, 3, 4], 10, 3, { fixedStartIndex: 0 });
    expect([...a.entries()]).toEqual([
      [0, [0, 1, 2]],
      [1, [1, 2, 3]],
      [2, [2, 3, 4]],
      [3, [3, 4, 0]],
      [4, [4, 0, 1]],
      [5, [0, 2, 3]],
      [6, [1, 3, 4]],
      [7, [2, 4, 0]],
      [8, [3, 0, 1]],
      [9, [4, 1, 2]],
    ]);
  });

  it('spreads leaders evenly and never repeats a broker within a partition', () => {
    const a = assignReplicasToBrokers([3, 1, 2], 6, 3, { random: () => 0.5 });
    const leaders = [...a.values()].map((r) => r[0]);
    for (const b of [1, 2, 3]) expect(leaders.filter((l) => l === b)).toHaveLength(2);
    for (const r of a.values()) expect(new Set(r).size).toBe(3);
  });

  it("refuses impossible requests with Kafka's messages", () => {
    expect(() => assignReplicasToBrokers([1], 1, 3)).toThrow('Replication factor: 3 larger than available brokers: 1.');
    expect(() => assignReplicasToBrokers([1], 0, 1)).toThrow('Number of partitions must be larger than 0.');
    expect(() => assignReplicasToBrokers([1], 1, 0)).toThrow('Replication factor must be larger than 0.');
  });

  it('continues the pattern when partitions are added', () => {
    const existing = assignReplicasToBrokers([0, 1, 2], 3, 2, { fixedStartIndex: 1 });
    const added = assignAddedPartitions([0, 1, 2], existing, 6);
    expect([...added.keys()]).toEqual([3, 4, 5]);
    for (const r of added.values()) expect(r).toHaveLength(2);
    const all = [...existing.values(), ...added.values()].map((r) => r[0]);
    for (const b of [0, 1, 2]) expect(all.filter((l) => l === b)).toHaveLength(2);
  });
});
