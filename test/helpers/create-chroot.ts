import { ZkClient } from '../../src/zk/zk-client';

/**
 * Creates a chroot znode before any broker has, for `--zookeeper` tools that need it to exist. Through the project's
 * ZkClient, which sends a request again after a ConnectionLoss as Kafka's retryRequestsUntilConnected does: an
 * ensemble that has just formed can still drop a client on a loaded machine (a follower that falls behind
 * syncLimit goes back to LOOKING), and a one-shot zookeeper-shell gives up on the first one.
 */
export async function createChroot(connectString: string, chroot: string): Promise<void> {
  const zk = await ZkClient.connect({ connectString, sessionTimeoutMs: 10000, connectionTimeoutMs: 30000, name: 'create-chroot' });
  try {
    await zk.ensurePath(chroot);
  } finally {
    zk.close();
  }
}
