import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from '../../../src/rebalance/consumer-protocol';

describe('consumer protocol bytes', () => {
  it('round-trips a subscription and an assignment', () => {
    expect(decodeSubscription(encodeSubscription(['a', 'b']))).toEqual({ version: 0, topics: ['a', 'b'], userData: null });
    const assignment = [{ topic: 'a', partitions: [0, 2] }];
    expect(decodeAssignment(encodeAssignment(assignment, Buffer.from('u')))).toEqual({ version: 0, partitions: assignment, userData: Buffer.from('u') });
  });

  it('reads an empty assignment as nothing assigned, and ignores fields of newer versions', () => {
    expect(decodeAssignment(Buffer.alloc(0)).partitions).toEqual([]);
    // librdkafka's subscription v1: user data, then owned partitions (an empty array).
    const v1 = Buffer.concat([Buffer.from([0, 1]), encodeSubscription(['t']).subarray(2), Buffer.from([0, 0, 0, 0])]);
    expect(decodeSubscription(v1)).toEqual({ version: 1, topics: ['t'], userData: null });
  });
});
