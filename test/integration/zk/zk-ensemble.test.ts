import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { spawnChild } from '../../helpers/child-processes';
import { freePort, freePorts } from '../../helpers/free-port';
import { zkMode } from '../../helpers/four-letter-word';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, startZkStandalone } from '../../helpers/zk-ensemble';
import { locateZooKeeper, ZooKeeperNotInstalledError } from '../../../src/tools/zookeeper-locator';

const repo = path.resolve(__dirname, '../../..');
const startTool = path.join(repo, 'bin/zookeeper-server-start.ts');
const stopTool = path.join(repo, 'bin/zookeeper-server-stop.ts');
const QUORUM_PEER_MAIN = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';

/** Pids of ZooKeeper java processes whose command line mentions `text` (checked by pid, so pid reuse is harmless). */
function zookeeperPids(text: string): number[] {
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).flatMap((e) => {
    try {
      const cmdline = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8');
      return cmdline.includes(QUORUM_PEER_MAIN) && cmdline.includes(text) ? [Number(e)] : [];
    } catch {
      return [];
    }
  });
}

function isZookeeperProcess(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(QUORUM_PEER_MAIN);
  } catch {
    return false;
  }
}

describe('locateZooKeeper', () => {
  const { PATH } = process.env;

  it("finds Debian's package, with a logging binding", () => {
    const { java, classpath } = locateZooKeeper({ PATH });
    expect(path.basename(java)).toBe('java');
    expect(classpath.slice(0, 2)).toEqual(['/etc/zookeeper/conf', '/usr/share/java/zookeeper.jar']);
    expect(classpath).toContain('/usr/share/java/slf4j-log4j12.jar');
  });

  it('uses the tarball layout under ZOOKEEPER_HOME, and says how to fix a bad one', () => {
    const home = tmpDir('kafka-ts-zk-home-');
    fs.mkdirSync(path.join(home, 'conf'));
    fs.mkdirSync(path.join(home, 'lib'));
    for (const jar of ['zookeeper-3.8.4.jar', 'zookeeper-jute-3.8.4.jar', 'logback-classic-1.2.13.jar']) fs.writeFileSync(path.join(home, 'lib', jar), '');
    const { classpath } = locateZooKeeper({ PATH, ZOOKEEPER_HOME: home });
    expect(classpath).toEqual([path.join(home, 'conf'), ...['logback-classic-1.2.13.jar', 'zookeeper-3.8.4.jar', 'zookeeper-jute-3.8.4.jar'].map((j) => path.join(home, 'lib', j))]);

    const empty = tmpDir('kafka-ts-zk-home-');
    expect(() => locateZooKeeper({ PATH, ZOOKEEPER_HOME: empty })).toThrow(ZooKeeperNotInstalledError);
    expect(() => locateZooKeeper({ PATH, ZOOKEEPER_HOME: empty })).toThrow(/has no zookeeper\*\.jar.*apt-get install -y zookeeper/);
  });

  it('says how to install Java when there is none', () => {
    expect(() => locateZooKeeper({ PATH: '/nonexistent' })).toThrow(/^Java is not installed.*apt-get install -y zookeeper/);
    expect(() => locateZooKeeper({ PATH, JAVA_HOME: '/nonexistent' })).toThrow('JAVA_HOME=/nonexistent has no bin/java');
  });
});

