import { getLogger } from '../common/logging/logging';
import { SerialQueue } from '../common/serial-queue';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { createLogConfig, LogConfig, LogConfigDefaults } from '../common/config/log-config';
import { LogManager } from '../log/log-manager';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { watchChildren, ZkWatch } from '../zk/zk-watch';
import { ConfigChangeNotificationZNode, ConfigEntityZNode } from '../zk/znodes/config-znodes';
import { desanitize } from '../zk/sanitizer';
import { readTopicOverrides } from '../zk/admin-zk';
import { ScramCredentialCache } from '../security/scram-credential-cache';
import { isScramMechanism } from '../security/scram-credential';
import { topicNameError } from '../common/topic';
import { ClientQuotaManager, DEFAULT_ENTITY_NAME } from './client-quota-manager';
import { isIpAddress } from './network/ip-address';
import {
  DynamicBrokerConfig,
  FOLLOWER_REPLICATION_THROTTLED_RATE,
  LEADER_REPLICATION_THROTTLED_RATE,
  REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND,
  replicationThrottleRate,
} from '../common/config/dynamic-broker-config';
import { FOLLOWER_THROTTLED_REPLICAS, LEADER_THROTTLED_REPLICAS, parseThrottledPartitions } from '../common/config/throttled-replicas';
import { ReplicationQuotaManager, ReplicationQuotaManagers } from './replication-quota-manager';

const CHANGE_EXPIRATION_MS = 15 * 60 * 1000;

/** The quota managers a client config (`/config/clients/<id>`) updates. */
export interface ClientQuotaManagers {
  readonly produce: ClientQuotaManager;
  readonly fetch: ClientQuotaManager;
}

/** This broker's id and dynamic configuration, which `/config/brokers/<default>` and `/config/brokers/<id>` update. */
export interface BrokerDynamicConfig {
  readonly brokerId: number;
  readonly config: DynamicBrokerConfig;
}

/**
 * Applies config changes at run time (Kafka's DynamicConfigManager with its ZkNodeChangeNotificationListener):
 * every broker watches /config/changes, processes notifications newer than the last one it handled, re-reads the
 * entity's config and applies it: a topic's LogConfig to its logs, a client id's byte rates (or `<default>`'s) to
 * the quota managers, `brokers/<default>` or `brokers/<this id>` to the DynamicBrokerConfig (whose new log
 * defaults every log without its own override then takes). Client configs present at start-up are applied then. Notifications older than 15 minutes
 * are purged.
 */
/** Where ips' connection_creation_rate quotas go (the socket server's ConnectionQuotas). */
export interface IpConnectionRateQuotas {
  updateIpConnectionRateQuota(ip: string | undefined, rate: number | undefined): void;
}

export class DynamicConfigManager {
  private lastProcessed = -1;
  private ipQuotas: IpConnectionRateQuotas | undefined;
  private watch: ZkWatch | undefined;
  /** Notifications are processed one batch at a time, in the order the watch fired. */
  private readonly notifications = new SerialQueue();
  private readonly log = getLogger('kafka.server.DynamicConfigManager');

  constructor(
    private readonly zk: ZkClient,
    private readonly logManager: LogManager,
    private readonly brokerDefaults: LogConfigDefaults,
    private readonly quotas: ClientQuotaManagers | undefined = undefined,
    private readonly clock: Clock = SYSTEM_CLOCK,
    private readonly broker: BrokerDynamicConfig | undefined = undefined,
    private readonly replicationQuotas: ReplicationQuotaManagers | undefined = undefined,
  ) {
    broker?.config.onChange(() => {
      this.applyReplicationThrottleRates();
      this.notifications.run(() => this.applyLogDefaults()).catch((err: unknown) => this.log.error('Error applying new broker log defaults', err));
    });
    // The rates of `/config/brokers/<id>` read at start-up, before these managers existed.
    this.applyReplicationThrottleRates();
  }

