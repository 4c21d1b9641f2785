import fs from 'node:fs';
import path from 'node:path';
import { NetworkClient } from '../../../src/client/network-client';
import { ErrorCode } from '../../../src/common/error-codes';
import { CreateDelegationTokenApi } from '../../../src/protocol/apis/create-delegation-token';
import { DescribeDelegationTokenApi } from '../../../src/protocol/apis/describe-delegation-token';
import { BrokerProcess } from '../../helpers/broker-process';
import { freePort } from '../../helpers/free-port';
import { createChroot } from '../../helpers/create-chroot';
import { runTool } from '../../helpers/run-tool';
import { tmpDir } from '../../helpers/tmp-dir';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { authenticateWithToken } from '../../helpers/scram-token-login';

/*
 * Delegation tokens end to end (KIP-48) on a broker with a SASL_PLAINTEXT listener offering SCRAM-SHA-256: alice
 * (a SCRAM user) creates a token over SASL; a SCRAM login with `tokenauth=true`, the token id as user name and the
 * token's HMAC as password, authenticates as alice; a wrong HMAC is refused (58); a token-authenticated connection
 * may not ask for more tokens (64).
 */
jest.setTimeout(180_000);

let ensemble: ZkEnsemble;
let broker: BrokerProcess;
let saslPort: number;
const clients: NetworkClient[] = [];

function saslClient(username: string, password: string, tokenAuth = false): NetworkClient {
  const c = new NetworkClient({
    bootstrapServers: [`127.0.0.1:${saslPort}`],
    clientId: 'dt-sasl-test',
    security: { securityProtocol: 'SASL_PLAINTEXT' },
    sasl: { mechanism: 'SCRAM-SHA-256', username, password, ...(tokenAuth ? { tokenAuth: true } : {}) },
  });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  ensemble = await startZkEnsemble({ size: 3 });
  const zkConnect = ensemble.connectStringWithChroot(uniqueChroot('dt-sasl'));
  await createChroot(ensemble.connectString, zkConnect.slice(zkConnect.indexOf('/')));
  const user = await runTool('kafka-configs', ['--zookeeper', zkConnect, '--alter', '--add-config', 'SCRAM-SHA-256=[iterations=4096,password=alice-secret]', '--entity-type', 'users', '--entity-name', 'alice']);
  expect(user.code).toBe(0);
  const jaas = path.join(tmpDir('dt-sasl-jaas-'), 'kafka_server_jaas.conf');
  fs.writeFileSync(jaas, 'KafkaServer {\n  org.apache.kafka.common.security.scram.ScramLoginModule required;\n};\n');
  const port = await freePort();
  saslPort = await freePort();
  process.env['KAFKA_OPTS'] = `-Djava.security.auth.login.config=${jaas}`;
  try {
    broker = await BrokerProcess.start({
      brokerId: 0,
      zkConnect,
      port,
      props: {
        listeners: `PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://127.0.0.1:${saslPort}`,
        'sasl.enabled.mechanisms': 'SCRAM-SHA-256',
        'delegation.token.secret.key': 'dt-sasl-secret',
      },
    });
  } finally {
    delete process.env['KAFKA_OPTS'];
  }
});

afterAll(async () => {
  for (const c of clients) c.close();
  await broker?.child.stop();
  await ensemble?.close();
});

describe('delegation tokens over SASL', () => {
  it('creates a token as alice, authenticates with it as alice, refuses a wrong HMAC and token-authenticated requests', async () => {
    const created = await saslClient('alice', 'alice-secret').request('any', CreateDelegationTokenApi, { renewers: [], maxLifetimeMs: -1 });
    expect(created).toMatchObject({ errorCode: 0, principalType: 'User', principalName: 'alice' });
    expect(created.tokenId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    expect(await authenticateWithToken(saslPort, created.tokenId, created.hmac)).toBe(0);
    expect(await authenticateWithToken(saslPort, created.tokenId, Buffer.alloc(created.hmac.length, 7))).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED.code);

    // Logged in with the token: alice's, but no tokens may be asked for over it (Kafka's allowTokenRequests).
    const viaToken = saslClient(created.tokenId, created.hmac.toString('base64'), true);
    expect((await viaToken.request('any', CreateDelegationTokenApi, { renewers: [], maxLifetimeMs: -1 })).errorCode).toBe(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code);
    const described = await saslClient('alice', 'alice-secret').request('any', DescribeDelegationTokenApi, { owners: null });
    expect(described.errorCode).toBe(0);
    expect(described.tokens.map((t) => t.tokenId)).toEqual([created.tokenId]);
  });
});
