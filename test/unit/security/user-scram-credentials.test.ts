import { ErrorCode } from '../../../src/common/error-codes';
import { alterUserScramCredentials, describeUserScramCredentials, UserConfigStore } from '../../../src/broker/handlers/user-scram-credentials';
import { generateScramCredential, saltedPassword, scramCredentialFromString, scramCredentialToString } from '../../../src/security/scram-credential';

/** An in-memory /config/users with a log of writes. */
function store(initial: Record<string, Record<string, string>> = {}): UserConfigStore & { data: Map<string, Map<string, string>>; writes: string[] } {
  const data = new Map(Object.entries(initial).map(([u, c]) => [u, new Map(Object.entries(c))]));
  const writes: string[] = [];
  return {
    data,
    writes,
    fetchAll: () => Promise.resolve([...data].map(([u, c]) => [u, new Map(c)] as [string, Map<string, string>])),
    fetch: (user) => Promise.resolve(new Map(data.get(user) ?? [])),
    change: (user, config) => {
      writes.push(user);
      data.set(user, new Map(config));
      return Promise.resolve();
    },
  };
}

const cred = (iterations: number): string => scramCredentialToString(generateScramCredential('SCRAM-SHA-256', 'pw', iterations));
const upsert = (name: string, mechanism: number, iterations: number, password = 'secret') => {
  const salt = Buffer.from('salty-salt');
  return { name, mechanism, iterations, salt, saltedPassword: saltedPassword(mechanism === 2 ? 'SCRAM-SHA-512' : 'SCRAM-SHA-256', password, salt, Math.max(1, iterations)) };
};

describe('DescribeUserScramCredentials (ZkAdminManager.describeUserScramCredentials)', () => {
  it('describes every user with a credential, sorted, skipping users with only quotas', async () => {
    const s = store({ bob: { 'SCRAM-SHA-512': cred(8192) }, alice: { 'SCRAM-SHA-256': cred(4096), 'SCRAM-SHA-512': cred(8192) }, carol: { producer_byte_rate: '10' } });
    const r = await describeUserScramCredentials(null, s);
    expect(r.errorCode).toBe(0);
    expect(r.results.map((x) => [x.user, x.credentialInfos])).toEqual([
      ['alice', [{ mechanism: 1, iterations: 4096 }, { mechanism: 2, iterations: 8192 }]],
      ['bob', [{ mechanism: 2, iterations: 8192 }]],
    ]);
    expect((await describeUserScramCredentials([], s)).results).toHaveLength(2);
  });

  it('answers named users in request order: missing RESOURCE_NOT_FOUND, empty name, duplicates once', async () => {
    const s = store({ alice: { 'SCRAM-SHA-256': cred(4096) } });
    const r = await describeUserScramCredentials(['nobody', 'alice', '', 'alice'], s);
    expect(r.results.map((x) => [x.user, x.errorCode, x.errorMessage])).toEqual([
      ['nobody', ErrorCode.RESOURCE_NOT_FOUND.code, 'Attempt to describe a user credential that does not exist: nobody'],
      ['alice', ErrorCode.DUPLICATE_RESOURCE.code, 'Cannot describe SCRAM credentials for the same user twice in a single request: alice'],
      ['', ErrorCode.RESOURCE_NOT_FOUND.code, 'Username must not be empty'],
    ]);
  });

  it('reports a corrupt stored credential as UNKNOWN_SERVER_ERROR for that user only', async () => {
    const s = store({ alice: { 'SCRAM-SHA-256': 'garbage' }, bob: { 'SCRAM-SHA-256': cred(4096) } });
    const r = await describeUserScramCredentials(['alice', 'bob'], s);
    expect(r.results.map((x) => x.errorCode)).toEqual([ErrorCode.UNKNOWN_SERVER_ERROR.code, 0]);
  });
});

describe('AlterUserScramCredentials (ZkAdminManager.alterUserScramCredentials)', () => {
  it('stores the credential derived from the salted password, in Kafka form, which authenticates the password', async () => {
    const s = store({ alice: { producer_byte_rate: '1024' } });
    const r = await alterUserScramCredentials({ deletions: [], upsertions: [upsert('alice', 1, 8192)] }, s);
    expect(r.results).toEqual([{ user: 'alice', errorCode: 0, errorMessage: null }]);
    const stored = s.data.get('alice') as Map<string, string>;
    expect(stored.get('producer_byte_rate')).toBe('1024');
    const c = scramCredentialFromString(stored.get('SCRAM-SHA-256') as string);
    expect(c.iterations).toBe(8192);
    const expected = generateScramCredential('SCRAM-SHA-256', 'secret', 8192, Buffer.from('salty-salt'));
    expect(c.storedKey.equals(expected.storedKey) && c.serverKey.equals(expected.serverKey)).toBe(true);
  });

  it('refuses bad iterations, unknown mechanisms and empty names without writing', async () => {
    const s = store();
    const r = await alterUserScramCredentials(
      { deletions: [{ name: 'dave', mechanism: 0 }], upsertions: [upsert('low', 1, 4095), upsert('high', 2, 16385), upsert('', 1, 8192), upsert('odd', 7, 8192), upsert('edge', 1, 16384)] },
      s,
    );
    const byUser = new Map(r.results.map((x) => [x.user, [x.errorCode, x.errorMessage]]));
    expect(byUser.get('dave')).toEqual([ErrorCode.UNSUPPORTED_SASL_MECHANISM.code, 'Unknown SCRAM mechanism']);
    expect(byUser.get('odd')).toEqual([ErrorCode.UNSUPPORTED_SASL_MECHANISM.code, 'Unknown SCRAM mechanism']);
    expect(byUser.get('low')).toEqual([ErrorCode.UNACCEPTABLE_CREDENTIAL.code, 'Too few iterations']);
    expect(byUser.get('high')).toEqual([ErrorCode.UNACCEPTABLE_CREDENTIAL.code, 'Too many iterations']);
    expect(byUser.get('')).toEqual([ErrorCode.UNACCEPTABLE_CREDENTIAL.code, 'Username must not be empty']);
    expect(byUser.get('edge')).toEqual([0, null]);
    expect(s.writes).toEqual(['edge']);
  });

  it('refuses a user altering one mechanism twice, and deleting a credential it does not have, applying nothing of theirs', async () => {
    const s = store({ erin: { 'SCRAM-SHA-512': cred(4096) } });
    const r = await alterUserScramCredentials(
      { deletions: [{ name: 'frank', mechanism: 1 }, { name: 'erin', mechanism: 2 }], upsertions: [upsert('frank', 1, 4096), upsert('erin', 1, 4096), upsert('gina', 1, 4096)] },
      s,
    );
    const byUser = new Map(r.results.map((x) => [x.user, [x.errorCode, x.errorMessage]]));
    expect(byUser.get('frank')).toEqual([ErrorCode.DUPLICATE_RESOURCE.code, 'A user credential cannot be altered twice in the same request']);
    expect(byUser.get('erin')).toEqual([0, null]);
    expect([...(s.data.get('erin') as Map<string, string>).keys()]).toEqual(['SCRAM-SHA-256']);
    const r2 = await alterUserScramCredentials({ deletions: [{ name: 'gina', mechanism: 2 }], upsertions: [] }, s);
    expect(r2.results).toEqual([{ user: 'gina', errorCode: ErrorCode.RESOURCE_NOT_FOUND.code, errorMessage: 'Attempt to delete a user credential that does not exist' }]);
    expect(s.data.get('gina')?.has('SCRAM-SHA-256')).toBe(true);
  });
});