  /**
   * Kafka's BrokerConfigHandler: the three replication rates from this broker's own dynamic config (the
   * `<default>` entity does not set them in 2.8), Long.MAX_VALUE (no throttle) where absent.
   */
  private applyReplicationThrottleRates(): void {
    if (this.broker === undefined || this.replicationQuotas === undefined) return;
    const props = this.broker.config.currentDynamicBrokerConfigs;
    this.replicationQuotas.leader.updateQuota(replicationThrottleRate(props, LEADER_REPLICATION_THROTTLED_RATE));
    this.replicationQuotas.follower.updateQuota(replicationThrottleRate(props, FOLLOWER_REPLICATION_THROTTLED_RATE));
    this.replicationQuotas.alterLogDirs.updateQuota(replicationThrottleRate(props, REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND));
  }

  /**
   * DynamicBrokerConfig.initialize: reads `/config/brokers/<default>` then `/config/brokers/<id>` before the log
   * manager starts, so logs open with the dynamic defaults. An unusable stored set is logged and skipped.
   */
  static async loadBrokerConfigs(zk: ZkClient, broker: BrokerDynamicConfig): Promise<void> {
    const log = getLogger('kafka.server.DynamicBrokerConfig');
    for (const name of [DEFAULT_ENTITY_NAME, String(broker.brokerId)]) {
      const path = ZkPaths.configEntity('brokers', name);
      try {
        const node = await zk.getData(path);
        if (node === null) continue;
        const props = ConfigEntityZNode.decode(path, node.data);
        if (name === DEFAULT_ENTITY_NAME) broker.config.updateDefaultConfig(props);
        else broker.config.updateBrokerConfig(props);
      } catch (err) {
        log.error(`Dynamic broker configs at ${path} could not be applied`, err);
      }
    }
  }

  /** The socket server, once it exists: `/config/ips/*` quotas apply to it (loaded at startup, then on change). */
  attachIpQuotas(target: IpConnectionRateQuotas): void {
    this.ipQuotas = target;
  }

  private scram: ScramCredentialCache | undefined;

  /** The SCRAM credential cache kept current from `/config/users/<user>` (Kafka's UserConfigHandler). */
  setScramCredentialCache(cache: ScramCredentialCache): void {
    this.scram = cache;
  }

  /**
   * The SCRAM credentials of every user, read before the socket server accepts connections (Kafka starts its
   * request processors only at the end of start-up, once the credential cache is filled).
   */
  loadScramCredentials(): Promise<void> {
    return this.notifications.run(() => this.loadUserConfigs());
  }

  startup(): void {
    this.notifications.run(() => this.loadClientConfigs()).catch((err: unknown) => this.log.error('Error loading client configs', err));
    this.notifications.run(() => this.loadTopicThrottles()).catch((err: unknown) => this.log.error('Error loading topic throttles', err));
    this.watch = watchChildren(this.zk, ZkPaths.configChanges, (children) => {
      this.notifications.run(() => this.process(children ?? [])).catch((err: unknown) => this.log.error('Error processing config change notifications', err));
    });
  }

  shutdown(): void {
    this.watch?.close();
  }

  /**
   * The topic's effective config: broker defaults with /config/topics/<topic> (or `overrides`, which must all be
   * valid) on top. A stored override whose value is invalid is logged and left out, so that a bad znode cannot
   * keep the topic's logs from being created (Kafka would fail the LeaderAndIsr for them).
   */
  async logConfigFor(topic: string, overrides?: ReadonlyMap<string, string>): Promise<LogConfig> {
    if (overrides !== undefined) return createLogConfig(this.brokerDefaults, overrides);
    const stored = await this.topicOverrides(topic);
    try {
      return createLogConfig(this.brokerDefaults, stored);
    } catch {
      const usable = new Map<string, string>();
      for (const [key, value] of stored) {
        try {
          createLogConfig(this.brokerDefaults, new Map([[key, value]]));
          usable.set(key, value);
        } catch (err) {
          this.log.error(`Ignoring invalid config ${key}=${value} of topic ${topic} at ${ZkPaths.configEntity('topics', topic)}: ${(err as Error).message}`);
        }
      }
      return createLogConfig(this.brokerDefaults, usable);
    }
  }

