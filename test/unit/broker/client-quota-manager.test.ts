import { ClientQuotaManager, DEFAULT_ENTITY_NAME } from '../../../src/broker/client-quota-manager';
import { SampledRate } from '../../../src/common/sampled-rate';
import { desanitize, sanitize } from '../../../src/zk/sanitizer';
import { MockClock } from '../../helpers/mock-clock';
import { quietLogging } from '../../helpers/quiet-logging';

let restoreLogging: () => void;
beforeAll(() => (restoreLogging = quietLogging()));
afterAll(() => restoreLogging());

describe('SampledRate (Kafka metrics Rate over 11 windows of 1 s)', () => {
  it('measures a young sensor over at least samples - 1 windows', () => {
    const r = new SampledRate(11, 1000);
    r.record(10_000, 0);
    expect(r.windowSize(0)).toBe(10_000);
    expect(r.rate(0)).toBe(1000);
    r.record(10_000, 500);
    expect(r.rate(500)).toBeCloseTo(20_000 / 10.5, 6);
  });

  it('forgets windows older than all samples', () => {
    const r = new SampledRate(11, 1000);
    r.record(5000, 0);
    r.record(7000, 11_500);
    expect(r.rate(11_500)).toBe(700);
  });
});

describe('ClientQuotaManager', () => {
  const config = { numQuotaSamples: 11, quotaWindowSizeSeconds: 1 };

  it('throttles nothing while no quota is set', () => {
    const q = new ClientQuotaManager('Produce', config, new MockClock(0));
    expect(q.quotasEnabled).toBe(false);
    expect(q.recordAndGetThrottleTimeMs('c', 1 << 30, 0)).toBe(0);
    expect(q.maxValueInQuotaWindow('c')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("throttles a client over its quota by X = (O - T) / T * W, its own quota before <default>", () => {
    const q = new ClientQuotaManager('Produce', config, new MockClock(0));
    q.updateQuota(DEFAULT_ENTITY_NAME, 1000);
    q.updateQuota('fast', 100_000);
    expect(q.quotaFor('anyone')).toBe(1000);
    expect(q.quotaFor('fast')).toBe(100_000);
    // 10 KB in a 10 s window: exactly 1000 B/s, within the quota.
    expect(q.recordAndGetThrottleTimeMs('anyone', 10_000, 0)).toBe(0);
    // 20 KB more at once: 3000 B/s over 10 s, (3000 - 1000) / 1000 * 10 s = 20 s.
    expect(q.recordAndGetThrottleTimeMs('anyone', 20_000, 0)).toBe(20_000);
    expect(q.recordAndGetThrottleTimeMs('fast', 20_000, 0)).toBe(0);
  });

  it('takes back unsent bytes and caps one response at the quota over the window', () => {
    const q = new ClientQuotaManager('Fetch', config, new MockClock(0));
    q.updateQuota('c', 2000);
    expect(q.maxValueInQuotaWindow('c')).toBe(20_000);
    expect(q.recordAndGetThrottleTimeMs('c', 40_000, 0)).toBe(10_000);
    q.unrecord('c', 40_000, 0);
    expect(q.recordAndGetThrottleTimeMs('c', 10_000, 0)).toBe(0);
    q.updateQuota('c', undefined);
    expect(q.quotaFor('c')).toBeUndefined();
  });
});

describe('Sanitizer (Kafka entity names in znodes)', () => {
  it("URL-encodes so that no name reaches another znode, with Kafka's %2A and %20", () => {
    expect(sanitize('producer-1')).toBe('producer-1');
    expect(sanitize('a/b')).toBe('a%2Fb');
    expect(sanitize('../x')).toBe('..%2Fx');
    expect(sanitize('a b*c')).toBe('a%20b%2Ac');
    expect(sanitize('é')).toBe('%C3%A9');
    for (const name of ['a/b', '../x', 'a b*c', 'é', 'x+y']) expect(desanitize(sanitize(name))).toBe(name);
  });
});
