import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EndPoint } from '../common/config/end-point';
import { KafkaConfig } from '../common/config/kafka-config';
import type { BrokerConfigKey } from '../common/config/kafka-config-defs';
import { getLogger, Logger } from '../common/logging/logging';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ClusterZk } from '../zk/cluster-zk';
import { ZkClient } from '../zk/zk-client';
import { brokerZkSecurity } from '../security/zookeeper-login';
import { systemProperty } from '../security/system-property';
import { zkTlsClientAuthEnabled, zkTlsConfig, zooKeeperTls } from '../security/zookeeper-tls';
import { BrokerInfo } from '../zk/znodes/broker-info';
import { DelegationTokenManager, delegationTokenConfigFrom } from '../security/delegation-token-manager';
import { BrokerMetadata, BrokerMetadataCheckpoint } from './broker-metadata-checkpoint';
import { controlledShutdown } from './controlled-shutdown';
import { Scheduler } from '../common/scheduler';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { LogManager } from '../log/log-manager';
import { logManagerConfigFrom } from '../log/log-manager-config';
import { isIoError, isLogDirFailure } from '../log/log-dir-failure-channel';
import { createLogConfig } from '../common/config/log-config';
import { CONNECTION_QUOTA_CONFIGS, DynamicBrokerConfig, isDynamicListenerSaslKey, LOG_CLEANER_CONFIGS, RELOADABLE_SSL_CONFIGS } from '../common/config/dynamic-broker-config';
import { listenerChanges } from '../common/config/dynamic-listener-config';
import { ListenerReconfiguration } from './listener-reconfiguration';
import { ControllerChannelManager, KafkaController } from '../controller';
import { AdminZk } from '../zk/admin-zk';
import { SocketServer } from './network/socket-server';
import { listenerConnectionLimits, serverTlsFor, socketServerOptions } from './network/socket-server-config';
import { RequestDispatcher } from './request-dispatcher';
import { MetadataCache } from './metadata-cache';
import { ReplicaManager } from './replica-manager';
import { replicaFetcherConfigFrom } from './replica-fetcher/replica-fetcher-config';
import { DynamicConfigManager } from './dynamic-config-manager';
import { BrokerSasl, jaasFileReader, resolveBrokerSasl, resolveSaslListener } from './broker-sasl';
import { createKafkaApis } from './kafka-apis';
import { AclAuthorizer } from '../security/acl-authorizer';
import { AclStoreZk } from '../zk/acl-store-zk';
import { AutoTopicCreationManager } from './auto-topic-creation-manager';
import { ClientQuotaManager } from './client-quota-manager';
import { createReplicationQuotaManagers } from './replication-quota-manager';
import { FetchManager } from './fetch-manager';
import { FetchSessionCache } from './fetch-session-cache';
import { GroupCoordinator } from '../rebalance/group-coordinator';
import { offsetsLogAccess } from './offsets-log-access';
import { ZkOffsetStore } from '../rebalance/zk-offset-store';
import { coordinatorPartitionFor } from '../rebalance/coordinator-placement';
import { GROUP_METADATA_TOPIC_NAME } from '../common/topic';
import { ProducerIdBlockZk } from '../zk/producer-id-block-zk';
import { ProducerIdManager } from './producer-id-manager';
import { createTransactionCoordinator } from './transaction-coordinator-setup';
import { ClientSecurity } from '../security/client-security';
import { listenerClientSecurity } from './listener-client-security';
import { ensureCompatibleKeystore } from '../security/ssl-factory';
import { KafkaMetrics } from '../metrics/kafka-metrics';
import { MetricsHttpServer } from './network/metrics-http-server';
import { registerBrokerGauges } from './broker-gauges';
import { registerConsumerLagGauges } from './consumer-lag-gauges';
import { controllerStatsObserver, logFlushTimer, zooKeeperClientObserver } from './metrics-hooks';

/** Kafka's KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS: how long a fetch session is safe from eviction. */
const MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120000;

/** A start-up refusal whose message is the whole story (no stack trace needed by the operator). */
export class KafkaServerStartupError extends Error {}

export interface KafkaServerOptions {
  /**
   * Kafka's Exit.halt: ends the process at once, without the shutdown steps (the last log dir failed).
   * Default process.exit.
   */
  halt?: (statusCode: number) => void;
}

