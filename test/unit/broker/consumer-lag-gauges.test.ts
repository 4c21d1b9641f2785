import { registerConsumerLagGauges } from '../../../src/broker/consumer-lag-gauges';
import type { ReplicaManager } from '../../../src/broker/replica-manager';
import { KafkaMetrics } from '../../../src/metrics/kafka-metrics';
import type { GroupCoordinator } from '../../../src/rebalance/group-coordinator';
import { parseExposition, sampleValue } from '../../helpers/prometheus-text';
import { quietLogging } from '../../helpers/quiet-logging';

/** A coordinator holding group g's committed offsets (as ZooKeeper would give them), failing when told to. */
function fakeCoordinator(offsets: { topic: string; partition: number; offset: number }[]): { coordinator: GroupCoordinator; fail: { now: boolean }; reads: { n: number } } {
  const fail = { now: false };
  const reads = { n: 0 };
  const coordinator = {
    listGroups: async () => {
      reads.n++;
      if (fail.now) throw new Error('ZooKeeper is away');
      return [{ groupId: 'g', protocolType: 'consumer', state: 'Empty' }];
    },
    fetchOffsets: async () => ({ errorCode: 0, offsets }),
  } as unknown as GroupCoordinator;
  return { coordinator, fail, reads };
}

/** Local replicas: t-0 with high watermark 50; no replica of t-1 here. */
const replicas = {
  getPartition: (tp: { topic: string; partition: number }) => (tp.topic === 't' && tp.partition === 0 ? { log: {}, highWatermark: 50 } : undefined),
} as unknown as ReplicaManager;

describe('consumer lag gauges', () => {
  quietLogging();
  const g = (partition: string): Record<string, string> => ({ consumergroup: 'g', topic: 't', partition });

  it('exports the high watermark minus the committed offset, in one read per scrape', async () => {
    const m = new KafkaMetrics();
    const { coordinator, reads } = fakeCoordinator([
      { topic: 't', partition: 0, offset: 20 },
      { topic: 't', partition: 1, offset: 5 },
      { topic: 't', partition: 2, offset: -1 },
    ]);
    registerConsumerLagGauges(m, coordinator, replicas);
    const exp = parseExposition(await m.exposition());
    expect(reads.n).toBe(1);
    expect(sampleValue(exp, 'kafka_consumergroup_lag', g('0'))).toBe(30);
    expect(sampleValue(exp, 'kafka_consumergroup_current_offset', g('0'))).toBe(20);
    // No replica here: the committed offset is known, the lag is not.
    expect(sampleValue(exp, 'kafka_consumergroup_current_offset', g('1'))).toBe(5);
    expect(sampleValue(exp, 'kafka_consumergroup_lag', g('1'))).toBeUndefined();
    // No committed offset (-1): no series at all.
    expect(sampleValue(exp, 'kafka_consumergroup_current_offset', g('2'))).toBeUndefined();
    expect(sampleValue(exp, 'kafka_coordinator_group_groupmetadatamanager_numoffsets')).toBe(2);
  });

  it('serves the last values read when a read fails, and the rest of the scrape as usual', async () => {
    const m = new KafkaMetrics();
    const { coordinator, fail } = fakeCoordinator([{ topic: 't', partition: 0, offset: 45 }]);
    registerConsumerLagGauges(m, coordinator, replicas);
    expect(sampleValue(parseExposition(await m.exposition()), 'kafka_consumergroup_lag', g('0'))).toBe(5);
    fail.now = true;
    const exp = parseExposition(await m.exposition());
    expect(sampleValue(exp, 'kafka_consumergroup_lag', g('0'))).toBe(5);
    expect(sampleValue(exp, 'process_cpu_seconds_total')).toBeDefined();
  });
});
