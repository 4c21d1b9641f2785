import fs from 'node:fs';
import path from 'node:path';
import { BrokerProcess } from '../../helpers/broker-process';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { creatorAllAcl, OPEN_ACL_UNSAFE, ZkAcl } from '../../../src/zk/zk-acls';
import { ZkClient } from '../../../src/zk/zk-client';
import { ZkError } from '../../../src/zk/zk-error';

const KAFKA = { username: 'kafka', password: 'kafka-secret' };
const OWNER = creatorAllAcl(KAFKA);
const WORLD_READ: ZkAcl = { perms: 1, scheme: 'world', id: 'anyone' };
const SECURE = [OWNER, WORLD_READ];

/** ZooKeeper's answer to a request an unauthenticated session may not make. */
async function zkCode(request: Promise<unknown>): Promise<string> {
  try {
    await request;
    return 'OK';
  } catch (err) {
    if (err instanceof ZkError) return err.code;
    throw err;
  }
}

const sortAcl = (acl: readonly ZkAcl[]): ZkAcl[] => [...acl].sort((a, b) => `${a.scheme}:${a.id}`.localeCompare(`${b.scheme}:${b.id}`));

describe('zookeeper.set.acl: znode ACLs for the brokers and tools, zookeeper-security-migration', () => {
  let ensemble: ZkEnsemble;
  let secured: TestCluster | undefined;
  let open: TestCluster | undefined;
  let anonymous: ZkClient;
  /** Logged in as the brokers: ZooKeeper 3.8 shows digest ids to others masked (`kafka:x`). */
  let owner: ZkClient;
  let kafkaOpts: string;
  const previousOpts = process.env['KAFKA_OPTS'];

  const withOpts = (opts: string | undefined): NodeJS.ProcessEnv => {
    const env = { ...process.env };
    if (opts === undefined) delete env['KAFKA_OPTS'];
    else env['KAFKA_OPTS'] = opts;
    return env;
  };
  const acl = async (p: string): Promise<ZkAcl[]> => sortAcl((await owner.getAcl(p)).acl);

  beforeAll(async () => {
    const dir = tmpDir('zk-acls-');
    const jaas = path.join(dir, 'kafka_server_jaas.conf');
    fs.writeFileSync(jaas, `Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n  username="${KAFKA.username}"\n  password="${KAFKA.password}";\n};\n`);
    kafkaOpts = `-Djava.security.auth.login.config=${jaas}`;
    ensemble = await startZkEnsemble({ size: 3 });
    anonymous = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10000, connectionTimeoutMs: 10000, name: 'anonymous' });
    owner = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10000, connectionTimeoutMs: 10000, name: 'owner', auth: KAFKA });
    // Brokers take KAFKA_OPTS from the environment they are spawned with (the helpers pass process.env on).
    process.env['KAFKA_OPTS'] = kafkaOpts;
    secured = await TestCluster.start({ brokers: 1, ensemble, props: { 'zookeeper.set.acl': 'true' } });
  }, 180000);

  afterAll(async () => {
    if (previousOpts === undefined) delete process.env['KAFKA_OPTS'];
    else process.env['KAFKA_OPTS'] = previousOpts;
    await secured?.close();
    await open?.close();
    anonymous?.close();
    owner?.close();
    await ensemble?.close();
  });

  it('gives what the broker and the tools create world read and the brokers every right; others cannot write', async () => {
    const c = secured as TestCluster;
    const viaTool = await runTool('kafka-topics', ['--zookeeper', c.zkConnect, '--create', '--topic', 'made-by-tool', '--partitions', '1', '--replication-factor', '1', '--config', 'retention.ms=3600000'], { env: withOpts(kafkaOpts) });
    expect(viaTool.output).toContain('Created topic made-by-tool.');
    const viaBroker = await runTool('kafka-topics', ['--bootstrap-server', c.bootstrap, '--create', '--topic', 'made-by-broker', '--partitions', '1', '--replication-factor', '1'], { env: withOpts(undefined) });
    expect(viaBroker.code).toBe(0);
    await c.waitForLeaders('made-by-tool', 1);
    await c.waitForLeaders('made-by-broker', 1);

    const root = c.chroot;
    for (const p of ['', '/brokers', '/brokers/ids', '/brokers/ids/0', '/brokers/topics/made-by-tool', '/brokers/topics/made-by-broker', '/brokers/topics/made-by-broker/partitions/0/state', '/config/topics/made-by-tool', '/controller', '/controller_epoch', '/cluster/id']) {
      expect([`${root}${p}`, await acl(`${root}${p}`)]).toEqual([`${root}${p}`, SECURE]);
    }
    // The sensitive roots have no world read; the old consumer's root stays open.
    expect(await acl(`${root}/config/users`)).toEqual([OWNER]);
    expect(await zkCode(anonymous.getChildren(`${root}/config/users`))).toBe('NOAUTH');
    expect(await acl(`${root}/consumers`)).toEqual([...OPEN_ACL_UNSAFE]);

    // The world reads, and nothing else.
    expect((await anonymous.getData(`${root}/brokers/ids/0`))?.data?.toString()).toContain('"endpoints"');
    expect(await zkCode(anonymous.setData(`${root}/brokers/ids/0`, Buffer.from('{}')))).toBe('NOAUTH');
    expect(await zkCode(anonymous.delete(`${root}/brokers/ids/0`))).toBe('NOAUTH');
    expect(await zkCode(anonymous.setData(`${root}/brokers/topics/made-by-tool`, Buffer.from('{}')))).toBe('NOAUTH');
    expect(await zkCode(anonymous.delete(`${root}/brokers/topics/made-by-broker/partitions/0/state`))).toBe('NOAUTH');
    expect(await zkCode(anonymous.create(`${root}/admin/delete_topics/made-by-tool`, null))).toBe('NOAUTH');
    expect(await zkCode(anonymous.setAcl(`${root}/brokers/ids/0`, OPEN_ACL_UNSAFE))).toBe('NOAUTH');

    // zookeeper-shell shows the same: digests masked until the session adds the brokers' credentials.
    const shell = await runTool('zookeeper-shell', [c.zkConnect], { env: withOpts(undefined), input: `getAcl /brokers/ids/0\naddauth digest ${KAFKA.username}:${KAFKA.password}\ngetAcl /brokers/ids/0\nquit\n` });
    expect(shell.output).toContain("'digest,'kafka:x\n: cdrwa\n'world,'anyone\n: r\n");
    expect(shell.output).toContain(`'digest,'${OWNER.id}\n: cdrwa\n'world,'anyone\n: r\n`);

    // The tools, logged in as the brokers, still can: a deletion goes through.
    const del = await runTool('kafka-topics', ['--zookeeper', c.zkConnect, '--delete', '--topic', 'made-by-tool'], { env: withOpts(kafkaOpts) });
    expect(del.output).toContain('Topic made-by-tool is marked for deletion.');
    await waitUntil(async () => (await anonymous.exists(`${root}/brokers/topics/made-by-tool`)) === null, { timeoutMs: 30000, message: 'the controller to delete made-by-tool' });
  }, 120000);

  it("refuses to start with zookeeper.set.acl=true and no ZooKeeper login, with Kafka's message", async () => {
    process.env['KAFKA_OPTS'] = '-Xmx256m';
    let broker: BrokerProcess;
    try {
      broker = await BrokerProcess.spawn({ brokerId: 7, zkConnect: ensemble.connectStringWithChroot(uniqueChroot('refused')), props: { 'zookeeper.set.acl': 'true' } });
    } finally {
      process.env['KAFKA_OPTS'] = kafkaOpts;
    }
    const exit = await broker.child.exited;
    expect(exit.code).not.toBe(0);
    expect(broker.child.output()).toContain(
      'zookeeper.set.acl is true, but ZooKeeper client TLS configuration identifying at least zookeeper.ssl.client.enable, zookeeper.clientCnxnSocket, and zookeeper.ssl.keystore.location was not present and the verification of the JAAS login file failed [java.security.auth.login.config=null, zookeeper.sasl.client=default:true, zookeeper.sasl.clientconfig=default:Client]',
    );
  }, 60000);

  it('zookeeper-security-migration secures, then opens again, a cluster started without ACLs', async () => {
    // Kafka's migration: the brokers already log in (the JAAS file), with zookeeper.set.acl=false.
    open = await TestCluster.start({ brokers: 1, ensemble, props: { 'zookeeper.set.acl': 'false' } });
    const root = open.chroot;
    const created = await runTool('kafka-topics', ['--bootstrap-server', open.bootstrap, '--create', '--topic', 'migrated', '--partitions', '2', '--replication-factor', '1'], { env: withOpts(undefined) });
    expect(created.code).toBe(0);
    await open.waitForLeaders('migrated', 2);
    const nodes = ['/brokers/ids/0', '/brokers/topics/migrated', '/brokers/topics/migrated/partitions/1/state', '/controller', '/config/changes', '/isr_change_notification'];
    for (const p of nodes) expect(await acl(`${root}${p}`)).toEqual([...OPEN_ACL_UNSAFE]);

    const refused = await runTool('zookeeper-security-migration', ['--zookeeper.acl=secure', `--zookeeper.connect=${open.zkConnect}`], { env: withOpts(undefined) });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('ERROR: No JAAS configuration file has been specified');

    const secure = await runTool('zookeeper-security-migration', ['--zookeeper.acl=secure', '--zookeeper.connect', open.zkConnect], { env: withOpts(kafkaOpts) });
    expect([secure.code, secure.output]).toEqual([0, expect.any(String)]);
    for (const p of ['', ...nodes, '/kafka-acl', '/delegation_token']) expect([p, await acl(`${root}${p}`)]).toEqual([p, SECURE]);
    expect(await acl(`${root}/config/brokers`)).toEqual([OWNER]);
    expect(await zkCode(anonymous.setData(`${root}/brokers/topics/migrated`, Buffer.from('{}')))).toBe('NOAUTH');
    // The broker, logged in as the owner, goes on writing: a new topic gets its partitions.
    const after = await runTool('kafka-topics', ['--bootstrap-server', open.bootstrap, '--create', '--topic', 'after-migration', '--partitions', '1', '--replication-factor', '1'], { env: withOpts(undefined) });
    expect(after.code).toBe(0);
    await open.waitForLeaders('after-migration', 1);

    const unsecure = await runTool('zookeeper-security-migration', ['--zookeeper.acl=unsecure', '--zookeeper.connect', open.zkConnect], { env: withOpts(kafkaOpts) });
    expect([unsecure.code, unsecure.output]).toEqual([0, expect.any(String)]);
    for (const p of ['', ...nodes, '/config/brokers']) expect([p, await acl(`${root}${p}`)]).toEqual([p, [...OPEN_ACL_UNSAFE]]);
  }, 180000);
});