/**
 * The broker's composition root (Kafka's KafkaServer): builds the parts in dependency order, starts them, and
 * shuts them down in reverse, each step's failure logged without skipping the rest.
 */
export class KafkaServer {
  private log: Logger = getLogger('kafka.server.KafkaServer');
  private zk: ZkClient | undefined;
  private registry: BrokerRegistryZk | undefined;
  private brokerId: number;
  private clusterId = '';
  private brokerEpoch = -1;
  private shutdownHooks: (() => Promise<unknown> | unknown)[] = [];
  private controller: KafkaController | undefined;
  private dynamicConfig: DynamicConfigManager | undefined;
  private socketServer: SocketServer | undefined;
  /** The inter-broker listener's client security, loaded before anything starts (bad key material stops start-up). */
  private interBrokerSecurity: ClientSecurity | undefined;
  private started = false;
  private readonly clock: Clock = SYSTEM_CLOCK;
  private shuttingDown: Promise<void> | undefined;
  /** Log dirs whose meta.properties could not be read: offline from the start (Kafka's initialOfflineDirs). */
  private initialOfflineDirs: string[] = [];
  private logManager: LogManager | undefined;
  private sasl: BrokerSasl | undefined;
  /** KAFKA_OPTS' JAAS file, read once, for the SASL listeners reconfigured at run time. */
  private readonly jaasFile = jaasFileReader();
  /** Set when kafka.metrics.port is: serves the KafkaMetrics registry the broker's parts add to. */
  private metricsServer: MetricsHttpServer | undefined;
  /** Set when kafka.metrics.port is: the registry the broker's parts and hooks add to. */
  private metrics: KafkaMetrics | undefined;

  constructor(
    private readonly config: KafkaConfig,
    private readonly options: KafkaServerOptions = {},
  ) {
    this.brokerId = config.brokerId;
  }

  get id(): number {
    return this.brokerId;
  }

  async startup(): Promise<void> {
    this.log.info('starting');
    try {
      // SASL settings the broker cannot honour stop the start-up before anything else happens.
      this.sasl = resolveBrokerSasl(this.config);
      this.interBrokerSecurity = listenerClientSecurity(this.config, this.config.interBrokerListenerName);
      // Created first: the ZooKeeper client, the logs and the controller report to it through their hooks.
      this.metrics = this.config.get('kafka.metrics.port') > 0 ? new KafkaMetrics() : undefined;
      await this.initZkClient();
      const zk = this.zk as ZkClient;
      const cluster = new ClusterZk(zk);
      await cluster.createTopLevelPaths();
      this.clusterId = await cluster.getOrCreateClusterId();
      this.log.info(`Cluster ID = ${this.clusterId}`);

      const stored = this.readBrokerMetadata();
      this.registry = new BrokerRegistryZk(zk);
      this.brokerId = await this.resolveBrokerId(stored, this.registry);
      this.log = getLogger('kafka.server.KafkaServer', `[KafkaServer id=${this.brokerId}] `);
      getLogger('kafka.server.KafkaConfig').info(this.config.describe());
      this.createLogDirs();
      await this.startServices(zk);
      this.brokerEpoch = await this.registry.registerBroker(this.brokerInfo());
      this.shutdownHooks.push(() => this.registry?.deregisterBroker(this.brokerId));
      this.shutdownHooks.push(
        zk.onSessionReinitialized(async () => {
          this.brokerEpoch = await (this.registry as BrokerRegistryZk).registerBroker(this.brokerInfo());
        }),
      );
      this.writeBrokerMetadata({ brokerId: this.brokerId, clusterId: this.clusterId });
      this.controller?.startup();
      this.shutdownHooks.push(() => this.controller?.shutdown());
      this.dynamicConfig?.startup();
      this.shutdownHooks.push(() => this.dynamicConfig?.shutdown());
      this.started = true;
      this.log.info('started');
    } catch (err) {
      this.log.error('Fatal error during KafkaServer startup. Prepare to shutdown', err);
      await this.shutdown();
      throw err;
    }
  }

