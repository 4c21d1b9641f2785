import { getLogger } from '../common/logging/logging';
import { ZkClient, ZkClientOptions } from './zk-client';
import { parseZkConnectString } from './zk-connect-string';
import { ZkError } from './zk-error';
import { PERSISTENT_ZK_PATHS, ZkPaths } from './zk-paths';
import { ClusterIdZNode } from './znodes/cluster-znodes';

/**
 * Cluster-wide set-up done by every broker at start: the chroot, Kafka's persistent top-level paths and the
 * cluster id.
 */
export class ClusterZk {
  constructor(private readonly zk: ZkClient) {}

  /**
   * Kafka makes sure the chroot exists through a separate session without it (KafkaServer.initZkClient),
   * because a chrooted session cannot create its own root. That session logs in and sets ACLs as the broker's own
   * does, so the chroot gets ZkData.defaultAcls too.
   */
  static async ensureChroot(
    connect: string,
    sessionTimeoutMs: number,
    connectionTimeoutMs: number,
    security: Pick<ZkClientOptions, 'auth' | 'secureAcls' | 'tls'> = {},
  ): Promise<void> {
    const { hosts, chroot } = parseZkConnectString(connect);
    if (chroot === undefined) return;
    const zk = await ZkClient.connect({ connectString: hosts, sessionTimeoutMs, connectionTimeoutMs, ...security });
    try {
      if ((await zk.exists(chroot)) === null) {
        await zk.ensurePath(chroot);
        getLogger('kafka.server.KafkaServer').info(`Created zookeeper path ${chroot}`);
      }
    } finally {
      zk.close();
    }
  }

  async createTopLevelPaths(): Promise<void> {
    for (const path of PERSISTENT_ZK_PATHS) await this.zk.ensurePath(path);
  }

  /** Reads /cluster/id, creating it with a fresh id when absent; a concurrent creator's id wins. */
  async getOrCreateClusterId(): Promise<string> {
    const existing = await this.zk.getData(ZkPaths.clusterId);
    if (existing !== null) return decodeClusterId(existing.data);
    try {
      await this.zk.createRecursive(ZkPaths.clusterId, ClusterIdZNode.encode(ClusterIdZNode.generate()));
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NODEEXISTS')) throw err;
    }
    const created = await this.zk.getData(ZkPaths.clusterId);
    if (created === null) throw new ZkError(-101, ZkPaths.clusterId);
    return decodeClusterId(created.data);
  }
}

/**
 * Kafka's ClusterIdZNode.fromJson: a /cluster/id it cannot read stops the broker's start-up (the id is the
 * cluster's identity, checked against meta.properties; inventing another would split the cluster).
 */
function decodeClusterId(data: Buffer | null): string {
  try {
    return ClusterIdZNode.decode(ZkPaths.clusterId, data);
  } catch (err) {
    throw new Error(`Failed to parse the cluster id json ${JSON.stringify(data?.toString('utf8').slice(0, 200) ?? '')} at ${ZkPaths.clusterId}: ${(err as Error).message}`);
  }
}
