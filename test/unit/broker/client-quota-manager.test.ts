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

describe("ClientQuotaManager: users and client ids in KIP-55's order", () => {
  const config = { numQuotaSamples: 11, quotaWindowSizeSeconds: 1 };
  const D = DEFAULT_ENTITY_NAME;

  it('takes the most specific entity that has a quota', () => {
    const q = new ClientQuotaManager('Produce', config, new MockClock(0));
    const levels: [Parameters<ClientQuotaManager['updateQuota']>[0], number][] = [
      [{ clientId: D }, 8],
      [{ clientId: 'app' }, 7],
      [{ user: D }, 6],
      [{ user: D, clientId: D }, 5],
      [{ user: D, clientId: 'app' }, 4],
      [{ user: 'alice' }, 3],
      [{ user: 'alice', clientId: D }, 2],
      [{ user: 'alice', clientId: 'app' }, 1],
    ];
    // Added from the least to the most specific: each one takes over.
    for (const [entity, level] of levels) {
      q.updateQuota(entity, level);
      expect(q.quotaFor('app', 'alice')).toBe(level);
    }
    // And removed from the most specific back: the next one below shows through.
    for (const [entity, level] of levels.slice().reverse()) {
      expect(q.quotaFor('app', 'alice')).toBe(level);
      q.updateQuota(entity, undefined);
    }
    expect(q.quotaFor('app', 'alice')).toBeUndefined();
  });

  it('a user quota is one rate for all of its clients; a client-id quota one rate per client id', () => {
    const q = new ClientQuotaManager('Produce', config, new MockClock(0));
    q.updateQuota({ user: 'bob' }, 1000);
    q.updateQuota({ clientId: D }, 1000);
    // bob's two clients share 10 KB over the 10 s window: the second one is throttled.
    expect(q.recordAndGetThrottleTimeMs('one', 10_000, 0, 'bob')).toBe(0);
    expect(q.recordAndGetThrottleTimeMs('two', 10_000, 0, 'bob')).toBe(10_000);
    // carol's clients fall back to the client-id default: each has its own rate.
    expect(q.recordAndGetThrottleTimeMs('one', 10_000, 0, 'carol')).toBe(0);
    expect(q.recordAndGetThrottleTimeMs('two', 10_000, 0, 'carol')).toBe(0);
    // User names are sanitized as in ZooKeeper: a quota on 'CN=a,O=b' is stored as CN%3Da%2CO%3Db.
    q.updateQuota({ user: 'CN%3Da%2CO%3Db' }, 5);
    expect(q.quotaFor('x', 'CN=a,O=b')).toBe(5);
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
