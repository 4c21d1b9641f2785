import { getLogger } from '../common/logging/logging';
import { mapBounded } from '../common/map-bounded';
import { ZkClient } from '../zk/zk-client';
import { ZkError } from '../zk/zk-error';
import { ZkPaths } from '../zk/zk-paths';
import { ConsumerOffsetZNode } from '../zk/znodes/consumer-znodes';

const log = getLogger('kafka.zk.KafkaZkClient');

export interface StoredOffset {
  topic: string;
  partition: number;
  /** The partition znode's mtime: when the offset was last committed. */
  commitTimestamp: number;
  version: number;
}

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: number;
}

function isCode(err: unknown, code: string): boolean {
  return err instanceof ZkError && err.code === code;
}

/**
 * Committed offsets in ZooKeeper at `/consumers/<group>/offsets/<topic>/<partition>` (decimal text, the next
 * offset to consume), the store shared by the group coordinator and the ZooKeeper-based consumer so that each
 * reads what the other committed. Many partitions are written at once: the requests are pipelined on the one
 * session rather than awaited in series, at most DEFAULT_FAN_OUT per request at a time (Kafka writes them one by
one), so a request naming millions of partitions cannot start millions of calls.
 */
export class ZkOffsetStore {
  constructor(private readonly zk: ZkClient) {}

  /** Writes every offset; resolves with the error (or null) of each, in order. */
  async commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<(Error | null)[]> {
    return mapBounded(offsets, (o) =>
      this.write(ZkPaths.consumerOffset(group, o.topic, o.partition), ConsumerOffsetZNode.encode(o.offset)).then(
        () => null,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      ),
    );
  }

  private async write(path: string, data: Buffer): Promise<void> {
    try {
      await this.zk.setData(path, data);
    } catch (err) {
      if (!isCode(err, 'NONODE')) throw err;
      try {
        await this.zk.createRecursive(path, data);
      } catch (err2) {
        // Another committer created it between our two calls: overwrite.
        if (!isCode(err2, 'NODEEXISTS')) throw err2;
        await this.zk.setData(path, data);
      }
    }
  }

  /**
   * The committed offset of one partition, or -1 when there is none. A node that is not a decimal offset counts
   * as no offset (logged with its path): the consumer starts from its reset policy and its next commit replaces
   * the node. (Kafka's OffsetFetch v0 answered UNKNOWN_SERVER_ERROR for it and the old consumer failed its
   * rebalance, so one bad node stopped the group.)
   */
  async fetch(group: string, topic: string, partition: number): Promise<number> {
    const path = ZkPaths.consumerOffset(group, topic, partition);
    const node = await this.zk.getData(path);
    if (node === null || node.data === null) return -1;
    try {
      return ConsumerOffsetZNode.decode(path, node.data);
    } catch (err) {
      log.warn(`Ignoring unreadable committed offset at ${path} (${(err as Error).message})`);
      return -1;
    }
  }

  async fetchMany(group: string, partitions: readonly { topic: string; partition: number }[]): Promise<number[]> {
    return mapBounded(partitions, (p) => this.fetch(group, p.topic, p.partition));
  }

  /** Every committed offset of a group: topic -> partition -> offset. */
  async fetchAll(group: string): Promise<Map<string, Map<number, number>>> {
    const result = new Map<string, Map<number, number>>();
    const topics = (await this.zk.getChildren(ZkPaths.consumerOffsetsRoot(group))) ?? [];
    // Topics a few at a time: each fans out over its partitions in turn.
    await mapBounded(
      topics,
      async (topic) => {
        const partitions = ((await this.zk.getChildren(ZkPaths.consumerOffsets(group, topic))) ?? []).filter((p) => /^\d{1,10}$/.test(p)).map(Number);
        const offsets = await this.fetchMany(group, partitions.map((partition) => ({ topic, partition })));
        const byPartition = new Map<number, number>();
        partitions.forEach((p, i) => {
          if (offsets[i]! >= 0) byPartition.set(p, offsets[i]!);
        });
        if (byPartition.size > 0) result.set(topic, byPartition);
      },
      4,
    );
    return result;
  }

  async groupExists(group: string): Promise<boolean> {
    return (await this.zk.exists(ZkPaths.consumerGroup(group))) !== null;
  }

  async hasOffsets(group: string): Promise<boolean> {
    return ((await this.zk.getChildren(ZkPaths.consumerOffsetsRoot(group))) ?? []).length > 0;
  }