  /** Log manager, replica manager, controller, group coordinator and socket server, in Kafka's start-up order. */
  private async startServices(zk: ZkClient): Promise<void> {
    const clock = this.clock;
    const scheduler = new Scheduler(clock);
    this.shutdownHooks.push(() => scheduler.shutdown());
    const dynamicBrokerConfig = new DynamicBrokerConfig(this.config);
    await DynamicConfigManager.loadBrokerConfigs(zk, { brokerId: this.brokerId, config: dynamicBrokerConfig });
    // One object, updated in place by dynamic broker configs: every holder sees the new log defaults.
    const brokerDefaults = dynamicBrokerConfig.logDefaults;
    const logManager = new LogManager({
      // The dynamic config read just above (log.cleaner.backoff.ms may be set there).
      config: logManagerConfigFrom(dynamicBrokerConfig.current),
      defaultConfig: createLogConfig(brokerDefaults),
      clock,
      scheduler,
      initialOfflineDirs: this.initialOfflineDirs,
      halt: this.options.halt ?? ((code) => process.exit(code)),
      ...(this.metrics === undefined ? {} : { onSegmentFlush: logFlushTimer(this.metrics.logFlush) }),
    });
    this.logManager = logManager;
    await logManager.startup();
    this.shutdownHooks.push(() => logManager.shutdown());
    const quotaConfig = { numQuotaSamples: this.config.get('quota.window.num'), quotaWindowSizeSeconds: this.config.get('quota.window.size.seconds') };
    const quotas = { produce: new ClientQuotaManager('Produce', quotaConfig, clock), fetch: new ClientQuotaManager('Fetch', quotaConfig, clock) };
    const replicationQuotas = createReplicationQuotaManagers(
      { numQuotaSamples: this.config.get('replication.quota.window.num'), quotaWindowSizeSeconds: this.config.get('replication.quota.window.size.seconds') },
      clock,
    );
    const dynamicConfig = new DynamicConfigManager(zk, logManager, brokerDefaults, quotas, clock, { brokerId: this.brokerId, config: dynamicBrokerConfig }, replicationQuotas);
    this.dynamicConfig = dynamicConfig;
    await dynamicConfig.loadTopicConfigs();
    if (this.sasl !== undefined && this.sasl.listeners.size > 0) {
      dynamicConfig.setScramCredentialCache(this.sasl.scramCredentials);
      await dynamicConfig.loadScramCredentials();
    }
    const metadataCache = new MetadataCache(this.brokerId, clock);
    const metrics = this.metrics;
    const replicaManager = new ReplicaManager({
      brokerId: this.brokerId,
      ...(metrics === undefined ? {} : { isrChangeCounts: metrics.events }),
      logManager,
      metadataCache,
      logConfigFor: (topic) => dynamicConfig.logConfigFor(topic),
      clock,
      replicationQuotas,
      replication: {
        zk,
        scheduler,
        replicaLagTimeMaxMs: this.config.get('replica.lag.time.max.ms'),
        fetcher: { ...replicaFetcherConfigFrom(this.brokerId, dynamicBrokerConfig.current, this.interBrokerSecurity), ...(this.sasl?.interBroker === undefined ? {} : { sasl: this.sasl.interBroker }) },
        interBrokerListenerName: this.config.interBrokerListenerName,
      },
    });
    replicaManager.startup();
    this.shutdownHooks.push(() => replicaManager.shutdown());
    const listenerName = this.config.controllerListenerName;
    const controllerSecurity = listenerClientSecurity(this.config, listenerName);
    const controller = new KafkaController({
      config: {
        brokerId: this.brokerId,
        deleteTopicEnable: this.config.get('delete.topic.enable'),
        logConfigDefaults: brokerDefaults,
        autoLeaderRebalanceEnable: this.config.get('auto.leader.rebalance.enable'),
        leaderImbalancePerBrokerPercentage: this.config.get('leader.imbalance.per.broker.percentage'),
        leaderImbalanceCheckIntervalSeconds: this.config.get('leader.imbalance.check.interval.seconds'),
        interBrokerListenerName: this.config.interBrokerListenerName,
      },
      zk,
      createChannel: (context) =>
        new ControllerChannelManager(this.brokerId, () => context.epoch, listenerName, this.config.get('controller.socket.timeout.ms'), controllerSecurity, controllerSecurity.securityProtocol.startsWith('SASL_') ? this.sasl?.interBroker : undefined),
      ...(metrics === undefined ? {} : { stats: controllerStatsObserver(metrics.controllerStats) }),
    });
    this.controller = controller;
    const groupCoordinator = new GroupCoordinator({
      config: {
        minSessionTimeoutMs: this.config.get('group.min.session.timeout.ms'),
        maxSessionTimeoutMs: this.config.get('group.max.session.timeout.ms'),
        initialRebalanceDelayMs: this.config.get('group.initial.rebalance.delay.ms'),
        maxGroupSize: this.config.get('group.max.size'),
        offsetMetadataMaxBytes: this.config.get('offset.metadata.max.bytes'),
        offsetsRetentionMs: this.config.get('offsets.retention.minutes') * 60 * 1000,
        offsetsRetentionCheckIntervalMs: this.config.get('offsets.retention.check.interval.ms'),
        offsetCommitTimeoutMs: this.config.get('offsets.commit.timeout.ms'),
        offsetsLoadBufferSize: this.config.get('offsets.load.buffer.size'),
      },
      offsetStore: new ZkOffsetStore(zk),
      offsetsLog: offsetsLogAccess(replicaManager, clock),
      // The topic's actual partition count once it exists, the configured one until then.
      partitionFor: (groupId) => coordinatorPartitionFor(groupId, metadataCache.numPartitions(GROUP_METADATA_TOPIC_NAME) ?? this.config.get('offsets.topic.num.partitions')),
      clock,
      brokerId: this.brokerId,
    });
    groupCoordinator.startup();
    this.shutdownHooks.push(() => groupCoordinator.shutdown());
    // Kafka starts the token manager before the socket server; the active controller removes expired tokens
    // (KafkaController's "delete-expired-tokens" task), which here is a periodic task that acts while this broker
    // is the controller.
    const tokenManager = new DelegationTokenManager(zk, delegationTokenConfigFrom(this.config), this.brokerId, clock);
    await tokenManager.startup();
    this.shutdownHooks.push(() => tokenManager.shutdown());
    // SCRAM logins with tokenauth=true authenticate as a token's owner, from the token cache (KIP-48).
    this.sasl?.scramCredentials.setTokenLookup({
      credential: (tokenId, mechanism) => tokenManager.cache.credential(tokenId, mechanism),
      tokenOwner: (tokenId) => tokenManager.cache.tokenOwner(tokenId),
    });
    if (tokenManager.tokenAuthEnabled) {
      scheduler.schedule('delete-expired-tokens', () => (controller.isActive ? tokenManager.expireTokens() : undefined), 0, tokenManager.expiryCheckIntervalMs);
    }
    const producerIdManager = new ProducerIdManager(this.brokerId, new ProducerIdBlockZk(zk));
    await producerIdManager.startup();
    const transactionCoordinator = createTransactionCoordinator({ brokerId: this.brokerId, config: this.config, clock, scheduler, replicaManager, metadataCache, producerIds: producerIdManager });
    transactionCoordinator.startup();
    this.shutdownHooks.push(() => transactionCoordinator.shutdown());
    const adminZk = new AdminZk(zk);
    const registry = this.registry as BrokerRegistryZk;
    const authorizer = await this.startAuthorizer(zk);
    const apis = createKafkaApis({
      brokerId: this.brokerId,
      clock,
      config: this.config,
      clusterId: this.clusterId,
      replicaManager,
      metadataCache,
      adminZk,
      brokerRegistry: registry,
      controller,
      groupCoordinator,
      transactionCoordinator,
      autoTopicCreation: new AutoTopicCreationManager(this.config, adminZk, registry),
      quotas,
      fetchManager: new FetchManager(clock, new FetchSessionCache(this.config.get('max.incremental.fetch.session.cache.slots'), MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS)),
      brokerEpoch: () => this.brokerEpoch,
      logConfigFor: (topic, overrides) => dynamicConfig.logConfigFor(topic, overrides),
      dynamicBrokerConfig,
      tokenManager,
      authorizer,
      producerIdManager,
      ...(metrics === undefined ? {} : { brokerTopicStats: metrics.brokerTopicStats }),
    });
    // The SASL listeners as `/config/brokers` left them (a JAAS entry set dynamically before this start, say).
    const saslListeners = new Map(this.sasl?.listeners ?? []);
    for (const listener of reconfiguredSaslListeners(this.config, dynamicBrokerConfig.current)) saslListeners.set(listener, this.resolveSaslListener(dynamicBrokerConfig.current, listener));
    // ... and the SASL listeners a dynamic `listeners` added before this start.
    for (const l of listenerChanges(this.config, dynamicBrokerConfig.current).added) {
      if (l.securityProtocol.startsWith('SASL_')) saslListeners.set(l.listenerName, this.resolveSaslListener(dynamicBrokerConfig.current, l.listenerName));
    }
    const socketServer = new SocketServer({ ...socketServerOptions(dynamicBrokerConfig.current, clock), saslListeners }, new RequestDispatcher(apis, metrics?.requests));
    await socketServer.startup();
    this.socketServer = socketServer;
    if (metrics !== undefined) {
      registerBrokerGauges(metrics, { replicaManager, controller, groupCoordinator, requestQueueSize: () => socketServer.requestQueueSize });
      registerConsumerLagGauges(metrics, groupCoordinator, replicaManager);
      await this.startMetricsServer(metrics);
    }
    dynamicConfig.attachIpQuotas(socketServer);
    this.shutdownHooks.push(() => socketServer.shutdown());
    this.applyDynamicReconfigurations(dynamicBrokerConfig, socketServer, replicaManager, logManager);
  }

