import { divergingEpoch, EndOffsetForEpoch } from '../../../src/broker/diverging-epoch';

/** A leader whose epoch cache is 0@0, 2@10, 4@25 and whose log ends at 40 (Log.endOffsetForEpoch's answers). */
const leader: EndOffsetForEpoch = (epoch) => {
  if (epoch === 4) return { leaderEpoch: 4, endOffset: 40 };
  if (epoch > 4) return { leaderEpoch: -1, endOffset: -1 };
  if (epoch >= 2) return { leaderEpoch: 2, endOffset: 25 };
  return { leaderEpoch: 0, endOffset: 10 };
};

describe('divergingEpoch (Fetch v12, Partition.readRecords)', () => {
  it('does not check a fetch without a last fetched epoch', () => {
    expect(divergingEpoch(() => { throw new Error('not asked'); }, -1, 100)).toBeNull();
  });

  it('lets a follower whose last epoch ends at or after its fetch offset read', () => {
    expect(divergingEpoch(leader, 4, 40)).toBeNull();
    expect(divergingEpoch(leader, 2, 25)).toBeNull();
    expect(divergingEpoch(leader, 0, 3)).toBeNull();
  });

  it('answers the epoch and its end offset when the follower has records of that epoch past where ours ends', () => {
    expect(divergingEpoch(leader, 2, 30)).toEqual({ epoch: 2, endOffset: 25 });
    expect(divergingEpoch(leader, 0, 12)).toEqual({ epoch: 0, endOffset: 10 });
  });

  it('answers the largest older epoch when ours has no such epoch', () => {
    expect(divergingEpoch(leader, 3, 20)).toEqual({ epoch: 2, endOffset: 25 });
  });

  it('answers (-1, -1) for an epoch newer than any of ours', () => {
    expect(divergingEpoch(leader, 7, 41)).toEqual({ epoch: -1, endOffset: -1 });
  });
});
