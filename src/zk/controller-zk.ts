import { getLogger } from '../common/logging/logging';
import { SYSTEM_CLOCK } from '../common/time';
import { ZkClient } from './zk-client';
import { ZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { ControllerEpochZNode, ControllerZNode } from './znodes/controller-znode';
import { LeaderIsrAndControllerEpoch, PartitionStateZNode } from './znodes/partition-state';
import { TopicAssignment, TopicAssignmentZNode } from './znodes/topic-assignment';
import { PartitionListZNode, TopicPartitionRef } from './znodes/admin-znodes';

/** Another broker holds the controllership (Kafka's ControllerMovedException). */
export class ControllerMovedError extends Error {}

export interface LeaderIsrWithVersion {
  state: LeaderIsrAndControllerEpoch;
  zkVersion: number;
}

const zkLog = getLogger('kafka.zk.KafkaZkClient');

/**
 * The controller's ZooKeeper operations (Kafka's KafkaZkClient, controller part). Kafka 2.2+ fences each write
 * with a multi that checks /controller_epoch's zkVersion; the binding has no multi, so, as in Kafka 2.1 and
 * earlier, election is create(/controller) then a conditional bump of /controller_epoch, and partition state
 * writes are conditional on the partition's zkVersion with the writer's controller epoch inside the data.
 */
export class ControllerZk {
  constructor(private readonly zk: ZkClient) {}

  async getControllerId(): Promise<number | null> {
    const node = await this.zk.getData(ZkPaths.controller);
    return node === null ? null : ControllerZNode.decode(ZkPaths.controller, node.data).brokerId;
  }

  async getControllerEpoch(): Promise<{ epoch: number; zkVersion: number } | null> {
    const node = await this.zk.getData(ZkPaths.controllerEpoch);
    return node === null ? null : { epoch: ControllerEpochZNode.decode(ZkPaths.controllerEpoch, node.data), zkVersion: node.stat.version };
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
    try {
      await this.zk.create(ZkPaths.controller, ControllerZNode.encode(brokerId, SYSTEM_CLOCK.nowMs()), 'EPHEMERAL');
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODEEXISTS') {
        const owner = await this.zk.exists(ZkPaths.controller);
        if (owner === null || owner.ephemeralOwner !== this.zk.sessionId) return null;
      } else {
        throw err;
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
    const epoch = await this.getControllerEpoch();
    if (epoch !== null && epoch.zkVersion !== expectedEpochZkVersion) return;
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
    const epoch = await this.getControllerEpoch();
    if (epoch === null || epoch.zkVersion !== epochZkVersion) throw new ControllerMovedError('Controller epoch zkVersion changed.');
  }

  async getAllTopics(): Promise<string[]> {
    return (await this.zk.getChildren(ZkPaths.topics)) ?? [];
  }

  async getTopicAssignment(topic: string): Promise<{ assignment: TopicAssignment; zkVersion: number } | null> {
    const node = await this.zk.getData(ZkPaths.topic(topic));
    return node === null ? null : { assignment: TopicAssignmentZNode.decode(ZkPaths.topic(topic), node.data), zkVersion: node.stat.version };
  }

  async setTopicAssignment(topic: string, assignment: TopicAssignment, expectedVersion = -1): Promise<void> {
    await this.zk.setData(ZkPaths.topic(topic), TopicAssignmentZNode.encode(assignment), expectedVersion);
  }

  async getPartitionState(topic: string, partition: number): Promise<LeaderIsrWithVersion | null> {
    const path = ZkPaths.partitionState(topic, partition);
    const node = await this.zk.getData(path);
    return node === null ? null : { state: PartitionStateZNode.decode(path, node.data), zkVersion: node.stat.version };
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
    for (const t of topics) await this.deleteIfExists(ZkPaths.deleteTopic(t));
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
    for (const child of children) {
      const node = await this.zk.getData(`${root}/${child}`);
      if (node === null) continue;
      try {
        result.push(...PartitionListZNode.decode(`${root}/${child}`, node.data));
      } catch (err) {
        zkLog.warn(`Ignoring unreadable notification ${root}/${child}`, err);
      }
    }
    return result;
  }

  async deleteChildren(root: string, children: readonly string[]): Promise<void> {
    for (const child of children) await this.deleteIfExists(`${root}/${child}`);
  }

  async readPreferredReplicaElection(): Promise<TopicPartitionRef[] | null> {
    const node = await this.zk.getData(ZkPaths.preferredReplicaElection);
    return node === null ? null : PartitionListZNode.decode(ZkPaths.preferredReplicaElection, node.data);
  }

  async deleteIfExists(path: string): Promise<void> {
    try {
      await this.zk.delete(path);
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
    }
  }
}
