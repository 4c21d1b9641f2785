import { ConnectionQuotas } from '../../../../src/broker/network/connection-quotas';
import { SYSTEM_CLOCK } from '../../../../src/common/time';
import { MockClock } from '../../../helpers/mock-clock';

const INT_MAX = 2147483647;

describe('ConnectionQuotas.updateLimits (dynamic max.connections.per.ip, overrides, max.connections)', () => {
  it('judges new connections on the new limits and keeps the open ones', () => {
    const q = new ConnectionQuotas({ maxConnections: INT_MAX, maxConnectionsPerIp: INT_MAX, maxConnectionsPerIpOverrides: new Map(), maxConnectionCreationRate: INT_MAX }, SYSTEM_CLOCK);
    for (let i = 0; i < 3; i++) expect(q.tryAccept('127.0.0.1', 'PLAINTEXT')).toBeUndefined();
    q.updateLimits({ maxConnections: INT_MAX, maxConnectionsPerIp: 2, maxConnectionsPerIpOverrides: new Map([['10.0.0.1', 1]]) });
    expect(q.count('127.0.0.1')).toBe(3);
    expect(q.tryAccept('127.0.0.1', 'PLAINTEXT')).toEqual({ reason: 'per-ip', limit: 2 });
    q.release('127.0.0.1');
    q.release('127.0.0.1');
    expect(q.tryAccept('127.0.0.1', 'PLAINTEXT')).toBeUndefined();
    expect(q.tryAccept('10.0.0.1', 'PLAINTEXT')).toBeUndefined();
    expect(q.tryAccept('10.0.0.1', 'PLAINTEXT')).toEqual({ reason: 'per-ip', limit: 1 });
    q.updateLimits({ maxConnections: 3, maxConnectionsPerIp: INT_MAX, maxConnectionsPerIpOverrides: new Map() });
    expect(q.tryAccept('10.0.0.2', 'PLAINTEXT')).toEqual({ reason: 'broker', limit: 3 });
  });
});

describe('ConnectionQuotas: connection_creation_rate of ips (KIP-612)', () => {
  it("throttles an ip over its quota, not others; its own quota before the default; removal lifts it", () => {
    const clock = new MockClock(0);
    const q = new ConnectionQuotas(
      { maxConnections: INT_MAX, maxConnectionsPerIp: INT_MAX, maxConnectionsPerIpOverrides: new Map(), maxConnectionCreationRate: INT_MAX, quotaWindow: { numQuotaSamples: 3, quotaWindowSizeSeconds: 1 } },
      clock,
    );
    q.updateIpConnectionRateQuota('10.0.0.1', 2);
    // A young sensor counts over (samples - 1) windows: 2 s, so 4 connections fit at once.
    for (let i = 0; i < 4; i++) expect(q.tryAccept('10.0.0.1', 'PLAINTEXT')).toBeUndefined();
    const refused = q.tryAccept('10.0.0.1', 'PLAINTEXT');
    expect(refused).toEqual({ reason: 'ip-rate', limit: 2, throttleMs: 500 });
    // The refused connection was not counted: neither as open nor towards the rate.
    expect(q.count('10.0.0.1')).toBe(4);
    for (let i = 0; i < 10; i++) expect(q.tryAccept('10.0.0.2', 'PLAINTEXT')).toBeUndefined();
    q.updateIpConnectionRateQuota(undefined, 1);
    expect(q.connectionRateForIp('10.0.0.3')).toBe(1);
    expect(q.connectionRateForIp('10.0.0.1')).toBe(2);
    q.updateIpConnectionRateQuota('10.0.0.1', undefined);
    expect(q.connectionRateForIp('10.0.0.1')).toBe(1);
    q.updateIpConnectionRateQuota(undefined, undefined);
    expect(q.tryAccept('10.0.0.1', 'PLAINTEXT')).toBeUndefined();
  });
});
