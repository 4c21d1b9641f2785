import { getLogger } from '../common/logging/logging';
import { SYSTEM_CLOCK } from '../common/time';
import { topicNameError } from '../common/topic';
import { readPartitionState } from './read-partition-state';
import type { PartitionStateWithVersion } from './read-partition-state';
import { ZkClient, ZkStat } from './zk-client';
import { ZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { ControllerEpochZNode, ControllerZNode } from './znodes/controller-znode';
import { LeaderIsrAndControllerEpoch, PartitionStateZNode } from './znodes/partition-state';
import { TopicAssignment, TopicAssignmentZNode } from './znodes/topic-assignment';
import { PartitionListZNode, TopicPartitionRef } from './znodes/admin-znodes';

/** Another broker holds the controllership (Kafka's ControllerMovedException). */
export class ControllerMovedError extends Error {}

/** A partition and the leader and ISR to write for it. */
export interface PartitionStateEntry {
  topic: string;
  partition: number;
  state: LeaderIsrAndControllerEpoch;
}

/** A partition's leader and ISR with its znode version (the controller's name for it). */
export type LeaderIsrWithVersion = PartitionStateWithVersion;

/** A topic assignment as read; `unreadable` when the node held something else (then `assignment` is empty). */
export interface TopicAssignmentWithVersion {
  assignment: TopicAssignment;
  zkVersion: number;
  unreadable?: true;
}

const zkLog = getLogger('kafka.zk.KafkaZkClient');

function emptyAssignment(): TopicAssignment {
  return { partitions: new Map(), addingReplicas: new Map(), removingReplicas: new Map() };
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The controller's ZooKeeper operations (Kafka's KafkaZkClient, controller part). Kafka 2.2+ fences each write
 * with a multi that checks /controller_epoch's zkVersion; the binding has no multi, so, as in Kafka 2.1 and
 * earlier, election is create(/controller) then a conditional bump of /controller_epoch, and partition state
 * writes are conditional on the partition's zkVersion with the writer's controller epoch inside the data.
 */
export class ControllerZk {
  /** Invalid topic names under /brokers/topics already logged (each is logged once). */
  private readonly invalidTopicsLogged = new Set<string>();

  constructor(private readonly zk: ZkClient) {}

  /**
   * The elected controller's id; null when there is none or /controller holds something unreadable (Kafka's
   * ControllerZNode.decode answers None for unparsable data). Election treats unreadable data as junk to remove.
   */
  async getControllerId(): Promise<number | null> {
    return (await this.readController())?.brokerId ?? null;
  }

  /** /controller as it is: null when absent, brokerId null when its data is not a controller registration. */
  private async readController(): Promise<{ brokerId: number | null; stat: ZkStat } | null> {
    const node = await this.zk.getData(ZkPaths.controller);
    if (node === null) return null;
    try {
      return { brokerId: ControllerZNode.decode(ZkPaths.controller, node.data).brokerId, stat: node.stat };
    } catch (err) {
      zkLog.warn(`Ignoring unreadable ${ZkPaths.controller} (${reason(err)}): there is no controller by it`);
      return { brokerId: null, stat: node.stat };
    }
  }

  /**
   * /controller_epoch. An unreadable epoch is taken to be the node's zkVersion: every epoch Kafka ever wrote
   * there came with a setData that bumped the version, so the version is at least the last epoch, and the next
   * controller's epoch (version + 1) is newer than any a broker has seen.
   */
  async getControllerEpoch(): Promise<{ epoch: number; zkVersion: number } | null> {
    const node = await this.zk.getData(ZkPaths.controllerEpoch);
    if (node === null) return null;
    try {
      return { epoch: ControllerEpochZNode.decode(ZkPaths.controllerEpoch, node.data), zkVersion: node.stat.version };
    } catch (err) {
      zkLog.error(`Unreadable ${ZkPaths.controllerEpoch} (${reason(err)}): taking its zkVersion ${node.stat.version} as the current controller epoch`);
      return { epoch: node.stat.version, zkVersion: node.stat.version };
    }
  }

  /** Only the zkVersion of /controller_epoch (what fences this controller's writes); null when absent. */
  private async controllerEpochZkVersion(): Promise<number | null> {
    return (await this.zk.exists(ZkPaths.controllerEpoch))?.version ?? null;
  }

  /**
   * Deletes a /controller whose data is unreadable, so that an election can succeed: such a node names no
   * controller, and left in place it would stop every election until its owner's session ends (or forever if
   * it is persistent). Only the node that was read is deleted (same czxid and version).
   */
  private async deleteUnreadableController(stat: ZkStat): Promise<void> {
    const now = await this.zk.exists(ZkPaths.controller);
    if (now === null || now.czxid !== stat.czxid) return;
    zkLog.warn(`Deleting ${ZkPaths.controller} with unreadable data (czxid ${stat.czxid}, owner session ${stat.ephemeralOwner}) so that a controller can be elected`);
    try {
      await this.zk.delete(ZkPaths.controller, now.version);
    } catch (err) {
      if (!(err instanceof ZkError && (err.code === 'NONODE' || err.code === 'BADVERSION'))) throw err;
    }
  }

  /**
   * Tries to become controller. Resolves with the new epoch and its zkVersion, or null when another broker
   * holds /controller. A lost epoch race after winning /controller gives the node back and throws
   * ControllerMovedError.
   */
  async registerControllerAndIncrementControllerEpoch(brokerId: number): Promise<{ epoch: number; epochZkVersion: number } | null> {
    let current = await this.getControllerEpoch();
    if (current === null) {
      try {
        await this.zk.create(ZkPaths.controllerEpoch, ControllerEpochZNode.encode(0));
        zkLog.info('Successfully created /controller_epoch with initial epoch 0');
      } catch (err) {
        if (!(err instanceof ZkError && err.code === 'NODEEXISTS')) throw err;
      }
      current = (await this.getControllerEpoch()) ?? { epoch: 0, zkVersion: 0 };
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await this.zk.create(ZkPaths.controller, ControllerZNode.encode(brokerId, SYSTEM_CLOCK.nowMs()), 'EPHEMERAL');
        break;
      } catch (err) {
        if (!(err instanceof ZkError && err.code === 'NODEEXISTS')) throw err;
        const existing = await this.readController();
        if (existing === null) {
          // Gone between our create and read: try again (a bounded number of times; then someone else won).
          if (attempt < 3) continue;
          return null;
        }
        if (existing.brokerId === null) {
          await this.deleteUnreadableController(existing.stat);
          if (attempt < 3) continue;
          return null;
        }
        // Our own node (a create retried after a connection loss) counts as won; anyone else's does not.
        if (existing.brokerId !== brokerId || existing.stat.ephemeralOwner !== this.zk.sessionId) return null;
        break;
      }
    }
    for (;;) {
      try {
        const stat = await this.zk.setData(ZkPaths.controllerEpoch, ControllerEpochZNode.encode(current.epoch + 1), current.zkVersion);
        return { epoch: current.epoch + 1, epochZkVersion: stat.version };
      } catch (err) {
        if (!(err instanceof ZkError && err.code === 'BADVERSION')) throw err;
        // Someone bumped the epoch between our read and write: re-read, and go on only if /controller is still ours.
        const owner = await this.zk.exists(ZkPaths.controller);
        if (owner === null || owner.ephemeralOwner !== this.zk.sessionId) throw new ControllerMovedError('Controller moved to another broker.');
        current = (await this.getControllerEpoch()) ?? current;
      }
    }
  }

  /** Gives up the controllership by deleting /controller if it is still ours. */
  async deleteController(expectedEpochZkVersion: number): Promise<void> {
    const epochZkVersion = await this.controllerEpochZkVersion();
    if (epochZkVersion !== null && epochZkVersion !== expectedEpochZkVersion) return;
    const owner = await this.zk.exists(ZkPaths.controller);
    if (owner === null || owner.ephemeralOwner !== this.zk.sessionId) return;
    try {
      await this.zk.delete(ZkPaths.controller, owner.version);
    } catch (err) {
      if (!(err instanceof ZkError && (err.code === 'NONODE' || err.code === 'BADVERSION'))) throw err;
    }
  }

  /** Throws ControllerMovedError when /controller_epoch moved past what this controller wrote. */
  async checkControllerEpoch(epochZkVersion: number): Promise<void> {
    if ((await this.controllerEpochZkVersion()) !== epochZkVersion) throw new ControllerMovedError('Controller epoch zkVersion changed.');
  }

  /**
   * The topics under /brokers/topics whose names are legal topic names. A child with an illegal name (too
   * long, other characters; only something other than Kafka can have written it) is left out and logged once:
   * it never reaches the brokers' metadata or a log directory name.
   */
  async getAllTopics(): Promise<string[]> {
    const topics = (await this.zk.getChildren(ZkPaths.topics)) ?? [];
    return topics.filter((t) => {
      const error = topicNameError(t);
      if (error === undefined) return true;
      if (!this.invalidTopicsLogged.has(t)) {
        this.invalidTopicsLogged.add(t);
        zkLog.warn(`Ignoring ${ZkPaths.topics}/${t}: ${error}`);
      }
      return false;
    });
  }

  /**
   * A topic's assignment. Unreadable data reads as a topic without partitions (Kafka's TopicZNode.decode gives an
   * empty map), marked `unreadable` so that no one writes a partial assignment back over it.
   */
  async getTopicAssignment(topic: string): Promise<TopicAssignmentWithVersion | null> {
    const path = ZkPaths.topic(topic);
    const node = await this.zk.getData(path);
    if (node === null) return null;
    try {
      return { assignment: TopicAssignmentZNode.decode(path, node.data), zkVersion: node.stat.version };
    } catch (err) {
      zkLog.warn(`Ignoring the unreadable partition assignment of topic ${topic} at ${path} (${reason(err)}): no partitions are read from it`);
      return { assignment: emptyAssignment(), zkVersion: node.stat.version, unreadable: true };
    }
  }

  async setTopicAssignment(topic: string, assignment: TopicAssignment, expectedVersion = -1): Promise<void> {
    await this.zk.setData(ZkPaths.topic(topic), TopicAssignmentZNode.encode(assignment), expectedVersion);
  }

  /**
   * A partition's leader and ISR; null when absent or unreadable (Kafka's TopicPartitionStateZNode.decode answers
   * None for unparsable data, and the controller then fails that partition's state changes: "LeaderAndIsr
   * information doesn't exist"), logged with the path.
   */
  getPartitionState(topic: string, partition: number): Promise<LeaderIsrWithVersion | null> {
    return readPartitionState(this.zk, topic, partition, zkLog);
  }

  /** Creates the state node of a new partition (and its parents); false when it already exists. */
  async createPartitionState(topic: string, partition: number, state: LeaderIsrAndControllerEpoch): Promise<boolean> {
    await this.zk.ensurePath(ZkPaths.topicPartition(topic, partition));
    try {
      await this.zk.create(ZkPaths.partitionState(topic, partition), PartitionStateZNode.encode(state));
      return true;
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODEEXISTS') return false;
      throw err;
    }
  }

  /**
   * Creates the state nodes of many new partitions as Kafka's createTopicPartitionStatesRaw does since 1.1: first
   * every topic's `partitions` node, then every partition's node, then the states, each step's requests in flight
   * together (the client keeps at most zookeeper.max.in.flight.requests outstanding). One outcome per entry, in
   * order: true created, false already there; a rejection is that partition's ZooKeeper error.
   */
  async createPartitionStates(entries: readonly PartitionStateEntry[]): Promise<PromiseSettledResult<boolean>[]> {
    const ignoreExisting = (err: unknown): void => {
      if (!(err instanceof ZkError && err.code === 'NODEEXISTS')) throw err;
    };
    const topics = [...new Set(entries.map((e) => e.topic))];
    const topicResults = await Promise.allSettled(topics.map((t) => this.zk.create(ZkPaths.topicPartitions(t), null).then(() => undefined, ignoreExisting)));
    const topicError = new Map<string, unknown>();
    topics.forEach((t, i) => {
      const r = topicResults[i] as PromiseSettledResult<void>;
      if (r.status === 'rejected') topicError.set(t, r.reason);
    });
    return Promise.allSettled(
      entries.map(async (e) => {
        if (topicError.has(e.topic)) throw topicError.get(e.topic);
        await this.zk.create(ZkPaths.topicPartition(e.topic, e.partition), null).then(() => undefined, ignoreExisting);
        return this.zk.create(ZkPaths.partitionState(e.topic, e.partition), PartitionStateZNode.encode(e.state)).then(
          () => true,
          (err: unknown) => {
            ignoreExisting(err);
            return false;
          },
        );
      }),
    );
  }

  /** Many partitions' leader and ISR, read with their requests in flight together (Kafka's getTopicPartitionStatesRaw). */
  getPartitionStates(partitions: readonly TopicPartitionRef[]): Promise<PromiseSettledResult<LeaderIsrWithVersion | null>[]> {
    return Promise.allSettled(partitions.map((tp) => this.getPartitionState(tp.topic, tp.partition)));
  }

  /** Conditional writes of many partitions' leader and ISR in flight together (Kafka's updateLeaderAndIsr). */
  updatePartitionStates(updates: readonly (PartitionStateEntry & { expectedZkVersion: number })[]): Promise<PromiseSettledResult<number | null>[]> {
    return Promise.allSettled(updates.map((u) => this.updatePartitionState(u.topic, u.partition, u.state, u.expectedZkVersion)));
  }

  /** Conditional write of a partition's leader and ISR; resolves with the new zkVersion, or null on BADVERSION/NONODE. */
  async updatePartitionState(topic: string, partition: number, state: LeaderIsrAndControllerEpoch, expectedZkVersion: number): Promise<number | null> {
    try {
      const stat = await this.zk.setData(ZkPaths.partitionState(topic, partition), PartitionStateZNode.encode(state), expectedZkVersion);
      return stat.version;
    } catch (err) {
      if (err instanceof ZkError && (err.code === 'BADVERSION' || err.code === 'NONODE')) return null;
      throw err;
    }
  }

  async getTopicsToBeDeleted(): Promise<string[]> {
    return (await this.zk.getChildren(ZkPaths.deleteTopics)) ?? [];
  }

  async deleteTopicDeletionNodes(topics: readonly string[]): Promise<void> {
    await Promise.all(topics.map((t) => this.deleteIfExists(ZkPaths.deleteTopic(t))));
  }

  /** Removes a deleted topic's znodes: assignment subtree, config, deletion request. */
  async deleteTopicZNodes(topic: string): Promise<void> {
    await this.zk.deleteRecursive(ZkPaths.topic(topic));
    await this.deleteIfExists(ZkPaths.configEntity('topics', topic));
    await this.deleteIfExists(ZkPaths.deleteTopic(topic));
  }

  async getTopicConfig(topic: string): Promise<Buffer | null> {
    return (await this.zk.getData(ZkPaths.configEntity('topics', topic)))?.data ?? null;
  }

  /** The partitions listed in sequential notification children under `root` (ISR change notifications). */
  async readPartitionNotifications(root: string, children: readonly string[]): Promise<TopicPartitionRef[]> {
    const result: TopicPartitionRef[] = [];
    const nodes = await Promise.all(children.map((child) => this.zk.getData(`${root}/${child}`)));
    for (const [i, child] of children.entries()) {
      const node = nodes[i];
      if (node === null || node === undefined) continue;
      try {
        result.push(...PartitionListZNode.decode(`${root}/${child}`, node.data));
      } catch (err) {
        zkLog.warn(`Ignoring unreadable notification ${root}/${child} (${reason(err)})`);
      }
    }
    return result;
  }

  async deleteChildren(root: string, children: readonly string[]): Promise<void> {
    await Promise.all(children.map((child) => this.deleteIfExists(`${root}/${child}`)));
  }

  /**
   * The partitions of /admin/preferred_replica_election; null when absent. Unreadable data is an empty request
   * (Kafka's PreferredReplicaElectionZNode.decode reads unparsable data as no partitions, and the node is deleted
   * once the election is over), logged with the path.
   */
  async readPreferredReplicaElection(): Promise<TopicPartitionRef[] | null> {
    const node = await this.zk.getData(ZkPaths.preferredReplicaElection);
    if (node === null) return null;
    try {
      return PartitionListZNode.decode(ZkPaths.preferredReplicaElection, node.data);
    } catch (err) {
      zkLog.warn(`Ignoring preferred replica election request due to invalid json at ${ZkPaths.preferredReplicaElection} (${reason(err)}); it will be deleted`);
      return [];
    }
  }

  async deleteIfExists(path: string): Promise<void> {
    try {
      await this.zk.delete(path);
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
    }
  }
}
