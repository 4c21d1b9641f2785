import fs from 'node:fs';
import path from 'node:path';
import { BrokerProcess } from '../../helpers/broker-process';
import { freePort } from '../../helpers/free-port';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { inspectZk, readJson } from '../../helpers/zk-inspect';
import { fourLetterWord } from '../../helpers/four-letter-word';
import { ZkClient } from '../../../src/zk/zk-client';

const SESSION_TIMEOUT_MS = 4000;

describe('broker start-up and registration in a real 3-node ZooKeeper ensemble', () => {
  let ensemble: ZkEnsemble;
  let zk: ZkClient;

  beforeAll(async () => {
    ensemble = await startZkEnsemble({ size: 3 });
    zk = await inspectZk(ensemble.connectString);
  }, 90000);

  afterAll(async () => {
    zk?.close();
    await ensemble?.close();
  });

  function chrooted(): { chroot: string; connect: string } {
    const chroot = uniqueChroot('reg');
    return { chroot, connect: ensemble.connectStringWithChroot(chroot) };
  }

  it('registers /brokers/ids/<id> with Kafka 2.x JSON, creates the cluster id, paths and meta.properties', async () => {
    const { chroot, connect } = chrooted();
    const broker = await BrokerProcess.start({ brokerId: 7, zkConnect: connect });
    const reg = await readJson(zk, `${chroot}/brokers/ids/7`);
    expect(reg).toEqual({
      features: {},
      listener_security_protocol_map: { PLAINTEXT: 'PLAINTEXT' },
      endpoints: [`PLAINTEXT://127.0.0.1:${broker.port}`],
      jmx_port: -1,
      port: broker.port,
      host: '127.0.0.1',
      version: 5,
      timestamp: expect.stringMatching(/^\d{13}$/),
    });
    const stat = await zk.exists(`${chroot}/brokers/ids/7`);
    expect(stat?.ephemeralOwner).not.toBe('0');

    const cluster = await readJson(zk, `${chroot}/cluster/id`);
    expect(cluster).toEqual({ version: '1', id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
    for (const p of ['/consumers', '/brokers/topics', '/config/changes', '/config/topics', '/admin/delete_topics', '/isr_change_notification']) {
      expect(await zk.exists(`${chroot}${p}`)).not.toBeNull();
    }
    const meta = fs.readFileSync(path.join(broker.logDirs[0] as string, 'meta.properties'), 'utf8');
    expect(meta).toContain(`cluster.id=${String(cluster?.['id'])}\n`);
    expect(meta).toContain('version=0\n');
    expect(meta).toContain('broker.id=7\n');

    const log = broker.readLog();
    expect(log).toMatch(/\] INFO Cluster ID = \S{22} \(kafka\.server\.KafkaServer\)\n/);
    expect(log).toMatch(/INFO Registered broker 7 at path \/brokers\/ids\/7 with addresses: PLAINTEXT:\/\/127\.0\.0\.1:\d+, czxid \(broker epoch\): \d+ \(kafka\.zk\.KafkaZkClient\)/);
    expect(log).toMatch(/\] INFO \[KafkaServer id=7\] started \(kafka\.server\.KafkaServer\)\n/);
    await broker.child.stop();
  });

  it('removes its node at once on SIGTERM and exits 0 after a clean shutdown', async () => {
    const { chroot, connect } = chrooted();
    const broker = await BrokerProcess.start({ brokerId: 1, zkConnect: connect });
    expect(await zk.exists(`${chroot}/brokers/ids/1`)).not.toBeNull();
    const exit = await broker.child.stop({ signal: 'SIGTERM', graceMs: 15000 });
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await zk.exists(`${chroot}/brokers/ids/1`)).toBeNull();
    expect(broker.readLog()).toMatch(/\[KafkaServer id=1\] shut down completed/);
  });

  it('loses its node within the session timeout after SIGKILL', async () => {
    const { chroot, connect } = chrooted();
    const broker = await BrokerProcess.start({ brokerId: 2, zkConnect: connect });
    const killedAt = Date.now();
    await broker.child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => (await zk.exists(`${chroot}/brokers/ids/2`)) === null, {
      timeoutMs: SESSION_TIMEOUT_MS + 4000,
      message: 'the ephemeral node of a killed broker to expire',
    });
    expect(Date.now() - killedAt).toBeLessThan(SESSION_TIMEOUT_MS + 4000);
  });

  it('refuses a second broker with the id of a live one', async () => {
    const { chroot, connect } = chrooted();
    const first = await BrokerProcess.start({ brokerId: 3, zkConnect: connect });
    const owner = (await zk.exists(`${chroot}/brokers/ids/3`))?.ephemeralOwner;
    const second = await BrokerProcess.spawn({ brokerId: 3, zkConnect: connect });
    const exit = await second.child.exited;
    expect(exit.code).not.toBe(0);
    expect(second.child.output()).toMatch(/Error while creating ephemeral at \/brokers\/ids\/3, node already exists and owner '\d+' does not match current session '\d+'/);
    expect(second.child.output()).toMatch(/Fatal error during KafkaServer startup\. Prepare to shutdown/);
    expect((await zk.exists(`${chroot}/brokers/ids/3`))?.ephemeralOwner).toBe(owner);
    expect(first.child.isRunning()).toBe(true);
    await first.child.stop();
  });

  it('re-registers after its ZooKeeper session expires', async () => {
    const { chroot, connect } = chrooted();
    const broker = await BrokerProcess.start({ brokerId: 4, zkConnect: connect });
    const path4 = `${chroot}/brokers/ids/4`;
    const before = await zk.exists(path4);
    // A stopped process cannot heartbeat: ZooKeeper expires its session and deletes the ephemeral node.
    broker.child.signal('SIGSTOP');
    try {
      await waitUntil(async () => (await zk.exists(path4)) === null, { timeoutMs: SESSION_TIMEOUT_MS + 6000, message: 'the session to expire' });
    } finally {
      broker.child.signal('SIGCONT');
    }
    const after = await waitUntil(async () => zk.exists(path4), { timeoutMs: 20000, message: 'the broker to re-register' });
    expect(after.ephemeralOwner).not.toBe(before?.ephemeralOwner);
    expect(after.czxid).toBeGreaterThan(before?.czxid ?? 0);
    await waitUntil(() => /Session expired\./.test(broker.readLog()), { message: 'the expiry to be logged' });
    // The znode is created before its log line is written (the log's lines of one turn go out together when it
    // yields), so the second line is waited for, not expected at once.
    const registrations = (): number => (broker.readLog().match(/Registered broker 4 at path/g) ?? []).length;
    await waitUntil(() => registrations() >= 2, { message: 'the re-registration to be logged' });
    expect(registrations()).toBe(2);
    await broker.child.stop();
  });

  it('refuses to start when a log dir belongs to another broker id or another cluster', async () => {
    const { connect } = chrooted();
    const first = await BrokerProcess.start({ brokerId: 5, zkConnect: connect });
    await first.child.stop();
    const wrongId = await BrokerProcess.spawn({ brokerId: 6, zkConnect: connect, logDirs: first.logDirs });
    expect((await wrongId.child.exited).code).not.toBe(0);
    expect(wrongId.child.output()).toMatch(/Configured broker\.id 6 doesn't match stored broker\.id 5 in meta\.properties/);

    const otherCluster = chrooted();
    const wrongCluster = await BrokerProcess.spawn({ brokerId: 5, zkConnect: otherCluster.connect, logDirs: first.logDirs });
    expect((await wrongCluster.child.exited).code).not.toBe(0);
    expect(wrongCluster.child.output()).toMatch(/The Cluster ID \S+ doesn't match stored clusterId Some\(\S+\) in meta\.properties\. The broker is trying to join the wrong cluster\./);
  });

  it('refuses to start when ZooKeeper is unreachable within zookeeper.connection.timeout.ms', async () => {
    const deadPort = await freePort();
    const started = Date.now();
    const broker = await BrokerProcess.spawn({
      brokerId: 8,
      zkConnect: `127.0.0.1:${deadPort}`,
      props: { 'zookeeper.connection.timeout.ms': '1500' },
    });
    const exit = await broker.child.exited;
    expect(exit.code).not.toBe(0);
    expect(broker.child.output()).toMatch(/Timed out waiting for connection while in state: CONNECTING/);
    expect(Date.now() - started).toBeLessThan(20000);
  });

  it('refuses an invalid property, naming key, value and rule', async () => {
    const { connect } = chrooted();
    const broker = await BrokerProcess.spawn({ brokerId: 9, zkConnect: connect, props: { 'num.partitions': 'zero' } });
    const exit = await broker.child.exited;
    expect(exit.code).toBe(1);
    expect(broker.child.output()).toMatch(/Invalid value zero for configuration num\.partitions: Not a number of type INT/);
  });

  it('stays registered when one ZooKeeper server is lost', async () => {
    const { chroot, connect } = chrooted();
    const broker = await BrokerProcess.start({ brokerId: 10, zkConnect: connect });
    const owner = (await zk.exists(`${chroot}/brokers/ids/10`))?.ephemeralOwner;
    const sessionHex = `0x${BigInt(owner ?? '0').toString(16)}`;
    for (const index of [0, 1, 2]) {
      await ensemble.stop(index, { signal: 'SIGKILL' });
      // Watch for more than a session timeout, through the ZooKeeper leader's `dump` (sessions and their
      // ephemeral nodes), so that no ZooKeeper client in this process is part of what is tested: the node must
      // stay owned by the broker's original session, which means the broker moved that session to a survivor.
      const until = Date.now() + SESSION_TIMEOUT_MS + 1500;
      await waitUntil(
        async () => {
          const leader = await ensemble.leaderIndex();
          if (leader === undefined) return false;
          const node = ensemble.nodes[leader] as (typeof ensemble.nodes)[number];
          const dump = await fourLetterWord(node.host, node.clientPort, 'dump');
          const held = new RegExp(`${sessionHex}:\\n(\\t[^\\n]*\\n)*?\\t${chroot}/brokers/ids/10\\n`);
          if (!held.test(dump)) throw new Error(`registration lost or replaced:\n${dump}`);
          return Date.now() > until;
        },
        { timeoutMs: SESSION_TIMEOUT_MS + 30000, intervalMs: 250, message: 'the registration to outlive the loss of a server' },
      );
      await ensemble.restart(index);
    }
    expect(broker.child.isRunning()).toBe(true);
    expect(broker.readLog()).not.toMatch(/Session expired/);
    await broker.child.stop();
  });
});
