import { getLogger } from '../common/logging/logging';
import { ZkClient } from './zk-client';
import { ZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { LogDirEventZNode } from './znodes/admin-znodes';

const zkLog = getLogger('kafka.zk.KafkaZkClient');

/** Kafka's LogDirEventNotificationSequenceZNode.SequenceNumberPrefix. */
export const LOG_DIR_EVENT_PREFIX = 'log_dir_event_';

/**
 * `/log_dir_event_notification` (Kafka's KafkaZkClient: propagateLogDirEvent on the broker, the three
 * getAll/getBrokerIds/delete calls on the controller). A broker whose log dir failed adds a persistent sequential
 * `log_dir_event_<seq>` holding `{"version":1,"broker":<id>,"event":1}`; the controller, which watches the path,
 * reads the broker ids, sends those brokers LeaderAndIsr for all their replicas and deletes what it processed.
 *
 * Without a ZooKeeper session the write waits for one (ZkClient retries across reconnections and session
 * expiry, as Kafka's retryRequestUntilConnected): the event is delayed, never dropped. A retried create may add a
 * second node for the same failure; the controller reads them all at once and the broker ids are a set.
 */
export class LogDirEventZk {
  constructor(private readonly zk: ZkClient) {}

  /** Broker side: announces that a log dir of `brokerId` failed. Resolves with the path created. */
  async propagateLogDirEvent(brokerId: number): Promise<string> {
    const path = await this.zk.create(ZkPaths.logDirEventPrefix, LogDirEventZNode.encode(brokerId), 'PERSISTENT_SEQUENTIAL');
    zkLog.debug(`Added ${path} for broker ${brokerId}`);
    return path;
  }

  /** The sequence numbers of the notifications present (Kafka's getAllLogDirEventNotifications). */
  async getAllLogDirEventNotifications(): Promise<string[]> {
    const children = (await this.zk.getChildren(ZkPaths.logDirEventNotification)) ?? [];
    return children.filter((c) => c.startsWith(LOG_DIR_EVENT_PREFIX)).map((c) => c.slice(LOG_DIR_EVENT_PREFIX.length)).sort();
  }

  /** The brokers named by those notifications, skipping vanished and unreadable nodes (Kafka's getBrokerIdsFromLogDirEvents). */
  async getBrokerIdsFromLogDirEvents(sequenceNumbers: readonly string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const seq of sequenceNumbers) {
      const path = `${ZkPaths.logDirEventPrefix}${seq}`;
      const node = await this.zk.getData(path);
      if (node === null) continue;
      try {
        ids.push(LogDirEventZNode.decode(path, node.data).brokerId);
      } catch (err) {
        zkLog.warn(`Ignoring unreadable log dir event notification ${path}`, err);
      }
    }
    return ids;
  }

  /** Deletes the processed notifications (Kafka's deleteLogDirEventNotifications); missing ones are fine. */
  async deleteLogDirEventNotifications(sequenceNumbers: readonly string[]): Promise<void> {
    for (const seq of sequenceNumbers) {
      try {
        await this.zk.delete(`${ZkPaths.logDirEventPrefix}${seq}`);
      } catch (err) {
        if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
      }
    }
  }
}