  private async topicOverrides(topic: string): Promise<Map<string, string>> {
    const path = ZkPaths.configEntity('topics', topic);
    const node = await this.zk.getData(path);
    return node === null ? new Map() : readTopicOverrides(path, node.data);
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
          if (entityType === 'topics') {
            const nameError = topicNameError(entityName);
            if (nameError !== undefined) throw new Error(`Invalid topic in entity_path topics/${entityName}: ${nameError}`);
            await this.applyTopicConfig(entityName);
          } else if (entityType === 'clients') await this.applyClientConfig(entityName);
          else if (entityType === 'users') await this.applyUserConfig(entityName);
          else if (entityType === 'ips') await this.applyIpConfig(entityName);
          else if (entityType === 'brokers') await this.applyBrokerConfig(entityName);
          else if (entityType === 'users') await this.applyUserConfig(entityName);
        } catch (err) {
          // Kafka's ZkNodeChangeNotificationListener: logged, and the listener goes on with the next notification.
          this.log.error(`error processing change notification ${node.data?.toString('utf8').slice(0, 500) ?? ''} from ${path}`, err);
        }
      }
      if (this.clock.nowMs() - node.stat.ctime > CHANGE_EXPIRATION_MS) await this.zk.delete(path).catch(() => undefined);
    }
  }

  /** Every user's SCRAM credentials, before the socket server accepts connections. */
  private async loadUserConfigs(): Promise<void> {
    if (this.scram === undefined) return;
    for (const sanitized of (await this.zk.getChildren(ZkPaths.configEntityType('users'))) ?? []) {
      await this.applyScramCredentials(sanitized, undefined).catch((err: unknown) => this.log.error(`Error loading the config of users/${sanitized}`, err));
    }
  }

  /** `/config/users/<sanitized user>`'s SCRAM credentials into the cache (read here unless `config` is given). */
  private async applyScramCredentials(sanitizedUser: string, config: ReadonlyMap<string, string> | undefined): Promise<void> {
    if (this.scram === undefined || sanitizedUser === DEFAULT_ENTITY_NAME) return;
    let props = config;
    if (props === undefined) {
      const path = ZkPaths.configEntity('users', sanitizedUser);
      const node = await this.zk.getData(path);
      props = node === null ? new Map<string, string>() : ConfigEntityZNode.decode(path, node.data);
    }
    const bad = this.scram.updateUser(desanitize(sanitizedUser), props);
    for (const mechanism of bad) this.log.error(`Invalid ${mechanism} credential of users/${sanitizedUser}: ignored`);
  }

  private async loadClientConfigs(): Promise<void> {
    if (this.quotas === undefined) return;
    for (const sanitized of (await this.zk.getChildren(ZkPaths.configEntityType('clients'))) ?? []) {
      // One unreadable entity must not keep the broker from starting, nor the others from loading.
      await this.applyClientConfig(sanitized).catch((err: unknown) => this.log.error(`Error loading the config of clients/${sanitized}`, err));
    }
    for (const ip of (await this.zk.getChildren(ZkPaths.configEntityType('ips'))) ?? []) {
      await this.applyIpConfig(ip).catch((err: unknown) => this.log.error(`Error loading the config of ips/${ip}`, err));
    }
    for (const user of (await this.zk.getChildren(ZkPaths.configEntityType('users'))) ?? []) {
      await this.applyUserConfig(user).catch((err: unknown) => this.log.error(`Error loading the config of users/${user}`, err));
      for (const client of (await this.zk.getChildren(`${ZkPaths.configEntity('users', user)}/clients`).catch(() => null)) ?? []) {
        const name = `${user}/clients/${client}`;
        await this.applyUserConfig(name).catch((err: unknown) => this.log.error(`Error loading the config of users/${name}`, err));
      }
    }
  }

  /** Kafka's startup pass over every topic config: the throttled-replica lists present at start-up apply at once. */
  private async loadTopicThrottles(): Promise<void> {
    if (this.replicationQuotas === undefined) return;
    for (const topic of (await this.zk.getChildren(ZkPaths.configEntityType('topics'))) ?? []) {
      if (topicNameError(topic) !== undefined) continue;
      try {
        this.applyTopicThrottles(topic, await this.topicOverrides(topic));
      } catch (err) {
        this.log.error(`Error loading the throttled replicas of topics/${topic}`, err);
      }
    }
  }

  /**
   * Kafka's TopicConfigHandler.updateThrottledList: a non-empty `leader.` / `follower.replication.throttled.replicas`
   * marks the topic's partitions whose replica here is listed (all of them for `*`); an absent or empty one
   * removes the topic's throttle.
   */
  private applyTopicThrottles(topic: string, config: ReadonlyMap<string, string>): void {
    if (this.replicationQuotas === undefined || this.broker === undefined) return;
    const update = (prop: string, quota: ReplicationQuotaManager): void => {
      const value = config.get(prop);
      if (value !== undefined && value.length > 0) {
        const partitions = parseThrottledPartitions(prop, value, this.broker?.brokerId ?? -1);
        quota.markThrottled(topic, partitions);
        this.log.debug(`Setting ${prop} on broker ${this.broker?.brokerId ?? -1} for topic: ${topic} and partitions ${String(partitions)}`);
      } else {
        quota.removeThrottle(topic);
      }
    };
    update(LEADER_THROTTLED_REPLICAS, this.replicationQuotas.leader);
    update(FOLLOWER_THROTTLED_REPLICAS, this.replicationQuotas.follower);
  }

  /** `/config/clients/<sanitized client id>`: producer_byte_rate and consumer_byte_rate (Kafka's ClientIdConfigHandler). */
  private async applyClientConfig(sanitizedClientId: string): Promise<void> {
    if (this.quotas === undefined) return;
    const path = ZkPaths.configEntity('clients', sanitizedClientId);
    const node = await this.zk.getData(path);
    const config = node === null ? new Map<string, string>() : ConfigEntityZNode.decode(path, node.data);
    this.log.info(`Processing override for entityPath: clients/${sanitizedClientId} with config: HashMap(${[...config].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
    const clientId = sanitizedClientId === DEFAULT_ENTITY_NAME ? DEFAULT_ENTITY_NAME : desanitize(sanitizedClientId);
    this.quotas.produce.updateQuota(clientId, byteRate(config.get('producer_byte_rate')));
    this.quotas.fetch.updateQuota(clientId, byteRate(config.get('consumer_byte_rate')));
  }

  /**
   * Kafka's UserConfigHandler: `/config/users/<sanitized user>` or `/config/users/<sanitized user>/clients/<client
   * id>` (either may be `<default>`), whose producer_byte_rate and consumer_byte_rate go to the quota managers and
   * (users only) SCRAM credentials to the credential cache. Credentials are logged as [hidden].
   */
  private async applyUserConfig(entityName: string): Promise<void> {
    if (this.quotas === undefined && this.scram === undefined) return;
    const parts = entityName.split('/');
    if (!(parts.length === 1 || (parts.length === 3 && parts[1] === 'clients')) || parts.some((p) => p === '')) {
      throw new Error(`Invalid quota entity path users/${entityName}`);
    }
    const user = parts[0] as string;
    const client = parts[2];
    const path = client === undefined ? ZkPaths.configEntity('users', user) : ZkPaths.configUserClient(user, client);
    const node = await this.zk.getData(path);
    const config = node === null ? new Map<string, string>() : ConfigEntityZNode.decode(path, node.data);
    this.log.info(`Processing override for entityPath: users/${entityName} with config: HashMap(${[...config].map(([k, v]) => `${k} -> ${isScramMechanism(k) ? '[hidden]' : v}`).join(', ')})`);
    if (client === undefined) await this.applyScramCredentials(user, config);
    if (this.quotas === undefined) return;
    const entity = client === undefined ? { user } : { user, clientId: client === DEFAULT_ENTITY_NAME ? client : desanitize(client) };
    this.quotas.produce.updateQuota(entity, byteRate(config.get('producer_byte_rate')));
    this.quotas.fetch.updateQuota(entity, byteRate(config.get('consumer_byte_rate')));
  }

  /**
   * Kafka's IpConfigHandler: `/config/ips/<ip>` or `<default>`, whose connection_creation_rate goes to the
   * socket server's ConnectionQuotas. A name that is not an ip address is refused (Kafka resolves host names
   * here; AlterClientQuotas only stores addresses).
   */
  private async applyIpConfig(name: string): Promise<void> {
    if (this.ipQuotas === undefined) return;
    if (name !== DEFAULT_ENTITY_NAME && !isIpAddress(name)) throw new Error(`Unable to resolve address ${name}`);
    const path = ZkPaths.configEntity('ips', name);
    const node = await this.zk.getData(path);
    const config = node === null ? new Map<string, string>() : ConfigEntityZNode.decode(path, node.data);
    this.log.info(`Processing override for entityPath: ips/${name} with config: HashMap(${[...config].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
    const text = config.get('connection_creation_rate');
    const rate = text === undefined ? undefined : Number(text.trim());
    if (rate !== undefined && !(Number.isInteger(rate) && rate >= 0)) throw new Error(`Invalid connection_creation_rate ${text} of ips/${name}`);
    this.ipQuotas.updateIpConnectionRateQuota(name === DEFAULT_ENTITY_NAME ? undefined : name, rate);
  }

  /** Kafka's BrokerConfigHandler: `<default>` for every broker, else only the broker the id names. */
  private async applyBrokerConfig(name: string): Promise<void> {
    if (this.broker === undefined) return;
    if (name !== DEFAULT_ENTITY_NAME && name.trim() !== String(this.broker.brokerId)) return;
    const path = ZkPaths.configEntity('brokers', name);
    const node = await this.zk.getData(path);
    const config = node === null ? new Map<string, string>() : ConfigEntityZNode.decode(path, node.data);
    this.log.info(`Processing override for entityPath: brokers/${name} with config: HashMap(${[...config].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
    if (name === DEFAULT_ENTITY_NAME) this.broker.config.updateDefaultConfig(config);
    else this.broker.config.updateBrokerConfig(config);
  }

  /**
   * At start-up, before anything is served: the logs just loaded get their topic's overrides from
   * /config/topics (Kafka's LogManager reads them before loading; without this a restarted broker ran its logs on
   * the broker defaults — min.insync.replicas, segment.bytes, retention — until the next change notification).
   */
  async loadTopicConfigs(): Promise<void> {
    const topics = new Set(this.logManager.allLogs().map((l) => l.topicPartition.topic));
    for (const topic of topics) this.logManager.updateTopicConfig(topic, await this.logConfigFor(topic));
  }

  /** The broker's log defaults changed: each topic's logs get their config rebuilt on the new defaults. */
  private async applyLogDefaults(): Promise<void> {
    this.logManager.updateDefaultConfig(createLogConfig(this.brokerDefaults));
    const topics = new Set(this.logManager.allLogs().map((l) => l.topicPartition.topic));
    for (const topic of topics) this.logManager.updateTopicConfig(topic, await this.logConfigFor(topic));
  }

  private async applyTopicConfig(topic: string): Promise<void> {
    const overrides = await this.topicOverrides(topic);
    this.log.info(`Processing override for entityPath: topics/${topic} with config: HashMap(${[...overrides].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
    this.logManager.updateTopicConfig(topic, createLogConfig(this.brokerDefaults, overrides));
    this.applyTopicThrottles(topic, overrides);
  }
}

/** A quota value: a positive number of bytes per second, else none (an unusable value is ignored, as absent). */
function byteRate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.trim());
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
