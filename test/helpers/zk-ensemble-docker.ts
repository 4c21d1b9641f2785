import type { StartedNetwork, StartedTestContainer } from 'testcontainers';
import { zkMode, ZkMode } from './four-letter-word';
import { freePorts } from './free-port';
import { waitUntil } from './wait-until';
import { normalizeChroot } from './zk-ensemble-contract';
import type { ZkEnsemble, ZkEnsembleOptions, ZkNode } from './zk-ensemble-contract';

/*
 * The Docker flavour of startZkEnsemble (KAFKA_TS_ZK_DOCKER=1), for machines with a Docker engine and no Java:
 * the official zookeeper:3.8 image, one container per server on a private network. Host ports are fixed when the
 * containers are created so that a restarted server keeps its address. No pids and no files on the host.
 * Loaded lazily so that the default path never loads testcontainers.
 */

const IMAGE = 'zookeeper:3.8';

export async function dockerIsReachable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export async function startDockerZkEnsemble(size: number, options: ZkEnsembleOptions): Promise<ZkEnsemble> {
  const { GenericContainer, Network } = await import('testcontainers');
  const network = await new Network().start();
  const hostPorts = await freePorts(size);
  const servers = Array.from({ length: size }, (_, i) => `server.${i + 1}=zk${i + 1}:2888:3888;2181`).join(' ');
  const starting = hostPorts.map((hostPort, i) =>
    new GenericContainer(IMAGE)
      .withNetwork(network)
      .withNetworkAliases(`zk${i + 1}`)
      .withExposedPorts({ container: 2181, host: hostPort })
      .withEnvironment({
        ZOO_MY_ID: String(i + 1),
        ZOO_SERVERS: servers,
        ZOO_TICK_TIME: String(options.tickTimeMs ?? 500),
        ZOO_INIT_LIMIT: '10',
        ZOO_SYNC_LIMIT: '5',
        ZOO_ADMINSERVER_ENABLED: 'false',
        ZOO_4LW_COMMANDS_WHITELIST: 'srvr,ruok,stat',
        ZOO_MAX_CLIENT_CNXNS: '0',
        ZOO_CFG_EXTRA: 'quorumListenOnAllIPs=true',
        JVMFLAGS: '-Xmx128m',
      })
      .start(),
  );
  // Started together: each server's start-up only waits for its client port, and the quorum needs them all.
  const settled = await Promise.allSettled(starting);
  const containers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const ensemble = new DockerZkEnsemble(network, containers, options.chroot ?? '', options.timeoutMs ?? 120000);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  try {
    if (failed) throw failed.reason;
    await ensemble.waitForQuorum();
  } catch (err) {
    await ensemble.close();
    throw err;
  }
  return ensemble;
}

class DockerZkEnsemble implements ZkEnsemble {
  readonly nodes: ZkNode[];
  private readonly running: boolean[];
  private closed = false;

  constructor(
    private readonly network: StartedNetwork,
    private readonly containers: StartedTestContainer[],
    private readonly chroot: string,
    private readonly timeoutMs: number,
  ) {
    this.nodes = containers.map((c, i) => {
      const clientPort = c.getMappedPort(2181);
      return { index: i, myid: i + 1, host: c.getHost(), clientPort, hostPort: `${c.getHost()}:${clientPort}`, pid: undefined, dataDir: '', configFile: '', logFile: '' };
    });
    this.running = containers.map(() => true);
  }

  get connectString(): string {
    return this.connectStringWithChroot(this.chroot);
  }

  connectStringWithChroot(chroot: string): string {
    return this.nodes.map((n) => n.hostPort).join(',') + normalizeChroot(chroot);
  }

  mode(index: number): Promise<ZkMode | undefined> {
    const node = this.nodes[index];
    if (!node) throw new Error(`no ZooKeeper node ${index}`);
    return zkMode(node.host, node.clientPort);
  }

  async leaderIndex(): Promise<number | undefined> {
    const modes = await Promise.all(this.nodes.map((n) => this.mode(n.index)));
    const leaders = modes.flatMap((m, i) => (m === 'leader' || m === 'standalone' ? [i] : []));
    return leaders.length === 1 ? leaders[0] : undefined;
  }

  async waitForQuorum(options: { timeoutMs?: number } = {}): Promise<void> {
    const running = this.nodes.filter((n) => this.running[n.index]);
    await waitUntil(
      async () => {
        const modes = await Promise.all(running.map((n) => this.mode(n.index)));
        return modes.filter((m) => m === 'leader' || m === 'standalone').length === 1 && modes.every((m) => m !== undefined && m !== 'observer');
      },
      { timeoutMs: options.timeoutMs ?? this.timeoutMs, intervalMs: 200, message: 'a ZooKeeper quorum (Docker)' },
    );
  }

  async stop(index: number, options: { signal?: 'SIGTERM' | 'SIGKILL' } = {}): Promise<void> {
    // Not StartedTestContainer.stop(): it removes the container and remembers being stopped, so no restart.
    const container = await this.dockerContainer(index);
    if (options.signal === 'SIGKILL') await container.kill({ signal: 'SIGKILL' });
    else await container.stop({ t: 5 });
    this.running[index] = false;
  }

  async restart(index: number): Promise<void> {
    const container = await this.dockerContainer(index);
    if (this.running[index]) await container.stop({ t: 5 });
    await container.start();
    this.running[index] = true;
    await this.waitForQuorum();
  }

  isRunning(index: number): boolean {
    return this.running[index] ?? false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled(this.containers.map((c) => c.stop({ timeout: 0 })));
    await this.network.stop();
  }

  private async dockerContainer(index: number) {
    const container = this.containers[index];
    if (!container) throw new Error(`no ZooKeeper node ${index}`);
    const { getContainerRuntimeClient } = await import('testcontainers');
    return (await getContainerRuntimeClient()).container.getById(container.getId());
  }
}
