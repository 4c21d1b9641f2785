import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SMALL_ZOOKEEPER_JVM_OPTIONS, writeZooKeeperConfig } from '../../src/embedded/zookeeper-config';
import { locateZooKeeper, quorumPeerMainArgs } from '../../src/tools/zookeeper-locator';
import type { ZooKeeperInstallation } from '../../src/tools/zookeeper-locator';
import { describeExit, spawnChild, TestChild } from './child-processes';
import { zkMode, ZkMode } from './four-letter-word';
import { freePorts } from './free-port';
import { removeTmpDir, tmpDir } from './tmp-dir';
import { waitUntil } from './wait-until';
import { normalizeChroot } from './zk-ensemble-contract';
import type { ZkEnsemble, ZkEnsembleOptions, ZkNode } from './zk-ensemble-contract';

export type { ZkEnsemble, ZkEnsembleOptions, ZkNode } from './zk-ensemble-contract';

/** A fresh chroot for one test, so tests sharing an ensemble do not see each other's znodes. */
export function uniqueChroot(prefix = 'test'): string {
  return `/${prefix}-${randomBytes(6).toString('hex')}`;
}

/**
 * Starts `size` real ZooKeeper servers (QuorumPeerMain, Java) on 127.0.0.1 with free ports and temporary data,
 * and resolves when they form a quorum. With KAFKA_TS_ZK_DOCKER=1 and a reachable Docker engine it runs the
 * official zookeeper:3.8 image instead. Every process and directory is also cleaned up at the end of the test
 * file, but tests should close() what they start.
 */
export async function startZkEnsemble(options: ZkEnsembleOptions = {}): Promise<ZkEnsemble> {
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 1 || size > 255) throw new Error(`startZkEnsemble: size must be 1..255, got ${size}`);
  if (process.env['KAFKA_TS_ZK_DOCKER'] === '1') {
    const docker = await import('./zk-ensemble-docker');
    if (await docker.dockerIsReachable()) return docker.startDockerZkEnsemble(size, options);
    process.stderr.write('KAFKA_TS_ZK_DOCKER=1 but no Docker engine is reachable: using the local ZooKeeper installation\n');
  }
  return LocalZkEnsemble.start(size, false, options);
}

/** One server without `server.N=` lines: ZooKeeper's standalone mode (srvr says "Mode: standalone"). */
export async function startZkStandalone(options: Omit<ZkEnsembleOptions, 'size'> = {}): Promise<ZkEnsemble> {
  return LocalZkEnsemble.start(1, true, options);
}

interface LocalNode extends ZkNode {
  child: TestChild | undefined;
}

class LocalZkEnsemble implements ZkEnsemble {
  private closed = false;

  private constructor(
    private readonly installation: ZooKeeperInstallation,
    private readonly baseDir: string,
    readonly nodes: LocalNode[],
    private readonly chroot: string,
    private readonly timeoutMs: number,
  ) {}

  static async start(size: number, standalone: boolean, options: ZkEnsembleOptions): Promise<LocalZkEnsemble> {
    // Throws "ZooKeeper is not installed: run 'sudo apt-get install -y zookeeper' (or set ZOOKEEPER_HOME)".
    const installation = locateZooKeeper();
    const baseDir = tmpDir('kafka-ts-zk-');
    const ports = await freePorts(size * (options.tls === undefined ? 3 : 4));
    const port = (i: number): number => ports[i] as number;
    const servers = standalone ? [] : Array.from({ length: size }, (_, i) => `server.${i + 1}=127.0.0.1:${port(3 * i + 1)}:${port(3 * i + 2)}`);
    const nodes: LocalNode[] = [];
    for (let i = 0; i < size; i++) {
      const nodeDir = path.join(baseDir, `zk-${i + 1}`);
      const clientPort = port(3 * i);
      const secure = options.tls === undefined ? undefined : { port: port(3 * size + i), ...options.tls };
      const { dataDir, configFile } = writeZooKeeperConfig({ dir: nodeDir, clientAddress: '127.0.0.1', clientPort, servers, myid: standalone ? undefined : i + 1, tickTimeMs: options.tickTimeMs, secure });
      nodes.push({
        index: i,
        myid: i + 1,
        host: '127.0.0.1',
        clientPort,
        hostPort: `127.0.0.1:${clientPort}`,
        ...(secure === undefined ? {} : { secureClientPort: secure.port, secureHostPort: `127.0.0.1:${secure.port}` }),
        get pid() {
          return this.child?.isRunning() ? this.child.pid : undefined;
        },
        dataDir,
        configFile,
        logFile: path.join(nodeDir, 'zookeeper.out'),
        child: undefined,
      });
    }
    const ensemble = new LocalZkEnsemble(installation, baseDir, nodes, options.chroot ?? '', options.timeoutMs ?? 60000);
    try {
      for (const node of nodes) ensemble.spawn(node);
      await ensemble.waitForQuorum();
    } catch (err) {
      await ensemble.close();
      throw err;
    }
    return ensemble;
  }

