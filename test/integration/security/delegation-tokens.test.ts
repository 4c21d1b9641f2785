import fs from 'node:fs';
import path from 'node:path';
import { NetworkClient } from '../../../src/client/network-client';
import { ErrorCode } from '../../../src/common/error-codes';
import { CreateDelegationTokenApi } from '../../../src/protocol/apis/create-delegation-token';
import { DescribeDelegationTokenApi } from '../../../src/protocol/apis/describe-delegation-token';
import { ExpireDelegationTokenApi } from '../../../src/protocol/apis/expire-delegation-token';
import { RenewDelegationTokenApi } from '../../../src/protocol/apis/renew-delegation-token';
import { createTokenHmac } from '../../../src/security/delegation-token';
import { DelegationTokenConfig, DelegationTokenManager } from '../../../src/security/delegation-token-manager';
import { KafkaPrincipal } from '../../../src/security/kafka-principal';
import { ClusterZk } from '../../../src/zk/cluster-zk';
import { ZkClient } from '../../../src/zk/zk-client';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { uniqueChroot } from '../../helpers/zk-ensemble';

const SECRET = 'delegation-secret-1';
const alice: KafkaPrincipal = { principalType: 'User', name: 'alice' };
const bob: KafkaPrincipal = { principalType: 'User', name: 'bob' };
const NOT_ALLOWED = ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED;

