import { NetworkClient } from '../client/network-client';
import { KafkaConsumerGroupService } from '../tools/consumer-groups-kafka';
import { ZkConsumerGroupService } from '../tools/consumer-groups-zk';
import { TopicCommand } from '../tools/topic-command';
import { ZkClient } from '../zk/zk-client';

/** An action's answer: Kafka's tool output line on success, or its error line. */
export interface ActionResult {
  ok: boolean;
  message: string;
}

/**
 * The page's only writes, each confirmed in the page first: a topic created as `kafka-topics --zookeeper
 * --create` does (TopicCommand, so the same checks and messages), and a group deleted as `kafka-consumer-groups
 * --delete` does (the coordinator for its groups, /consumers for ZooKeeper consumers).
 */
export class UiActions {
  constructor(
    private readonly zk: ZkClient,
    private readonly client: NetworkClient,
  ) {}

  async createTopic(topic: string, partitions: string, replicationFactor: string): Promise<ActionResult> {
    const lines: string[] = [];
    try {
      await new TopicCommand(this.zk, (line) => lines.push(line)).run({ create: true, topic, partitions, replicationFactor, config: [], deleteConfig: [] });
      return { ok: true, message: lines.join('\n') };
    } catch (err) {
      return { ok: false, message: `Error while executing topic command : ${(err as Error).message}` };
    }
  }

  async deleteGroup(group: string, kind: 'zookeeper' | 'coordinator'): Promise<ActionResult> {
    try {
      const error = kind === 'coordinator' ? await new KafkaConsumerGroupService(this.client).deleteGroup(group) : await new ZkConsumerGroupService(this.zk).deleteGroup(group);
      // kafka-consumer-groups' own lines for one group.
      return error === null ? { ok: true, message: `Deletion of requested consumer groups ('${group}') was successful.` } : { ok: false, message: `Error: Deletion of some consumer groups failed:\n* Group '${group}' could not be deleted due to: ${error}` };
    } catch (err) {
      return { ok: false, message: (err as Error).message };
    }
  }
}