  /** Live ZooKeeper-consumer registrations of the group (`/consumers/<group>/ids`). */
  async registeredConsumers(group: string): Promise<string[]> {
    return (await this.zk.getChildren(ZkPaths.consumerIds(group))) ?? [];
  }

  /** Every group that has a node under /consumers. */
  async allGroups(): Promise<string[]> {
    return (await this.zk.getChildren(ZkPaths.consumers)) ?? [];
  }

  /**
   * Deletes the committed offsets of the partitions (OffsetDelete); an absent node is already deleted. A topic's
   * node left without partitions goes too, so that a group with no offsets left is listed as no group.
   */
  async deleteOffsets(group: string, partitions: readonly { topic: string; partition: number }[]): Promise<void> {
    await mapBounded(partitions, (p) =>
      this.zk.delete(ZkPaths.consumerOffset(group, p.topic, p.partition)).catch((err: unknown) => {
        if (!isCode(err, 'NONODE')) throw err;
      }),
    );
    for (const topic of new Set(partitions.map((p) => p.topic))) {
      await this.zk.delete(ZkPaths.consumerOffsets(group, topic)).catch((err: unknown) => {
        if (!isCode(err, 'NOTEMPTY') && !isCode(err, 'NONODE')) throw err;
      });
    }
  }

  /**
   * Every committed offset of a group with its commit time, the znode's mtime (ZooKeeper keeps no other), and its
   * version, so that an expiry deletes only what it read: a commit in between changes the version.
   */
  async fetchAllWithCommitTimes(group: string): Promise<StoredOffset[]> {
    const result: StoredOffset[] = [];
    const topics = (await this.zk.getChildren(ZkPaths.consumerOffsetsRoot(group))) ?? [];
    await mapBounded(
      topics,
      async (topic) => {
        const partitions = ((await this.zk.getChildren(ZkPaths.consumerOffsets(group, topic))) ?? []).filter((p) => /^\d{1,10}$/.test(p)).map(Number);
        const nodes = await mapBounded(partitions, (partition) => this.zk.getData(ZkPaths.consumerOffset(group, topic, partition)));
        partitions.forEach((partition, i) => {
          const node = nodes[i];
          if (node != null) result.push({ topic, partition, commitTimestamp: node.stat.mtime, version: node.stat.version });
        });
      },
      4,
    );
    return result;
  }

  /**
   * Deletes expired offsets (Kafka writes their tombstones), each only at the version it was read at: one committed
   * again meanwhile is kept. Emptied topic nodes go too. Resolves with the offsets actually deleted.
   */
  async deleteExpired(group: string, offsets: readonly StoredOffset[]): Promise<StoredOffset[]> {
    const done = await mapBounded(offsets, (o) =>
      this.zk.delete(ZkPaths.consumerOffset(group, o.topic, o.partition), o.version).then(
        () => true,
        (err: unknown) => {
          if (isCode(err, 'BADVERSION')) return false;
          if (isCode(err, 'NONODE')) return true;
          throw err;
        },
      ),
    );
    for (const topic of new Set(offsets.map((o) => o.topic))) await this.deleteIfEmpty(ZkPaths.consumerOffsets(group, topic));
    return offsets.filter((_, i) => done[i]);
  }

  /**
   * Removes a dead group's nodes, `/consumers/<group>/offsets` and `/consumers/<group>`, only while they are empty
   * (a commit or a ZooKeeper consumer arriving meanwhile keeps them).
   */
  async removeEmptyGroup(group: string): Promise<void> {
    await this.deleteIfEmpty(ZkPaths.consumerOffsetsRoot(group));
    await this.deleteIfEmpty(ZkPaths.consumerGroup(group));
  }

  private async deleteIfEmpty(path: string): Promise<void> {
    await this.zk.delete(path).catch((err: unknown) => {
      if (!isCode(err, 'NOTEMPTY') && !isCode(err, 'NONODE')) throw err;
    });
  }

  /** A group of ZooKeeper-based consumers (`/consumers/<group>/ids` exists): the broker never expires its offsets. */
  async isZookeeperConsumerGroup(group: string): Promise<boolean> {
    return (await this.zk.exists(ZkPaths.consumerIds(group))) !== null;
  }

  async deleteGroup(group: string): Promise<void> {
    await this.zk.deleteRecursive(ZkPaths.consumerGroup(group));
  }
}