describe('delegation tokens (KIP-48) with a real ZooKeeper ensemble and broker', () => {
  let cluster: TestCluster;
  let client: NetworkClient;
  const zks: ZkClient[] = [];
  const managers: DelegationTokenManager[] = [];

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1, props: { 'delegation.token.master.key': SECRET } });
    client = new NetworkClient({ bootstrapServers: [cluster.bootstrap], clientId: 'dt-test' });
  }, 180_000);

  afterAll(async () => {
    client?.close();
    for (const m of managers) m.shutdown();
    for (const zk of zks) zk.close();
    await cluster?.close();
  });

  /** A manager as a broker runs it, on its own ZooKeeper session in `connect`'s chroot. */
  async function newManager(connect: string, brokerId: number, overrides: Partial<DelegationTokenConfig> = {}): Promise<DelegationTokenManager> {
    const zk = await ZkClient.connect({ connectString: connect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000 });
    zks.push(zk);
    const manager = new DelegationTokenManager(zk, { secretKey: SECRET, maxLifetimeMs: 7 * 86_400_000, expiryTimeMs: 86_400_000, expiryCheckIntervalMs: 3_600_000, ...overrides }, brokerId);
    managers.push(manager);
    await manager.startup();
    return manager;
  }

  it('creates /delegation_token/{tokens,token_changes} at broker start-up when a key is configured', async () => {
    expect(await cluster.zk.exists(`${cluster.chroot}/delegation_token/tokens`)).not.toBeNull();
    expect(await cluster.zk.exists(`${cluster.chroot}/delegation_token/token_changes`)).not.toBeNull();
  });

  it('refuses every version of the four APIs on a PLAINTEXT connection with DELEGATION_TOKEN_REQUEST_NOT_ALLOWED', async () => {
    const hmac = createTokenHmac('whatever', SECRET);
    for (let version = 0; version <= 2; version++) {
      const create = await client.request('any', CreateDelegationTokenApi, { renewers: [], maxLifetimeMs: -1 }, { version });
      expect(create).toMatchObject({ errorCode: NOT_ALLOWED.code, principalType: 'User', principalName: 'ANONYMOUS', tokenId: '', issueTimestampMs: -1, maxTimestampMs: -1 });
      expect(create.hmac.length).toBe(0);
      expect(await client.request('any', RenewDelegationTokenApi, { hmac, renewPeriodMs: -1 }, { version })).toMatchObject({ errorCode: NOT_ALLOWED.code, expiryTimestampMs: -1 });
      expect(await client.request('any', ExpireDelegationTokenApi, { hmac, expiryTimePeriodMs: -1 }, { version })).toMatchObject({ errorCode: NOT_ALLOWED.code, expiryTimestampMs: -1 });
      expect(await client.request('any', DescribeDelegationTokenApi, { owners: null }, { version })).toMatchObject({ errorCode: NOT_ALLOWED.code, tokens: [] });
    }
  });

  it('kafka-delegation-tokens prints Kafka\'s error line and exits 1 on a PLAINTEXT listener', async () => {
    const config = path.join(tmpDir('dt-tool-'), 'client.properties');
    fs.writeFileSync(config, 'request.timeout.ms=10000\n');
    const create = await runTool('kafka-delegation-tokens', ['--bootstrap-server', cluster.bootstrap, '--command-config', config, '--create', '--max-life-time-period', '-1', '--renewer-principal', 'User:bob']);
    expect(create.code).toBe(1);
    expect(create.output).toContain('Calling create token operation with renewers :[User:bob] , max-life-time-period :-1\n');
    expect(create.output).toContain(`Error while executing delegation token command : org.apache.kafka.common.errors.UnsupportedByAuthenticationException: ${NOT_ALLOWED.message}`);
    const describe = await runTool('kafka-delegation-tokens', ['--bootstrap-server', cluster.bootstrap, '--command-config', config, '--describe']);
    expect(describe.code).toBe(1);
    expect(describe.output).toContain('Calling describe token operation for current user.\n');
    expect(describe.output).toContain('UnsupportedByAuthenticationException');
    const usage = await runTool('kafka-delegation-tokens', ['--bootstrap-server', cluster.bootstrap, '--command-config', config, '--renew', '--hmac', 'abc']);
    expect(usage.code).toBe(1);
    expect(usage.output).toContain('Missing required argument "[renew-time-period]"');
  }, 60_000);

  it('stores tokens in ZooKeeper and propagates create, renew and expire to another broker through token_changes', async () => {
    const connect = cluster.ensemble.connectStringWithChroot(uniqueChroot('dt'));
    await ClusterZk.ensureChroot(connect, 10_000, 10_000);
    const a = await newManager(connect, 1);
    const b = await newManager(connect, 2);
    const created = await a.createToken(alice, [bob], -1);
    expect(created.errorCode).toBe(0);
    const inspect = zks[0] as ZkClient;
    const stored = await inspect.getData(`/delegation_token/tokens/${created.tokenId}`);
    expect(JSON.parse(stored?.data?.toString('utf8') ?? '{}')).toEqual({
      version: 1,
      owner: 'User%3Aalice',
      renewers: ['User%3Abob'],
      issueTimestamp: created.issueTimestamp,
      maxTimestamp: created.maxTimestamp,
      expiryTimestamp: created.expiryTimestamp,
      tokenId: created.tokenId,
    });
    // The other broker derives the same HMAC, so the owner can renew there with what the create answered.
    await waitUntil(() => b.cache.token(created.tokenId), { message: 'the token in the second broker\'s cache' });
    expect(b.cache.credential(created.tokenId, 'SCRAM-SHA-512')).toBeDefined();
    expect(b.cache.tokenOwner(created.tokenId)).toBe('alice');
    const renewed = await b.renewToken(bob, created.hmac, 3_600_000);
    expect(renewed.errorCode).toBe(0);
    await waitUntil(() => a.cache.token(created.tokenId)?.expiryTimestamp === renewed.expiryTimestamp, { message: 'the renewal on the first broker' });
    // A third broker starting now loads the token from ZooKeeper.
    const c = await newManager(connect, 3);
    expect(c.cache.token(created.tokenId)?.expiryTimestamp).toBe(renewed.expiryTimestamp);
    expect((await a.expireToken(alice, created.hmac, -1)).errorCode).toBe(0);
    await waitUntil(() => b.cache.token(created.tokenId) === undefined && c.cache.token(created.tokenId) === undefined, { message: 'the expired token gone from the other caches' });
    expect(await inspect.exists(`/delegation_token/tokens/${created.tokenId}`)).toBeNull();
  }, 60_000);

  it('removes tokens past their expiry on expireTokens (the controller\'s task), everywhere', async () => {
    const connect = cluster.ensemble.connectStringWithChroot(uniqueChroot('dt-expiry'));
    await ClusterZk.ensureChroot(connect, 10_000, 10_000);
    const controller = await newManager(connect, 1);
    const other = await newManager(connect, 2);
    const shortLived = await controller.createToken(alice, [], 300);
    const longLived = await controller.createToken(alice, [], -1);
    await waitUntil(() => other.cache.token(shortLived.tokenId) && other.cache.token(longLived.tokenId), { message: 'both tokens on the other broker' });
    // Each round removes what has expired by then; the short token's max is 300 ms after its issue.
    await waitUntil(async () => {
      await controller.expireTokens();
      return controller.cache.token(shortLived.tokenId) === undefined;
    }, { message: 'the short-lived token expired' });
    expect(Date.now()).toBeGreaterThan(shortLived.maxTimestamp);
    await waitUntil(() => other.cache.token(shortLived.tokenId) === undefined, { message: 'the expired token gone from the other broker' });
    expect(other.cache.token(longLived.tokenId)).toBeDefined();
    expect((await other.renewToken(alice, shortLived.hmac, -1)).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_NOT_FOUND.code);
  }, 60_000);
});