describe('startZkEnsemble', () => {
  it('forms a quorum, elects a new leader when the leader stops, takes the node back as follower, and cleans up', async () => {
    const startedAt = Date.now();
    const ensemble = await startZkEnsemble({ size: 3, chroot: '/kafka' });
    process.stderr.write(`3-node ZooKeeper ensemble up in ${Date.now() - startedAt} ms\n`);
    try {
      const ports = ensemble.nodes.map((n) => n.clientPort);
      expect(new Set(ports).size).toBe(3);
      expect(ensemble.connectString).toBe(`${ports.map((p) => `127.0.0.1:${p}`).join(',')}/kafka`);
      expect(ensemble.connectStringWithChroot('/t-1')).toBe(`${ports.map((p) => `127.0.0.1:${p}`).join(',')}/t-1`);

      const modes = await Promise.all([0, 1, 2].map((i) => ensemble.mode(i)));
      expect([...modes].sort()).toEqual(['follower', 'follower', 'leader']);
      const leader = await ensemble.leaderIndex();
      expect(leader).toBe(modes.indexOf('leader'));

      const oldLeader = leader as number;
      const oldLeaderPid = ensemble.nodes[oldLeader]?.pid as number;
      await ensemble.stop(oldLeader);
      expect(ensemble.isRunning(oldLeader)).toBe(false);
      expect(isZookeeperProcess(oldLeaderPid)).toBe(false);
      const newLeader = await waitUntil(
        async () => {
          const index = await ensemble.leaderIndex();
          return index !== oldLeader ? index : undefined;
        },
        { timeoutMs: 20000, message: 'a new leader among the two remaining servers' },
      );
      expect(await ensemble.mode(newLeader)).toBe('leader');
      expect(await ensemble.mode(oldLeader)).toBeUndefined();

      await ensemble.restart(oldLeader);
      expect(await ensemble.mode(oldLeader)).toBe('follower');
      expect(await ensemble.leaderIndex()).toBe(newLeader);

      // A crashed follower (SIGKILL) leaves a quorum of two.
      const follower = [0, 1, 2].find((i) => i !== newLeader) as number;
      await ensemble.stop(follower, { signal: 'SIGKILL' });
      expect(ensemble.isRunning(follower)).toBe(false);
      await ensemble.waitForQuorum({ timeoutMs: 20000 });
      expect(await ensemble.leaderIndex()).toBe(newLeader);
    } finally {
      const pids = ensemble.nodes.flatMap((n) => (n.pid === undefined ? [] : [n.pid]));
      const dirs = ensemble.nodes.map((n) => n.dataDir);
      await ensemble.close();
      expect(pids.filter(isZookeeperProcess)).toEqual([]);
      expect(dirs.some((d) => fs.existsSync(d))).toBe(false);
    }
  });

  it('starts a standalone server', async () => {
    const zk = await startZkStandalone();
    try {
      expect(await zk.mode(0)).toBe('standalone');
      expect(await zk.leaderIndex()).toBe(0);
    } finally {
      await zk.close();
    }
  });
});

