import { getLogger } from '../common/logging/logging';
import { SerialQueue } from '../common/serial-queue';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { createLogConfig, LogConfig, LogConfigDefaults } from '../common/config/log-config';
import { LogManager } from '../log/log-manager';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { watchChildren, ZkWatch } from '../zk/zk-watch';
import { ConfigChangeNotificationZNode, ConfigEntityZNode } from '../zk/znodes/config-znodes';

const CHANGE_EXPIRATION_MS = 15 * 60 * 1000;

/**
 * Applies topic config changes at run time (Kafka's DynamicConfigManager with its ZkNodeChangeNotificationListener):
 * every broker watches /config/changes, processes notifications newer than the last one it handled, re-reads the
 * entity's config and hands the new LogConfig to the logs. Notifications older than 15 minutes are purged.
 */
export class DynamicConfigManager {
  private lastProcessed = -1;
  private watch: ZkWatch | undefined;
  /** Notifications are processed one batch at a time, in the order the watch fired. */
  private readonly notifications = new SerialQueue();
  private readonly log = getLogger('kafka.server.DynamicConfigManager');

  constructor(
    private readonly zk: ZkClient,
    private readonly logManager: LogManager,
    private readonly brokerDefaults: LogConfigDefaults,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  startup(): void {
    this.watch = watchChildren(this.zk, ZkPaths.configChanges, (children) => {
      this.notifications.run(() => this.process(children ?? [])).catch((err: unknown) => this.log.error('Error processing config change notifications', err));
    });
  }

  shutdown(): void {
    this.watch?.close();
  }

  /** The topic's effective config: broker defaults with /config/topics/<topic> (or `overrides`) on top. */
  async logConfigFor(topic: string, overrides?: ReadonlyMap<string, string>): Promise<LogConfig> {
    const own = overrides ?? (await this.topicOverrides(topic));
    return createLogConfig(this.brokerDefaults, own);
  }

  private async topicOverrides(topic: string): Promise<Map<string, string>> {
    const path = ZkPaths.configEntity('topics', topic);
    const node = await this.zk.getData(path);
    return node === null ? new Map() : ConfigEntityZNode.decode(path, node.data);
  }

  private async process(children: string[]): Promise<void> {
    const sorted = children.filter((c) => c.startsWith('config_change_')).sort();
    for (const child of sorted) {
      const seq = Number(child.slice('config_change_'.length));
      const path = `${ZkPaths.configChanges}/${child}`;
      const node = await this.zk.getData(path);
      if (node === null) continue;
      if (seq > this.lastProcessed) {
        this.lastProcessed = seq;
        try {
          const { entityType, entityName } = ConfigChangeNotificationZNode.decode(path, node.data);
          if (entityType === 'topics') await this.applyTopicConfig(entityName);
        } catch (err) {
          this.log.error(`Error processing config change notification ${path}`, err);
        }
      }
      if (this.clock.nowMs() - node.stat.ctime > CHANGE_EXPIRATION_MS) await this.zk.delete(path).catch(() => undefined);
    }
  }

  private async applyTopicConfig(topic: string): Promise<void> {
    const overrides = await this.topicOverrides(topic);
    this.log.info(`Processing override for entityPath: topics/${topic} with config: HashMap(${[...overrides].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
    this.logManager.updateTopicConfig(topic, createLogConfig(this.brokerDefaults, overrides));
  }
}
