import {
  controlledShutdownPartitionLeaderElection,
  offlinePartitionLeaderElection,
  preferredReplicaPartitionLeaderElection,
  reassignPartitionLeaderElection,
} from '../../../src/controller/election';

const live = (...ids: number[]): Set<number> => new Set(ids);

describe('leader election strategies', () => {
  it('offline: first live in-ISR replica in assignment order; ISR keeps live members', () => {
    expect(offlinePartitionLeaderElection([1, 2, 3], [3, 2], live(2, 3), false)).toEqual({ leader: 2, isr: [3, 2], unclean: false });
    expect(offlinePartitionLeaderElection([1, 2, 3], [1, 2, 3], live(1, 3), false)).toEqual({ leader: 1, isr: [1, 3], unclean: false });
  });

  it('offline: no live ISR member means no leader unless unclean election is allowed', () => {
    expect(offlinePartitionLeaderElection([1, 2, 3], [1], live(2, 3), false)).toBeNull();
    expect(offlinePartitionLeaderElection([1, 2, 3], [1], live(3, 2), true)).toEqual({ leader: 2, isr: [2], unclean: true });
    expect(offlinePartitionLeaderElection([1, 2], [1], live(), true)).toBeNull();
  });

  it('preferred: only the first assigned replica, only if live and in the ISR', () => {
    expect(preferredReplicaPartitionLeaderElection([2, 1], [1, 2], live(1, 2))).toEqual({ leader: 2, isr: [1, 2] });
    expect(preferredReplicaPartitionLeaderElection([2, 1], [1], live(1, 2))).toBeNull();
    expect(preferredReplicaPartitionLeaderElection([2, 1], [1, 2], live(1))).toBeNull();
  });

  it('controlled shutdown: skips shutting-down brokers and drops them from the ISR', () => {
    expect(controlledShutdownPartitionLeaderElection([1, 2, 3], [1, 2, 3], live(1, 2, 3), live(1))).toEqual({ leader: 2, isr: [2, 3] });
    expect(controlledShutdownPartitionLeaderElection([1, 2], [1], live(1, 2), live(1))).toBeNull();
  });

  it('reassignment: first target replica that is live and in the ISR', () => {
    expect(reassignPartitionLeaderElection([3, 4], [1, 4, 3], live(1, 3, 4))).toEqual({ leader: 3, isr: [1, 4, 3] });
    expect(reassignPartitionLeaderElection([3, 4], [1], live(1, 3, 4))).toBeNull();
  });
});