  get connectString(): string {
    return this.connectStringWithChroot(this.chroot);
  }

  connectStringWithChroot(chroot: string): string {
    return this.nodes.map((n) => n.hostPort).join(',') + normalizeChroot(chroot);
  }

  mode(index: number): Promise<ZkMode | undefined> {
    const node = this.node(index);
    return zkMode(node.host, node.clientPort);
  }

  async leaderIndex(): Promise<number | undefined> {
    const modes = await Promise.all(this.nodes.map((n) => this.mode(n.index)));
    const leaders = modes.flatMap((m, i) => (m === 'leader' || m === 'standalone' ? [i] : []));
    return leaders.length === 1 ? leaders[0] : undefined;
  }

  async waitForQuorum(options: { timeoutMs?: number } = {}): Promise<void> {
    const running = this.nodes.filter((n) => n.child?.isRunning());
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    let modes: (ZkMode | undefined)[] = [];
    const quorum = waitUntil(
      async () => {
        modes = await Promise.all(running.map((n) => this.mode(n.index)));
        const leaders = modes.filter((m) => m === 'leader' || m === 'standalone').length;
        return leaders === 1 && modes.every((m) => m === 'leader' || m === 'follower' || m === 'standalone');
      },
      { timeoutMs, intervalMs: 200, message: () => `a ZooKeeper quorum (modes: ${this.describe(running, modes)})${this.tails(running)}` },
    );
    // A server that exits while we wait (bad config, port taken) will never answer: fail with its output.
    const died = Promise.race(
      running.map((n) =>
        (n.child as TestChild).exited.then((exit) => {
          throw new Error(`ZooKeeper server ${n.myid} exited (${describeExit(exit)}) before the quorum formed:\n${(n.child as TestChild).tail()}`);
        }),
      ),
    );
    await Promise.race([quorum, died]);
  }

  async stop(index: number, options: { signal?: 'SIGTERM' | 'SIGKILL' } = {}): Promise<void> {
    const node = this.node(index);
    await node.child?.stop({ signal: options.signal ?? 'SIGTERM', graceMs: 5000 });
  }

  async restart(index: number): Promise<void> {
    const node = this.node(index);
    await this.stop(index);
    this.spawn(node);
    await this.waitForQuorum();
  }

  isRunning(index: number): boolean {
    return this.node(index).child?.isRunning() ?? false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.nodes.map((n) => n.child?.stop({ graceMs: 5000 })));
    removeTmpDir(this.baseDir);
  }

  private spawn(node: LocalNode): void {
    if (this.closed) throw new Error('ZooKeeper ensemble is closed');
    const args = quorumPeerMainArgs(this.installation, node.configFile, [...SMALL_ZOOKEEPER_JVM_OPTIONS, `-Dzookeeper.log.dir=${path.dirname(node.logFile)}`]);
    node.child = spawnChild(this.installation.java, args, { name: `zookeeper-${node.myid}`, logFile: node.logFile });
  }

  private node(index: number): LocalNode {
    const node = this.nodes[index];
    if (!node) throw new Error(`no ZooKeeper node ${index}: the ensemble has ${this.nodes.length} (0-based)`);
    return node;
  }

  private describe(nodes: LocalNode[], modes: (ZkMode | undefined)[]): string {
    return nodes.map((n, i) => `${n.myid}=${modes[i] ?? 'not serving'}`).join(', ');
  }

  private tails(nodes: LocalNode[]): string {
    return nodes.map((n) => `\nlast output of ZooKeeper server ${n.myid}:\n${n.child?.tail(15) ?? ''}`).join('');
  }
}