  /**
   * The Prometheus endpoint on kafka.metrics.host (default: the first listener's host, all interfaces when that
   * is empty) and kafka.metrics.port. A port that cannot be bound stops the start-up, as a listener's would.
   */
  private async startMetricsServer(metrics: KafkaMetrics): Promise<void> {
    const host = this.config.get('kafka.metrics.host') ?? this.config.listeners[0]?.host ?? '';
    const port = this.config.get('kafka.metrics.port');
    const server = new MetricsHttpServer(host, port, metrics);
    try {
      await server.startup();
    } catch (err) {
      throw new KafkaServerStartupError(`Failed to bind the metrics endpoint to ${host}:${port}: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.metricsServer = server;
    this.shutdownHooks.push(() => server.shutdown());
  }

  /** The bound metrics port, -1 when kafka.metrics.port is not set. */
  get metricsPort(): number {
    return this.metricsServer?.boundPort() ?? -1;
  }

  /**
   * Kafka's reconfigurables that this broker has: on each dynamic broker config change, the socket server's
   * connection limits (DynamicConnectionQuota), the replica fetcher pool (DynamicThreadPool's
   * num.replica.fetchers) and the log cleaner (LogCleaner.reconfigure) take the keys that changed.
   */
  private applyDynamicReconfigurations(dynamic: DynamicBrokerConfig, socketServer: SocketServer, replicaManager: ReplicaManager, logManager: LogManager): void {
    const log = getLogger('kafka.server.DynamicBrokerConfig');
    // DynamicListenerConfig: listeners added and removed, then the registration rewritten.
    const listeners = new ListenerReconfiguration(socketServer, {
      saslListener: (config, listener) => this.resolveSaslListener(config, listener),
      reregister: () => (this.registry as BrokerRegistryZk).updateBrokerInfo(this.brokerInfo()),
    });
    let previous = dynamic.current;
    dynamic.onChange((config) => {
      const old = previous;
      previous = config;
      const changed = (keys: readonly BrokerConfigKey[]): boolean => keys.some((k) => String(old.get(k)) !== String(config.get(k)));
      const listenerLimits = listenerConnectionLimits(config);
      if (changed(CONNECTION_QUOTA_CONFIGS) || JSON.stringify([...listenerLimits]) !== JSON.stringify([...listenerConnectionLimits(old)])) {
        socketServer
          .reconfigureConnectionLimits({
            maxConnections: config.get('max.connections'),
            maxConnectionsPerIp: config.get('max.connections.per.ip'),
            maxConnectionsPerIpOverrides: config.maxConnectionsPerIpOverrides,
            maxConnectionCreationRate: config.get('max.connection.creation.rate'),
            listenerLimits,
          })
          .catch((err: unknown) => log.error('Failed to update the connection limits', err));
      }
      listeners.apply(old, config);
      for (const listener of reconfiguredSaslListeners(old, config)) {
        try {
          socketServer.reconfigureListenerSasl(listener, this.resolveSaslListener(config, listener));
        } catch (err) {
          log.error(`Failed to reconfigure SASL of listener ${listener}`, err);
        }
      }
      if (config.get('num.replica.fetchers') !== old.get('num.replica.fetchers')) {
        replicaManager.fetcherManager?.resizeThreadPool(config.get('num.replica.fetchers')).catch((err: unknown) => log.error('Failed to resize the replica fetcher pool', err));
      }
      if (changed(LOG_CLEANER_CONFIGS)) logManager.reconfigureCleaner(config.get('log.cleaner.backoff.ms'));
      for (const listener of reloadedTlsListeners(old, config)) {
        try {
          socketServer.reconfigureListenerTls(listener, serverTlsFor(config, listener));
        } catch (err) {
          log.error(`Failed to reconfigure the SSL key material of listener ${listener}`, err);
        }
      }
    });
    // SslFactory.validateReconfiguration: the new key material must load, make a context and keep the subject.
    dynamic.addReconfigurationValidator((current, next) => {
      for (const listener of reloadedTlsListeners(current, next)) {
        const proposed = serverTlsFor(next, listener);
        socketServer.validateListenerTls(listener, proposed);
        const existing = socketServer.listenerTls(listener);
        if (existing !== undefined) ensureCompatibleKeystore(existing, proposed);
      }
      // SaslChannelBuilder.validateReconfiguration: the listener's new mechanisms and JAAS entries must load.
      for (const listener of reconfiguredSaslListeners(current, next)) this.resolveSaslListener(next, listener);
      // A listener to add must be creatable: its key material loads, its SASL settings resolve.
      listeners.validate(listenerChanges(current, next).added, next);
    });
  }

  /** A SASL listener's settings from `config`, on the broker's one SCRAM credential cache. */
  private resolveSaslListener(config: KafkaConfig, listener: string): ReturnType<typeof resolveSaslListener> {
    if (this.sasl === undefined) throw new Error('SASL is not set up on this broker');
    return resolveSaslListener(config, listener, this.sasl.scramCredentials, this.jaasFile);
  }

  /**
   * authorizer.class.name's AclAuthorizer (Kafka's KafkaServer starts it before the request handlers): ACL paths
   * created, every ACL loaded, change notifications followed. super.users and allow.everyone.if.no.acl.found are
   * the authorizer's own keys, read from the broker's properties as Kafka's AclAuthorizer.configure does.
   */
  private async startAuthorizer(zk: ZkClient): Promise<AclAuthorizer | undefined> {
    if (this.config.get('authorizer.class.name') === '') return undefined;
    const authorizer = new AclAuthorizer(
      {
        superUsers: this.config.originals.get('super.users') ?? '',
        allowEveryoneIfNoAclFound: (this.config.originals.get('allow.everyone.if.no.acl.found') ?? 'false').trim().toLowerCase() === 'true',
      },
      new AclStoreZk(zk, this.clock),
    );
    await authorizer.start();
    this.shutdownHooks.push(() => authorizer.close());
    return authorizer;
  }

  private async initZkClient(): Promise<void> {
    const { zkConnect, zkSessionTimeoutMs, zkConnectionTimeoutMs } = this.config;
    this.log.info(`Connecting to zookeeper on ${zkConnect}`);
    // ZooKeeper over TLS (zookeeper.ssl.client.enable, or -Dzookeeper.client.secure=true in KAFKA_OPTS, a key of
    // server.properties winning over its system property): the stores as PEM files for the C client, removed at the end.
    const zkTls = zkTlsConfig((key) => this.config.originals.get(key), (name) => systemProperty(process.env, name));
    const tls = zooKeeperTls(zkTls);
    if (tls !== undefined) this.shutdownHooks.push(() => tls.dispose());
    const tlsClientAuth = tls !== undefined && zkTlsClientAuthEnabled(zkTls);
    // Kafka checks this before connecting: secure ACLs without a ZooKeeper login (or TLS client auth) stop the start-up.
    const security = { ...brokerZkSecurity(this.config.get('zookeeper.set.acl'), process.env, tlsClientAuth), ...(tls === undefined ? {} : { tls: tls.tls }) };
    await ClusterZk.ensureChroot(zkConnect, zkSessionTimeoutMs, zkConnectionTimeoutMs, security);
    this.zk = await ZkClient.connect({
      connectString: zkConnect,
      sessionTimeoutMs: zkSessionTimeoutMs,
      connectionTimeoutMs: zkConnectionTimeoutMs,
      maxInFlightRequests: this.config.get('zookeeper.max.in.flight.requests'),
      ...security,
      ...(this.metrics === undefined ? {} : { observer: zooKeeperClientObserver(this.metrics.zooKeeperClient) }),
    });
  }

  /**
   * Every log dir must agree on broker.id and cluster.id with each other, the config and ZooKeeper. A dir whose
   * meta.properties cannot be read (an I/O error) is offline from the start, as Kafka's
   * getBrokerMetadataAndOfflineDirs has it.
   */
  private readBrokerMetadata(): BrokerMetadata | null {
    let found: BrokerMetadata | null = null;
    for (const dir of this.config.logDirs) {
      let meta: BrokerMetadata | null;
      try {
        meta = new BrokerMetadataCheckpoint(dir).read();
      } catch (err) {
        if (!isIoError(err)) throw err;
        this.log.error(`Fail to read meta.properties under log directory ${dir}`, err);
        this.initialOfflineDirs.push(dir);
        continue;
      }
      if (meta === null) continue;
      if (found !== null && (found.brokerId !== meta.brokerId || found.clusterId !== meta.clusterId)) {
        throw new KafkaServerStartupError(
          `BrokerMetadata is not consistent across log.dirs. This could happen if multiple brokers shared a log directory (log.dirs) or partial data was manually copied from another broker. Found: ${this.config.logDirs.join(',')}`,
        );
      }
      found = meta;
    }
    if (found?.clusterId != null && found.clusterId !== this.clusterId) {
      throw new KafkaServerStartupError(
        `The Cluster ID ${this.clusterId} doesn't match stored clusterId Some(${found.clusterId}) in meta.properties. The broker is trying to join the wrong cluster. Configured zookeeper.connect may be wrong.`,
      );
    }
    return found;
  }

