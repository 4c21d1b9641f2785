import { parseThrottledPartitions } from '../../../src/common/config/throttled-replicas';
import { validateLogConfig } from '../../../src/common/config/log-config';
import { ReplicationQuotaManager } from '../../../src/broker/replication-quota-manager';
import { validateDynamicBrokerKeys } from '../../../src/common/config/dynamic-broker-config';
import { Clock } from '../../../src/common/time';

describe('ReplicationQuotaManager (Kafka 2.8)', () => {
  let now = 1_000_000;
  const clock = { nowMs: () => now } as unknown as Clock;
  const config = { numQuotaSamples: 11, quotaWindowSizeSeconds: 1 };

  it('measures nothing without a bound', () => {
    const q = new ReplicationQuotaManager('LeaderReplication', config, clock);
    q.record(10_000_000);
    expect(q.isQuotaExceeded()).toBe(false);
    expect(q.upperBound).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('is a SimpleRate over 11 one-second windows: exceeded once the bytes over the elapsed time pass the bound', () => {
    const q = new ReplicationQuotaManager('FollowerReplication', config, clock);
    q.updateQuota(100);
    // Within the first window the rate is measured over (at least) one window.
    q.record(90);
    expect(q.measuredRate()).toBe(90);
    expect(q.isQuotaExceeded()).toBe(false);
    q.record(20);
    expect(q.isQuotaExceeded()).toBe(true);
    // Two seconds on, 110 bytes over 2 s is within the bound again.
    now += 2000;
    expect(q.measuredRate()).toBe(55);
    expect(q.isQuotaExceeded()).toBe(false);
    // Windows older than 11 s are forgotten.
    now += 11_000;
    expect(q.measuredRate()).toBe(0);
    // Long.MAX_VALUE, or none, removes the bound.
    q.updateQuota(Number.MAX_SAFE_INTEGER);
    q.record(1e9);
    expect(q.isQuotaExceeded()).toBe(false);
  });

  it('throttles the partitions its topics list', () => {
    const q = new ReplicationQuotaManager('LeaderReplication', config, clock);
    expect(q.hasThrottledPartitions).toBe(false);
    q.markThrottled('t', [0, 2]);
    q.markThrottled('all', '*');
    expect(q.isThrottled({ topic: 't', partition: 2 })).toBe(true);
    expect(q.isThrottled({ topic: 't', partition: 1 })).toBe(false);
    expect(q.isThrottled({ topic: 'all', partition: 7 })).toBe(true);
    // Throttled partitions without a bound: the fetch paths still skip all work.
    expect(q.isActive).toBe(false);
    q.updateQuota(1000);
    expect(q.isActive).toBe(true);
    q.removeThrottle('t');
    expect(q.isThrottled({ topic: 't', partition: 2 })).toBe(false);
  });
});

describe('throttled replicas (ThrottledReplicaListValidator, parseThrottledPartitions)', () => {
  it('keeps the partitions whose replica is on this broker', () => {
    expect(parseThrottledPartitions('leader.replication.throttled.replicas', '0:1, 1:2,2:1', 1)).toEqual([0, 2]);
    expect(parseThrottledPartitions('leader.replication.throttled.replicas', ' * ', 1)).toBe('*');
    expect(parseThrottledPartitions('leader.replication.throttled.replicas', '', 1)).toEqual([]);
  });

  it.each(['0:a', '*,0:1', '0-1', '1:'])('refuses %j with Kafka\'s message', (value) => {
    const reason = "follower.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...";
    expect(() => validateLogConfig(new Map([['follower.replication.throttled.replicas', value]]))).toThrow(`for configuration follower.replication.throttled.replicas: ${reason}`);
    expect(() => parseThrottledPartitions('follower.replication.throttled.replicas', value, 1)).toThrow(reason);
  });

  it('accepts the throttle keys as topic configs and the rates as dynamic broker configs', () => {
    expect(() => validateLogConfig(new Map([['leader.replication.throttled.replicas', '0:1,1:2'], ['follower.replication.throttled.replicas', '*']]))).not.toThrow();
    expect(() => validateDynamicBrokerKeys(new Map([['leader.replication.throttled.rate', '1000'], ['replica.alter.log.dirs.io.max.bytes.per.second', '5']]), true)).not.toThrow();
    expect(() => validateDynamicBrokerKeys(new Map([['follower.replication.throttled.rate', '-1']]), true)).toThrow('Invalid value -1 for configuration follower.replication.throttled.rate: Value must be at least 0');
  });
});
