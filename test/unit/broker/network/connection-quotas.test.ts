import { ConnectionQuotas } from '../../../../src/broker/network/connection-quotas';
import { SYSTEM_CLOCK } from '../../../../src/common/time';

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