describe('bin/zookeeper-server-start and bin/zookeeper-server-stop', () => {
  const dir = tmpDir('kafka-ts-zk-tools-');
  // Small JVM, and this test's config paths in every command line, so only this file's servers are touched.
  const env = { ...process.env, KAFKA_HEAP_OPTS: '-Xmx128m', KAFKA_JVM_PERFORMANCE_OPTS: '-XX:+UseSerialGC -XX:TieredStopAtLevel=1', LOG_DIR: path.join(dir, 'logs') };

  afterAll(() => {
    // The tools' java children are not ours to register: make sure none outlives the file.
    for (const pid of zookeeperPids(dir)) process.kill(pid, 'SIGKILL');
  });

  async function writeStandaloneConfig(name: string): Promise<{ file: string; port: number }> {
    const port = await freePort();
    const file = path.join(dir, `${name}.properties`);
    const lines = [`dataDir=${path.join(dir, name)}`, `clientPort=${port}`, 'clientPortAddress=127.0.0.1', 'maxClientCnxns=0', 'admin.enableServer=false', '4lw.commands.whitelist=srvr,ruok,stat'];
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    return { file, port };
  }

  function run(tool: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(tool, args, { env, encoding: 'utf8', timeout: 30000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('prints usage for --help and one line for a bad command line', () => {
    for (const tool of [startTool, stopTool]) {
      const help = run(tool, ['--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^Usage: zookeeper-server-(start|stop)/);
    }
    for (const [tool, args] of [[startTool, []], [startTool, ['--no-such-option', 'x.properties']], [startTool, ['a', 'b']], [stopTool, ['--no-such-option']]] as const) {
      const result = run(tool, [...args]);
      expect(result.status).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('refuses an ensemble member without myid, and writes it with --myid', async () => {
    const [clientPort, ...peerPorts] = await freePorts(5);
    const file = path.join(dir, 'member.properties');
    const dataDir = path.join(dir, 'member');
    const myidFile = path.join(dataDir, 'myid');
    const servers = [1, 2].map((id) => `server.${id}=127.0.0.1:${peerPorts[2 * id - 2]}:${peerPorts[2 * id - 1]}`);
    fs.writeFileSync(file, [`dataDir=${dataDir}`, `clientPort=${clientPort}`, 'tickTime=500', 'initLimit=10', 'syncLimit=5', 'admin.enableServer=false', ...servers, ''].join('\n'));
    const missing = run(startTool, [file]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`${myidFile} is missing: a member of an ensemble needs its server id there; create it or pass --myid N\n`);
    const wrong = run(startTool, [file, '--myid', '3']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(myidFile)).toBe(false);

    // Server 2 alone has no quorum, but it runs (electing) with the id it was given.
    const tool = spawnChild(startTool, [file, '--myid', '2'], { env, name: 'zookeeper-server-start' });
    await tool.waitForLine(/Starting quorum peer, myid=2$/, { timeoutMs: 30000 });
    expect(fs.readFileSync(myidFile, 'utf8')).toBe('2\n');
    await tool.stop();
    const again = run(startTool, [file, '--myid', '1']);
    expect(again.stderr).toBe(`${myidFile} says 2, not 1: remove it or pass --myid 2\n`);
  });

  it('runs a standalone server in the foreground and exits with its code on SIGTERM', async () => {
    const { file, port } = await writeStandaloneConfig('foreground');
    const tool = spawnChild(startTool, [file], { env, name: 'zookeeper-server-start' });
    await waitUntil(async () => (await zkMode('127.0.0.1', port)) === 'standalone', { timeoutMs: 30000, message: `standalone ZooKeeper on port ${port}` });
    await tool.waitForLine(/binding to port .*:\d+/, { timeoutMs: 5000 }); // ZooKeeper's own log reaches stdout
    const [javaPid] = zookeeperPids(file);
    expect(zookeeperPids(file)).toHaveLength(1);

    const exit = await tool.stop({ signal: 'SIGTERM', graceMs: 10000 });
    expect(exit).toEqual({ code: 143, signal: null }); // java's 128 + SIGTERM, passed on
    expect(isZookeeperProcess(javaPid as number)).toBe(false);
  });

  it('takes ZooKeeper down with it when killed outright', async () => {
    const { file, port } = await writeStandaloneConfig('killed');
    const tool = spawnChild(startTool, [file], { env, name: 'zookeeper-server-start' });
    await waitUntil(async () => (await zkMode('127.0.0.1', port)) === 'standalone', { timeoutMs: 30000, message: `standalone ZooKeeper on port ${port}` });
    expect(zookeeperPids(file)).toHaveLength(1);
    await tool.stop({ signal: 'SIGKILL' });
    await waitUntil(() => zookeeperPids(file).length === 0, { timeoutMs: 10000, message: 'java to follow its killed parent' });
  });

  it('stops servers with zookeeper-server-stop, and says when there is none', async () => {
    const { file, port } = await writeStandaloneConfig('stopped');
    const tool = spawnChild(startTool, [file], { env, name: 'zookeeper-server-start' });
    await waitUntil(async () => (await zkMode('127.0.0.1', port)) === 'standalone', { timeoutMs: 30000, message: `standalone ZooKeeper on port ${port}` });

    // --cmdline-contains (hidden) keeps the tool away from every other ZooKeeper on the machine.
    const stopped = run(stopTool, ['--cmdline-contains', file]);
    expect(stopped).toEqual({ status: 0, stdout: '', stderr: '' });
    expect((await tool.exited).code).toBe(143);

    const none = run(stopTool, ['--cmdline-contains', file]);
    expect(none).toEqual({ status: 1, stdout: 'No zookeeper server to stop\n', stderr: '' });
  });

  it('detaches with -daemon, its output in $LOG_DIR/zookeeper.out', async () => {
    const { file, port } = await writeStandaloneConfig('daemon');
    expect(run(startTool, ['-daemon', file])).toEqual({ status: 0, stdout: '', stderr: '' });
    await waitUntil(async () => (await zkMode('127.0.0.1', port)) === 'standalone', { timeoutMs: 30000, message: `daemon ZooKeeper on port ${port}` });
    expect(fs.readFileSync(path.join(dir, 'logs', 'zookeeper.out'), 'utf8')).toMatch(/Reading configuration from: .*daemon\.properties/);
    expect(run(stopTool, ['--cmdline-contains', file]).status).toBe(0);
    await waitUntil(() => zookeeperPids(file).length === 0, { timeoutMs: 10000, message: 'the daemon ZooKeeper to exit' });
  });
});