  private async resolveBrokerId(stored: BrokerMetadata | null, registry: BrokerRegistryZk): Promise<number> {
    const configured = this.config.brokerId;
    if (stored !== null && configured >= 0 && stored.brokerId !== configured) {
      throw new KafkaServerStartupError(
        `Configured broker.id ${configured} doesn't match stored broker.id ${stored.brokerId} in meta.properties. If you moved your data, make sure your configured broker.id matches. If you intend to create a new broker, you should remove all data in your data directories (log.dirs).`,
      );
    }
    if (configured >= 0) return configured;
    if (stored !== null) return stored.brokerId;
    return registry.generateBrokerId(this.config.get('reserved.broker.max.id'));
  }

  /** Missing log dirs are created by the LogManager; one that cannot be is offline, all of them is fatal. */
  private createLogDirs(): void {
    for (const dir of this.config.logDirs) {
      try {
        fs.mkdirSync(dir, { recursive: true });
      } catch (err) {
        if (!isIoError(err)) throw err;
      }
    }
  }

  /** meta.properties goes to the live log dirs only (Kafka's checkpointBrokerMetadata). */
  private writeBrokerMetadata(meta: BrokerMetadata): void {
    for (const dir of this.config.logDirs) {
      if (this.logManager !== undefined && !this.logManager.liveLogDirs().includes(path.resolve(dir))) continue;
      try {
        new BrokerMetadataCheckpoint(dir).write(meta);
      } catch (err) {
        if (isLogDirFailure(err)) this.logManager?.failureChannel.maybeAddOfflineLogDir(path.resolve(dir), `Error while writing meta.properties to ${dir}`, err);
        else if (isIoError(err)) this.log.warn(`Error while writing meta.properties to ${dir}; the dir stays online`, err);
        else throw err;
      }
    }
  }

