import { ReplicaFetcherManager } from '../../../../src/broker/replica-fetcher/replica-fetcher-manager';
import { InitialFetchState } from '../../../../src/broker/replica-fetcher/replica-fetcher-thread';
import { quietLogging } from '../../../helpers/quiet-logging';

describe('ReplicaFetcherManager.resizeThreadPool (dynamic num.replica.fetchers)', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());

  it('moves every partition to the fetcher its hash now picks, from the offset and epoch it had reached', async () => {
    // A leader nobody listens on: the fetchers only back off, which leaves the states as they were added.
    const leader = { id: 1, host: '127.0.0.1', port: 1 };
    const manager = new ReplicaFetcherManager(
      { brokerId: 0, numReplicaFetchers: 1, fetchMaxBytes: 1 << 20, fetchResponseMaxBytes: 10 << 20, fetchWaitMaxMs: 500, fetchMinBytes: 1, fetchBackoffMs: 60_000, socketTimeoutMs: 1000 },
      () => undefined,
    );
    try {
      const states: InitialFetchState[] = Array.from({ length: 8 }, (_, p) => ({ tp: { topic: 'live', partition: p }, leader, currentLeaderEpoch: 3, initOffset: 10 * p }));
      await manager.addFetcherForPartitions(states);
      expect(manager.fetcherCount).toBe(1);
      await manager.resizeThreadPool(3);
      expect(manager.numFetchers).toBe(3);
      for (const s of states) {
        const id = manager.assignedFetcherId(s.tp);
        expect(id).toBe(manager.fetcherId(s.tp));
        expect(manager.fetchStateFor(s.tp)).toEqual({ tp: s.tp, leader, currentLeaderEpoch: 3, initOffset: s.initOffset });
      }
      expect(new Set(states.map((s) => manager.assignedFetcherId(s.tp))).size).toBe(manager.fetcherCount);
      expect(manager.fetcherCount).toBeGreaterThan(1);
      await manager.resizeThreadPool(1);
      expect(manager.fetcherCount).toBe(1);
      for (const s of states) expect([manager.assignedFetcherId(s.tp), manager.fetchStateFor(s.tp)?.initOffset]).toEqual([0, s.initOffset]);
    } finally {
      await manager.shutdown();
    }
  });
});
