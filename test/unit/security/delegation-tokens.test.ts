import { createHash, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../../../src/common/error-codes';
import { allowTokenRequests, createDelegationTokenHandlers, filterToken } from '../../../src/broker/handlers/delegation-tokens';
import { HandlerContext } from '../../../src/broker/handlers/handler-context';
import { ConnectionContext, RequestContext } from '../../../src/broker/network/api-handler';
import { createTokenHmac, generateTokenId, TokenInformation, tokenInfoFromData, tokenInfoToData } from '../../../src/security/delegation-token';
import { DelegationTokenCache, scramLookupWithTokens } from '../../../src/security/delegation-token-cache';
import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { DelegationTokenConfig, DelegationTokenManager, delegationTokenConfigFrom } from '../../../src/security/delegation-token-manager';
import { ANONYMOUS, KafkaPrincipal } from '../../../src/security/kafka-principal';
import { ScramCredential, ScramCredentialLookup } from '../../../src/security/scram-credential';
import { ZkPaths } from '../../../src/zk/zk-paths';
import { DelegationTokenInfoZNode } from '../../../src/zk/znodes/delegation-token-znodes';
import { FakeZk } from '../../helpers/fake-zk';
import { MockClock } from '../../helpers/mock-clock';

const alice: KafkaPrincipal = { principalType: 'User', name: 'alice' };
const bob: KafkaPrincipal = { principalType: 'User', name: 'bob' };
const carol: KafkaPrincipal = { principalType: 'User', name: 'carol' };

const HOUR = 3_600_000;
const config: DelegationTokenConfig = { secretKey: 'master-key-1', maxLifetimeMs: 7 * 24 * HOUR, expiryTimeMs: 24 * HOUR, expiryCheckIntervalMs: HOUR };

function newManager(overrides: Partial<DelegationTokenConfig> = {}): { zk: FakeZk; clock: MockClock; manager: DelegationTokenManager } {
  const zk = new FakeZk();
  const clock = new MockClock(1_700_000_000_000);
  return { zk, clock, manager: new DelegationTokenManager(zk.client, { ...config, ...overrides }, 1, clock) };
}

/** The client's side of RFC 5802 with the token's HMAC as password, checked as a SCRAM server checks a proof. */
function clientProofVerifies(credential: ScramCredential, password: string): boolean {
  const salted = pbkdf2Sync(Buffer.from(password, 'utf8'), credential.salt, credential.iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const authMessage = 'n=tokenid,r=abc,r=abcdef,s=c2FsdA==,i=4096,c=biws,r=abcdef';
  const clientSignature = createHmac('sha256', credential.storedKey).update(authMessage).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ (clientSignature[i] ?? 0)));
  // Server: ClientKey = proof XOR HMAC(StoredKey, AuthMessage); H(ClientKey) must be StoredKey.
  const recovered = Buffer.from(proof.map((b, i) => b ^ (clientSignature[i] ?? 0)));
  return timingSafeEqual(createHash('sha256').update(recovered).digest(), credential.storedKey);
}