  /** The advertised endpoints, with an empty host replaced by this machine's name as Kafka does. */
  advertisedEndpoints(): EndPoint[] {
    const endpoints = this.socketServer?.advertisedEndPoints() ?? this.config.advertisedListeners;
    return endpoints.map((e) => ({ ...e, host: e.host === '' ? os.hostname() : e.host }));
  }

  /**
   * KafkaServer.createBrokerInfo: the current (dynamic) advertised listeners; BrokerIdZNode writes the protocol
   * map of those endpoints.
   */
  private brokerInfo(): BrokerInfo {
    const endpoints = this.advertisedEndpoints();
    const protocolMap: Record<string, string> = {};
    for (const e of endpoints) protocolMap[e.listenerName] = e.securityProtocol;
    const jmx = Number(process.env['JMX_PORT'] ?? -1);
    return {
      id: this.brokerId,
      endpoints,
      listenerSecurityProtocolMap: protocolMap,
      jmxPort: Number.isInteger(jmx) && jmx > 0 ? jmx : -1,
      timestamp: this.clock.nowMs(),
      rack: this.config.get('broker.rack'),
      version: 5,
    };
  }

  /** Reverse order of start-up; safe to call more than once and after a failed start-up. */
  shutdown(): Promise<void> {
    this.shuttingDown ??= this.doShutdown();
    return this.shuttingDown;
  }

