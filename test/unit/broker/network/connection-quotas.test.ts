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

describe('ConnectionQuotas: max.connection.creation.rate and listener limits (ListenerConnectionQuota)', () => {
  it('applies a new broker rate and a listener\'s own max.connections and rate, the inter-broker listener included', () => {
    const clock = new MockClock(0);
    const q = new ConnectionQuotas({ maxConnections: INT_MAX, maxConnectionsPerIp: INT_MAX, maxConnectionsPerIpOverrides: new Map(), maxConnectionCreationRate: INT_MAX, protectedListener: 'INTERNAL' }, clock);
    q.updateLimits({ maxConnectionCreationRate: 2 });
    expect(q.tryAccept('10.0.0.1', 'EXTERNAL')).toBeUndefined();
    expect(q.tryAccept('10.0.0.2', 'EXTERNAL')).toBeUndefined();
    expect(q.tryAccept('10.0.0.3', 'EXTERNAL')).toEqual({ reason: 'rate', limit: 2 });
    // The protected listener is exempt from the broker-wide rate, not from its own limits.
    expect(q.tryAccept('10.0.0.3', 'INTERNAL')).toBeUndefined();
    clock.advance(1001);
    q.updateLimits({ maxConnectionCreationRate: INT_MAX, listenerLimits: new Map([['EXTERNAL', { maxConnections: 3 }], ['INTERNAL', { maxConnectionCreationRate: 1 }]]) });
    expect(q.tryAccept('10.0.0.4', 'EXTERNAL')).toBeUndefined();
    expect(q.tryAccept('10.0.0.5', 'EXTERNAL')).toEqual({ reason: 'listener', listener: 'EXTERNAL', limit: 3 });
    expect(q.tryAccept('10.0.0.5', 'INTERNAL')).toBeUndefined();
    expect(q.tryAccept('10.0.0.6', 'INTERNAL')).toEqual({ reason: 'listener-rate', listener: 'INTERNAL', limit: 1 });
    q.release('10.0.0.1', 'EXTERNAL');
    expect(q.listenerCount('EXTERNAL')).toBe(2);
    expect(q.tryAccept('10.0.0.5', 'EXTERNAL')).toBeUndefined();
  });
});