describe('delegation token HMAC and id', () => {
  it("is HMAC-SHA512 of the token id keyed by the secret key (Kafka's createHmac)", () => {
    // Python's hmac.new(b'master-key-1', b'kt1a2b3cAAAAAAAAAAAAAA', hashlib.sha512), base64.
    expect(createTokenHmac('kt1a2b3cAAAAAAAAAAAAAA', 'master-key-1').toString('base64')).toBe('6JmymC4xQiJvyQv/OOyCfjRQeYjq9myVVC9xVKwgqBnBNMzzup7zdtheSuz9TH3+NrKYEoVWSjzM5PmeKyUqqA==');
    expect(createTokenHmac('kt1a2b3cAAAAAAAAAAAAAA', 'master-key-2').equals(createTokenHmac('kt1a2b3cAAAAAAAAAAAAAA', 'master-key-1'))).toBe(false);
  });

  it('generates 22-character URL-safe base64 ids from random UUIDs', () => {
    const ids = new Set(Array.from({ length: 50 }, () => generateTokenId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

describe('/delegation_token/tokens/<tokenId>', () => {
  const info: TokenInformation = { tokenId: 'tok1', owner: alice, renewers: [bob, { principalType: 'User', name: 'CN=x,O=y' }], issueTimestamp: 1000, maxTimestamp: 3000, expiryTimestamp: 2000 };

  it("writes Kafka 2.8's version 1 JSON with sanitized principals and reads it back", () => {
    const bytes = DelegationTokenInfoZNode.encode(tokenInfoToData(info));
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({
      version: 1,
      owner: 'User%3Aalice',
      renewers: ['User%3Abob', 'User%3ACN%3Dx%2CO%3Dy'],
      issueTimestamp: 1000,
      maxTimestamp: 3000,
      expiryTimestamp: 2000,
      tokenId: 'tok1',
    });
    expect(tokenInfoFromData(DelegationTokenInfoZNode.decode('/p', bytes) as never)).toEqual(info);
  });

  it('reads nothing from an empty node and refuses other versions and shapes', () => {
    expect(DelegationTokenInfoZNode.decode('/p', Buffer.alloc(0))).toBeUndefined();
    expect(() => DelegationTokenInfoZNode.decode('/p', Buffer.from('{"version":3,"owner":"User%3Aa","renewers":[],"issueTimestamp":1,"maxTimestamp":1,"expiryTimestamp":1,"tokenId":"t"}'))).toThrow('unsupported delegation token version 3');
    expect(() => DelegationTokenInfoZNode.decode('/p', Buffer.from('{"version":1,"owner":"User%3Aa","renewers":"x","issueTimestamp":1,"maxTimestamp":1,"expiryTimestamp":1,"tokenId":"t"}'))).toThrow('renewers');
    expect(() => DelegationTokenInfoZNode.decode('/p', Buffer.from('{"version":1,"owner":"User%3Aa","renewers":[],"issueTimestamp":"1","maxTimestamp":1,"expiryTimestamp":1,"tokenId":"t"}'))).toThrow('issueTimestamp');
    expect(() => DelegationTokenInfoZNode.decode('/p', Buffer.from('nope'))).toThrow('not JSON');
  });
});

describe('DelegationTokenCache', () => {
  it('holds a SCRAM credential per mechanism whose password is the base64 HMAC, found by a tokenauth exchange', () => {
    const cache = new DelegationTokenCache();
    const hmac = createTokenHmac('tok1', 'k');
    cache.updateCache({ tokenInfo: { tokenId: 'tok1', owner: alice, renewers: [], issueTimestamp: 0, maxTimestamp: 10, expiryTimestamp: 5 }, hmac });
    const sha512 = cache.credential('tok1', 'SCRAM-SHA-512');
    expect(sha512?.iterations).toBe(4096);
    const users: ScramCredentialLookup = { credential: (name) => (name === 'tok1' ? { salt: Buffer.alloc(1), storedKey: Buffer.alloc(1), serverKey: Buffer.alloc(1), iterations: 4096 } : undefined) };
    const lookup = scramLookupWithTokens(users, cache);
    const found = lookup.credential('tok1', 'SCRAM-SHA-256', true);
    expect(found).toBeDefined();
    expect(clientProofVerifies(found as ScramCredential, hmac.toString('base64'))).toBe(true);
    expect(clientProofVerifies(found as ScramCredential, 'wrong')).toBe(false);
    // Without the extension the same name is a user, not the token.
    expect(lookup.credential('tok1', 'SCRAM-SHA-256', false)?.storedKey.length).toBe(1);
    expect(lookup.tokenOwner?.('tok1')).toBe('alice');
    expect(cache.tokenForHmac(hmac.toString('base64'))?.tokenId).toBe('tok1');
    cache.removeCache('tok1');
    expect(lookup.credential('tok1', 'SCRAM-SHA-256', true)).toBeUndefined();
    expect(cache.tokenForHmac(hmac.toString('base64'))).toBeUndefined();
  });
});

describe('DelegationTokenManager rules', () => {
  it('answers DELEGATION_TOKEN_AUTH_DISABLED without a secret key and creates no paths', async () => {
    const { zk, manager } = newManager({ secretKey: null });
    await manager.startup();
    expect(manager.tokenAuthEnabled).toBe(false);
    expect((await manager.createToken(alice, [], -1)).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code);
    expect((await manager.renewToken(alice, Buffer.alloc(64), -1)).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code);
    expect((await manager.expireToken(alice, Buffer.alloc(64), -1)).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code);
    expect(zk.nodes.has(ZkPaths.delegationTokens)).toBe(false);
    expect(new DelegationTokenManager(zk.client, { ...config, secretKey: '' }, 1).tokenAuthEnabled).toBe(false);
  });

  it('caps the max lifetime at delegation.token.max.lifetime.ms and the expiry at the max', async () => {
    const { zk, clock, manager } = newManager();
    await manager.startup();
    const now = clock.nowMs();
    const byDefault = await manager.createToken(alice, [bob], -1);
    expect(byDefault).toMatchObject({ errorCode: 0, issueTimestamp: now, maxTimestamp: now + config.maxLifetimeMs, expiryTimestamp: now + config.expiryTimeMs });
    expect(byDefault.hmac.equals(createTokenHmac(byDefault.tokenId, 'master-key-1'))).toBe(true);
    const tooLong = await manager.createToken(alice, [], config.maxLifetimeMs * 2);
    expect(tooLong.maxTimestamp).toBe(now + config.maxLifetimeMs);
    const short = await manager.createToken(alice, [], HOUR);
    expect(short).toMatchObject({ maxTimestamp: now + HOUR, expiryTimestamp: now + HOUR });
    // Stored, and announced with the token id.
    expect(JSON.parse(zk.text(ZkPaths.delegationToken(byDefault.tokenId)) ?? '{}')).toMatchObject({ version: 1, owner: 'User%3Aalice', renewers: ['User%3Abob'] });
    const notes = [...zk.nodes.keys()].filter((p) => p.startsWith(ZkPaths.delegationTokenChangePrefix));
    expect(notes.map((p) => zk.text(p)).sort()).toEqual([byDefault.tokenId, tooLong.tokenId, short.tokenId].sort());
  });

  it('renews for the owner and renewers only, within the max, and not once expired', async () => {
    const { clock, manager } = newManager();
    await manager.startup();
    const token = await manager.createToken(alice, [bob], -1);
    expect(await manager.renewToken(carol, token.hmac, HOUR)).toEqual({ errorCode: ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH.code, expiryTimestamp: -1 });
    expect((await manager.renewToken(alice, createTokenHmac('other', 'master-key-1'), HOUR)).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_NOT_FOUND.code);
    clock.advance(HOUR);
    expect(await manager.renewToken(bob, token.hmac, 2 * HOUR)).toEqual({ errorCode: 0, expiryTimestamp: clock.nowMs() + 2 * HOUR });
    expect(await manager.renewToken(alice, token.hmac, -1)).toEqual({ errorCode: 0, expiryTimestamp: clock.nowMs() + config.expiryTimeMs });
    expect(await manager.renewToken(alice, token.hmac, 30 * 24 * HOUR)).toEqual({ errorCode: 0, expiryTimestamp: token.maxTimestamp });
    clock.advance(8 * 24 * HOUR);
    expect((await manager.renewToken(alice, token.hmac, HOUR)).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_EXPIRED.code);
  });

  it('expires now with a negative period, later with a positive one, and removes expired tokens on expireTokens', async () => {
    const { zk, clock, manager } = newManager();
    await manager.startup();
    const a = await manager.createToken(alice, [], -1);
    const b = await manager.createToken(alice, [], -1);
    expect((await manager.expireToken(bob, a.hmac, -1)).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH.code);
    expect(await manager.expireToken(alice, a.hmac, -1)).toEqual({ errorCode: 0, expiryTimestamp: clock.nowMs() });
    expect(zk.nodes.has(ZkPaths.delegationToken(a.tokenId))).toBe(false);
    expect(manager.cache.token(a.tokenId)).toBeUndefined();
    expect(await manager.expireToken(alice, b.hmac, 10)).toEqual({ errorCode: 0, expiryTimestamp: clock.nowMs() + 10 });
    await manager.expireTokens();
    expect(manager.cache.token(b.tokenId)).toBeDefined();
    clock.advance(11);
    await manager.expireTokens();
    expect(manager.cache.token(b.tokenId)).toBeUndefined();
    expect(zk.nodes.has(ZkPaths.delegationToken(b.tokenId))).toBe(false);
  });

  it('loads stored tokens at start-up, skipping one it cannot read', async () => {
    const { zk, manager } = newManager();
    zk.put(ZkPaths.delegationToken('good'), DelegationTokenInfoZNode.encode({ tokenId: 'good', owner: 'User:alice', renewers: [], issueTimestamp: 1, maxTimestamp: 3, expiryTimestamp: 2 }));
    zk.put(ZkPaths.delegationToken('bad'), '{"version":1}');
    await manager.startup();
    expect(manager.cache.token('good')?.owner).toEqual(alice);
    expect(manager.cache.token('bad')).toBeUndefined();
    expect(manager.getTokens(() => true).map((t) => [t.tokenInfo.tokenId, t.hmac.equals(createTokenHmac('good', 'master-key-1'))])).toEqual([['good', true]]);
  });
});

describe('delegation token request rules (KafkaApis)', () => {
  const connection = (securityProtocol: string, principal: KafkaPrincipal): ConnectionContext => ({
    connectionId: 'c',
    listenerName: 'L',
    securityProtocol,
    clientAddress: '127.0.0.1',
    clientPort: 1,
    clientSoftwareName: 'x',
    clientSoftwareVersion: 'y',
    principal,
  });

  it('refuses PLAINTEXT, one-way TLS and token-authenticated connections', () => {
    expect(allowTokenRequests(connection('PLAINTEXT', ANONYMOUS))).toBe(false);
    expect(allowTokenRequests(connection('SSL', ANONYMOUS))).toBe(false);
    expect(allowTokenRequests(connection('SASL_SSL', { ...alice, tokenAuthenticated: true }))).toBe(false);
    expect(allowTokenRequests(connection('SSL', { principalType: 'User', name: 'CN=client' }))).toBe(true);
    expect(allowTokenRequests(connection('SASL_PLAINTEXT', alice))).toBe(true);
  });

  it('describes the owners asked for, own and renewable tokens, and others only when authorized', () => {
    const token: TokenInformation = { tokenId: 't', owner: alice, renewers: [bob], issueTimestamp: 0, maxTimestamp: 0, expiryTimestamp: 0 };
    const deny = (): boolean => false;
    expect(filterToken(alice, null, token, deny)).toBe(true);
    expect(filterToken(bob, null, token, deny)).toBe(true);
    expect(filterToken(carol, null, token, deny)).toBe(false);
    expect(filterToken(carol, null, token, () => true)).toBe(true);
    expect(filterToken(alice, [carol], token, () => true)).toBe(false);
    expect(filterToken(carol, [bob], token, () => true)).toBe(true);
  });
});

describe('delegation token handlers over a SASL connection', () => {
  const requestContext = (principal: KafkaPrincipal): RequestContext =>
    ({
      header: { apiKey: 38, apiVersion: 2, correlationId: 1, clientId: 'c' },
      connection: { connectionId: 'c', listenerName: 'SASL', securityProtocol: 'SASL_PLAINTEXT', clientAddress: '127.0.0.1', clientPort: 1, clientSoftwareName: 'x', clientSoftwareVersion: 'y', principal },
      requestSize: 0,
      throttleTimeMs: 0,
    }) as RequestContext;

  it('creates, describes, renews and expires with Kafka\'s answers', async () => {
    const { manager } = newManager();
    await manager.startup();
    const h = createDelegationTokenHandlers({ tokenManager: manager } as unknown as HandlerContext, (_ctx, tokenId) => tokenId === 'never');
    const bad = await h.create({ renewers: [{ principalType: 'Group', principalName: 'g' }], maxLifetimeMs: -1 }, requestContext(alice));
    expect(bad).toMatchObject({ errorCode: ErrorCode.INVALID_PRINCIPAL_TYPE.code, principalType: 'User', principalName: 'alice', tokenId: '', issueTimestampMs: -1 });
    const created = await h.create({ renewers: [{ principalType: 'User', principalName: 'bob' }], maxLifetimeMs: -1 }, requestContext(alice));
    expect(created).toMatchObject({ errorCode: 0, principalType: 'User', principalName: 'alice' });
    expect(created.hmac.equals(createTokenHmac(created.tokenId, 'master-key-1'))).toBe(true);
    const mine = await h.describe({ owners: null }, requestContext(alice));
    expect(mine.tokens).toEqual([
      {
        principalType: 'User',
        principalName: 'alice',
        issueTimestamp: created.issueTimestampMs,
        expiryTimestamp: created.expiryTimestampMs,
        maxTimestamp: created.maxTimestampMs,
        tokenId: created.tokenId,
        hmac: created.hmac,
        renewers: [{ principalType: 'User', principalName: 'bob' }],
      },
    ]);
    expect((await h.describe({ owners: null }, requestContext(carol))).tokens).toEqual([]);
    expect((await h.describe({ owners: [] }, requestContext(alice))).tokens).toEqual([]);
    expect((await h.describe({ owners: [{ principalType: 'User', principalName: 'bob' }] }, requestContext(bob))).tokens).toHaveLength(1);
    expect((await h.renew({ hmac: created.hmac, renewPeriodMs: HOUR }, requestContext(carol))).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH.code);
    expect((await h.renew({ hmac: created.hmac, renewPeriodMs: HOUR }, requestContext(bob))).errorCode).toBe(0);
    const tokenAuthenticated = { ...alice, tokenAuthenticated: true };
    expect((await h.expire({ hmac: created.hmac, expiryTimePeriodMs: -1 }, requestContext(tokenAuthenticated))).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code);
    expect((await h.create({ renewers: [], maxLifetimeMs: -1 }, requestContext(tokenAuthenticated))).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code);
    expect((await h.expire({ hmac: created.hmac, expiryTimePeriodMs: -1 }, requestContext(alice))).errorCode).toBe(0);
    expect((await h.describe({ owners: null }, requestContext(alice))).tokens).toEqual([]);
  });

  it('answers DELEGATION_TOKEN_AUTH_DISABLED without a secret key', async () => {
    const { manager } = newManager({ secretKey: null });
    const h = createDelegationTokenHandlers({ tokenManager: manager } as unknown as HandlerContext);
    expect((await h.create({ renewers: [], maxLifetimeMs: -1 }, requestContext(alice))).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code);
    expect(await h.describe({ owners: null }, requestContext(alice))).toEqual({ errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code, tokens: [], throttleTimeMs: 0 });
    expect((await h.renew({ hmac: Buffer.alloc(1), renewPeriodMs: -1 }, requestContext(alice))).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code);
  });
});

describe('delegation.token.* settings', () => {
  const read = (extra: Record<string, string>): DelegationTokenConfig =>
    delegationTokenConfigFrom(KafkaConfig.fromProperties(new Map(Object.entries({ 'zookeeper.connect': 'zk:2181', 'log.dirs': '/tmp/x', ...extra }))));

  it("has Kafka 2.8's defaults, reads secret.key before its deprecated name master.key, and hides the key", () => {
    expect(read({})).toEqual({ secretKey: null, maxLifetimeMs: 604800000, expiryTimeMs: 86400000, expiryCheckIntervalMs: 3600000 });
    expect(read({ 'delegation.token.master.key': 'old' }).secretKey).toBe('old');
    expect(read({ 'delegation.token.master.key': 'old', 'delegation.token.secret.key': 'new' }).secretKey).toBe('new');
    const config = KafkaConfig.fromProperties(new Map(Object.entries({ 'zookeeper.connect': 'zk:2181', 'log.dirs': '/tmp/x', 'delegation.token.master.key': 'top-secret-value' })));
    expect(config.describe()).not.toContain('top-secret-value');
    expect(() => read({ 'delegation.token.max.lifetime.ms': '0' })).toThrow('delegation.token.max.lifetime.ms');
  });
});