  private async doShutdown(): Promise<void> {
    this.log.info('shutting down');
    if (this.started && this.zk !== undefined && this.config.get('controlled.shutdown.enable')) {
      await controlledShutdown(this.zk, {
        brokerId: this.brokerId,
        brokerEpoch: this.brokerEpoch,
        listenerName: this.config.interBrokerListenerName,
        maxRetries: this.config.get('controlled.shutdown.max.retries'),
        retryBackoffMs: this.config.get('controlled.shutdown.retry.backoff.ms'),
        requestTimeoutMs: this.config.get('controller.socket.timeout.ms'),
        ...(this.interBrokerSecurity === undefined ? {} : { security: this.interBrokerSecurity }),
        ...(this.sasl?.interBroker === undefined ? {} : { sasl: this.sasl.interBroker }),
        clock: this.clock,
      }, this.log).catch((err: unknown) => this.log.warn('Controlled shutdown failed', err));
    }
    for (const hook of this.shutdownHooks.reverse()) {
      try {
        await hook();
      } catch (err) {
        this.log.warn('Error during shutdown', err);
      }
    }
    this.zk?.close();
    this.started = false;
    this.log.info('shut down completed');
  }
}

/** The kept TLS listeners whose reloadable ssl.* keys (listener-prefixed or not) differ between two configs. */
function reloadedTlsListeners(old: KafkaConfig, next: KafkaConfig): string[] {
  const kept = new Set(old.listeners.map((l) => l.listenerName));
  return next.listeners
    .filter((l) => kept.has(l.listenerName) && (l.securityProtocol === 'SSL' || l.securityProtocol === 'SASL_SSL'))
    .map((l) => l.listenerName)
    .filter((name) => [...RELOADABLE_SSL_CONFIGS].some((k) => old.listenerConfig(name).raw(k) !== next.listenerConfig(name).raw(k)));
}

/**
 * The SASL listeners whose mechanisms or JAAS entries differ between two configs (the listener's own
 * `listener.name.<l>.` keys, or the broker-wide sasl.enabled.mechanisms it falls back to).
 */
function reconfiguredSaslListeners(old: KafkaConfig, next: KafkaConfig): string[] {
  const saslKeys = (config: KafkaConfig, listener: string): string => {
    const prefix = config.listenerConfig(listener).prefix;
    const keys = [...config.originals].filter(([k]) => k.startsWith(prefix) && isDynamicListenerSaslKey(k.slice(prefix.length))).sort();
    return JSON.stringify([config.originals.get('sasl.enabled.mechanisms') ?? null, keys]);
  };
  const kept = new Set(old.listeners.map((l) => l.listenerName));
  return next.listeners.filter((l) => kept.has(l.listenerName) && l.securityProtocol.startsWith('SASL_')).map((l) => l.listenerName).filter((name) => saslKeys(old, name) !== saslKeys(next, name));
}
