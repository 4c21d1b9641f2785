import { createLogConfig, LogConfigDefaults } from '../common/config/log-config';
import { ErrorCode } from '../common/error-codes';
import { getLogger, Logger } from '../common/logging/logging';
import { Scheduler } from '../common/scheduler';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ControllerMovedError, ControllerZk, LeaderIsrWithVersion, TopicAssignmentWithVersion } from '../zk/controller-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { watchChildren, watchData, ZkWatch } from '../zk/zk-watch';
import { randomUuid } from '../common/uuid';
import { ConfigEntityZNode } from '../zk/znodes/config-znodes';
import { FeatureZNode } from '../zk/znodes/cluster-znodes';
import { BrokerChangeHandler } from './broker-change-handler';
import { ControllerChannel } from './controller-channel';
import { ControllerContext } from './controller-context';
import { ControllerEventManager, ControllerEventProcessor } from './controller-event-manager';
import {
  AlterReassignmentsResult,
  ApiReassignment,
  ControlledShutdownResult,
  ControllerEvent,
  ControllerEventKind,
  describeEvent,
  ElectionOutcome,
  ElectionType,
  failAdminElection,
  failAdminRequest,
  ListReassignmentsResult,
} from './controller-events';
import { ControllerOps } from './controller-ops';
import type { ControllerStatsObserver } from './controller-stats';
import { ControllerRequestBatch } from './controller-request-batch';
import { LeaderBalancer } from './leader-balancer';
import { LogDirFailureHandler } from './log-dir-failure-handler';
import { LogDirEventZk } from '../zk/log-dir-event-zk';
import { PartitionReassignment } from './partition-reassignment';
import { PartitionStateMachine } from './partition-state-machine';
import { ReplicaStateMachine } from './replica-state-machine';
import { csv, hashSet, replicaAssignment, scalaSet } from './scala-render';
import { TopicDeletionManager } from './topic-deletion-manager';

export interface ControllerConfig {
  brokerId: number;
  deleteTopicEnable: boolean;
  /** The broker's topic-key defaults: unclean.leader.election.enable of a topic resolves over these. */
  logConfigDefaults: LogConfigDefaults;
  autoLeaderRebalanceEnable: boolean;
  leaderImbalancePerBrokerPercentage: number;
  leaderImbalanceCheckIntervalSeconds: number;
  /** inter.broker.listener.name: the leader endpoints LeaderAndIsr names for followers to fetch from. */
  interBrokerListenerName?: string;
}

/** The parts the controller is built from; `channel` is made anew at every failover. */
export interface ControllerDeps {
  config: ControllerConfig;
  zk: ZkClient;
  createChannel: (context: ControllerContext) => ControllerChannel;
  clock?: Clock;
  /** ControllerStats, when kafka.metrics.port is set. */
  stats?: ControllerStatsObserver;
}

/** Everything that exists only while this broker is the active controller, built by onControllerFailover. */
interface ActiveController extends ControllerOps {
  readonly batch: ControllerRequestBatch;
  readonly brokerChange: BrokerChangeHandler;
  readonly leaderBalancer: LeaderBalancer;
  readonly reassignment: PartitionReassignment;
  readonly logDirFailures: LogDirFailureHandler;
}

/** Events that do something only on the active controller (each of Kafka's processXxx starts with `if (!isActive) return`). */
const ACTIVE_ONLY: ReadonlySet<ControllerEventKind> = new Set<ControllerEventKind>([
  'BrokerChange',
  'BrokerModifications',
  'TopicChange',
  'PartitionModifications',
  'TopicDeletion',
  'TopicDeletionStopReplicaResponseReceived',
  'IsrChangeNotification',
  'LogDirEventNotification',
  'LeaderAndIsrResponseReceived',
  'ZkPartitionReassignment',
  'ReplicaLeaderElection',
  'AutoPreferredReplicaLeaderElection',
]);

/**
 * Kafka's KafkaController: every broker runs one; the one that creates /controller is active until it loses
 * it. All work goes through one event queue (`process` below is Kafka's flat match from event to processXxx);
 * ZooKeeper watches only put events. The flows are Kafka 2.x's: failover, broker membership changes, topic
 * creation, partition addition, deletion, ISR change notifications, reassignment, preferred leader election and
 * controlled shutdown.
 */
export class KafkaController implements ControllerEventProcessor {
  readonly context = new ControllerContext();
  private readonly log: Logger;
  private readonly czk: ControllerZk;
  private readonly registry: BrokerRegistryZk;
  private readonly clock: Clock;
  private readonly events: ControllerEventManager;
  private scheduler: Scheduler | undefined;
  private activeControllerId = -1;
  private controllerWatch: ZkWatch | undefined;
  private activeWatches: ZkWatch[] = [];
  private readonly topicWatches = new Map<string, ZkWatch>();
  /** BrokerModificationsHandler per live broker, while active. */
  private readonly brokerWatches = new Map<number, ZkWatch>();
  /** Set only between a completed failover and the next resignation. */
  private activeState: ActiveController | undefined;
  private unregisterSession: (() => void)[] = [];

  constructor(private readonly deps: ControllerDeps) {
    const id = deps.config.brokerId;
    this.log = getLogger('kafka.controller.KafkaController', `[Controller id=${id}] `);
    this.czk = new ControllerZk(deps.zk);
    this.registry = new BrokerRegistryZk(deps.zk);
    this.clock = deps.clock ?? SYSTEM_CLOCK;
    this.events = new ControllerEventManager(id, this, this.clock, deps.stats);
  }

  get brokerId(): number {
    return this.deps.config.brokerId;
  }

  get isActive(): boolean {
    return this.activeControllerId === this.brokerId && this.activeState !== undefined;
  }

  get controllerId(): number {
    return this.activeControllerId;
  }

  /**
   * KafkaController's gauges (OfflinePartitionsCount, PreferredReplicaImbalanceCount, GlobalTopicCount,
   * GlobalPartitionCount), computed from the controller context when read; every one is 0 on a broker that is
   * not the active controller, as Kafka's are.
   */
  gaugeValues(): { offlinePartitions: number; preferredReplicaImbalance: number; globalTopics: number; globalPartitions: number } {
    const ctx = this.isActive ? this.activeState?.context : undefined;
    if (ctx === undefined) return { offlinePartitions: 0, preferredReplicaImbalance: 0, globalTopics: 0, globalPartitions: 0 };
    let imbalance = 0;
    const partitions = ctx.allPartitions();
    for (const tp of partitions) {
      if (ctx.isTopicQueuedForDeletion(tp.topic)) continue;
      const leader = ctx.leadership.get(tpString(tp))?.state.leader;
      if (leader !== undefined && leader !== ctx.replicasFor(tp)[0]) imbalance++;
    }
    return { offlinePartitions: ctx.partitionsWithOfflineLeader().length, preferredReplicaImbalance: imbalance, globalTopics: ctx.allTopics.size, globalPartitions: partitions.length };
  }

  startup(): void {
    this.events.start();
    this.unregisterSession.push(this.deps.zk.onBeforeSessionReinitialized(() => this.events.clearAndPut({ kind: 'Expire' })));
    this.unregisterSession.push(this.deps.zk.onSessionReinitialized(() => this.events.put({ kind: 'RegisterBrokerAndReelect' })));
    this.controllerWatch = watchData(this.deps.zk, ZkPaths.controller, (node) => this.events.put({ kind: node === null ? 'Reelect' : 'ControllerChange' }));
    this.events.put({ kind: 'Startup' });
  }

  async shutdown(): Promise<void> {
    this.controllerWatch?.close();
    for (const u of this.unregisterSession) u();
    await this.events.shutdown();
    await this.onControllerResignation();
  }

  /** Resolves once every event queued so far has been processed (for callers that need a settled view). */
  whenIdle(): Promise<void> {
    return this.events.whenIdle();
  }

  /** Broker-side entry point of a ControlledShutdown request; resolves with the partitions it still leads. */
  controlledShutdown(brokerId: number, brokerEpoch: number): Promise<ControlledShutdownResult> {
    return new Promise((callback) => this.events.put({ kind: 'ControlledShutdown', brokerId, brokerEpoch, callback }));
  }

  /**
   * Broker-side entry point of ElectLeaders (Kafka's KafkaController.electLeaders): a ReplicaLeaderElection event
   * (AdminClientTriggered) on the queue; resolves with each partition's new leader or error. On a broker that is
   * not the active controller every partition answers NOT_CONTROLLER.
   */
  electLeaders(partitions: readonly TopicPartition[], electionType: ElectionType): Promise<ElectionOutcome[]> {
    return new Promise((callback) => this.events.put({ kind: 'ReplicaLeaderElection', admin: { partitions, electionType, callback } }));
  }

  /**
   * Broker-side entry point of AlterPartitionReassignments (Kafka's KafkaController.alterPartitionReassignments):
   * an ApiPartitionReassignment event; off the active controller the answer is a top-level NOT_CONTROLLER.
   */
  alterPartitionReassignments(reassignments: readonly ApiReassignment[]): Promise<AlterReassignmentsResult> {
    return new Promise((callback) => this.events.put({ kind: 'ApiPartitionReassignment', reassignments, callback }));
  }

  /** Broker-side entry point of ListPartitionReassignments (null: every ongoing reassignment). */
  listPartitionReassignments(partitions: readonly TopicPartition[] | null): Promise<ListReassignmentsResult> {
    return new Promise((callback) => this.events.put({ kind: 'ListPartitionReassignments', partitions, callback }));
  }

  // ---- the event processor ----------------------------------------------------------------------------------

  async process(event: ControllerEvent): Promise<void> {
    if (event.kind === 'ReplicaLeaderElection' && event.admin !== undefined && !this.isActive) return failAdminElection(event.admin, ErrorCode.NOT_CONTROLLER.code);
    if ((event.kind === 'ApiPartitionReassignment' || event.kind === 'ListPartitionReassignments') && !this.isActive) return failAdminRequest(event, ErrorCode.NOT_CONTROLLER.code);
    if (ACTIVE_ONLY.has(event.kind) && !this.isActive) return;
    switch (event.kind) {
      case 'Startup':
      case 'RegisterBrokerAndReelect':
        return this.elect();
      case 'Expire':
        return this.processExpire();
      case 'Reelect':
        await this.maybeResign();
        return this.elect();
      case 'ControllerChange':
        // /controller changed: resign if it is no longer ours. If it now names no controller (its data is
        // unreadable), elect: the election removes such a node instead of waiting for it forever.
        await this.maybeResign();
        if (this.activeControllerId === -1) await this.elect();
        return;
      case 'BrokerChange':
        await this.active.brokerChange.process();
        this.syncBrokerModificationsHandlers();
        return;
      case 'BrokerModifications':
        return this.active.brokerChange.processBrokerModification(event.brokerId);
      case 'TopicChange':
        return this.processTopicChange();
      case 'PartitionModifications':
        return this.processPartitionModifications(event.topic);
      case 'TopicDeletion':
        return this.processTopicDeletion();
      case 'TopicDeletionStopReplicaResponseReceived':
        return this.active.topicDeletionManager.completeReplicaDeletion(event.brokerId, event.partitionErrors);
      case 'IsrChangeNotification':
        return this.processIsrChangeNotification();
      case 'LogDirEventNotification':
        return this.active.logDirFailures.processLogDirEventNotification();
      case 'LeaderAndIsrResponseReceived':
        return this.active.logDirFailures.processLeaderAndIsrResponseReceived(event.brokerId, event.errorCode, event.partitionErrors);
      case 'ZkPartitionReassignment':
        await this.active.reassignment.processZkPartitionReassignment();
        return;
      case 'ApiPartitionReassignment':
        event.callback({ errorCode: ErrorCode.NONE.code, partitions: await this.active.reassignment.processApiPartitionReassignment(event.reassignments) });
        return;
      case 'ListPartitionReassignments':
        event.callback({ errorCode: ErrorCode.NONE.code, reassignments: this.active.reassignment.listPartitionReassignments(event.partitions) });
        return;
      case 'ReplicaLeaderElection':
        return event.admin === undefined ? this.active.leaderBalancer.processZkTriggered() : this.active.leaderBalancer.processAdminTriggered(event.admin);
      case 'AutoPreferredReplicaLeaderElection':
        return this.active.leaderBalancer.processAutomatic();
      case 'ControlledShutdown':
        event.callback(this.isActive ? await this.active.brokerChange.doControlledShutdown(event.brokerId, event.brokerEpoch) : { errorCode: ErrorCode.NOT_CONTROLLER.code, remaining: [] });
        return;
    }
  }

  async handleError(event: ControllerEvent, err: unknown): Promise<void> {
    // An event that failed still answers its caller (a ControlledShutdown or an admin election would otherwise never
    // be answered).
    if (event.kind === 'ControlledShutdown') event.callback({ errorCode: err instanceof ControllerMovedError ? ErrorCode.NOT_CONTROLLER.code : ErrorCode.UNKNOWN_SERVER_ERROR.code, remaining: [] });
    if (event.kind === 'ReplicaLeaderElection' && event.admin !== undefined) failAdminElection(event.admin, err instanceof ControllerMovedError ? ErrorCode.NOT_CONTROLLER.code : ErrorCode.UNKNOWN_SERVER_ERROR.code);
    failAdminRequest(event, err instanceof ControllerMovedError ? ErrorCode.NOT_CONTROLLER.code : ErrorCode.UNKNOWN_SERVER_ERROR.code);
    if (err instanceof ControllerMovedError) {
      this.log.info(`Controller moved to another broker when processing ${describeEvent(event)}.`);
      await this.maybeResign();
      return;
    }
    this.log.error(`Error processing event ${describeEvent(event)}`, err);
  }

  /** The active controller's parts; outside a failover this is a controller move, not a TypeError. */
  private get active(): ActiveController {
    if (this.activeState === undefined) throw new ControllerMovedError(`Broker ${this.brokerId} is not the active controller`);
    return this.activeState;
  }

  // ---- election -------------------------------------------------------------------------------------------

  private async elect(): Promise<void> {
    this.activeControllerId = (await this.czk.getControllerId()) ?? -1;
    if (this.activeControllerId !== -1) {
      this.log.debug(`Broker ${this.activeControllerId} has been elected as the controller, so stopping the election process.`);
      return;
    }
    try {
      const won = await this.czk.registerControllerAndIncrementControllerEpoch(this.brokerId);
      if (won === null) {
        this.activeControllerId = (await this.czk.getControllerId()) ?? -1;
        return;
      }
      this.context.epoch = won.epoch;
      this.context.epochZkVersion = won.epochZkVersion;
      this.activeControllerId = this.brokerId;
      this.log.info(`${this.brokerId} successfully elected as the controller. Epoch incremented to ${won.epoch} and epoch zk version is now ${won.epochZkVersion}`);
      await this.onControllerFailover();
    } catch (err) {
      if (err instanceof ControllerMovedError) {
        await this.maybeResign();
        return;
      }
      this.log.error(`Error while electing or becoming controller on broker ${this.brokerId}. Trigger controller movement immediately`, err);
      await this.triggerControllerMove();
    }
  }

  private async processExpire(): Promise<void> {
    this.activeControllerId = -1;
    await this.onControllerResignation();
  }

  private async maybeResign(): Promise<void> {
    const wasActive = this.activeState !== undefined;
    this.activeControllerId = (await this.czk.getControllerId()) ?? -1;
    if (wasActive && this.activeControllerId !== this.brokerId) await this.onControllerResignation();
  }

  private async triggerControllerMove(): Promise<void> {
    this.activeControllerId = -1;
    await this.onControllerResignation();
    await this.czk.deleteController(this.context.epochZkVersion);
  }

  // ---- failover and resignation ---------------------------------------------------------------------------

  private async onControllerFailover(): Promise<void> {
    const zk = this.deps.zk;
    if ((await zk.exists(ZkPaths.feature)) === null) {
      this.log.info('Creating FeatureZNode at path: /feature with contents: FeatureZNode(Enabled,Features{})');
      await zk.create(ZkPaths.feature, FeatureZNode.encode(true)).catch(() => undefined);
    }
    this.log.info('Registering handlers');
    this.activeWatches = [
      watchChildren(zk, ZkPaths.brokerIds, () => this.events.put({ kind: 'BrokerChange' })),
      watchChildren(zk, ZkPaths.topics, () => this.events.put({ kind: 'TopicChange' })),
      watchChildren(zk, ZkPaths.deleteTopics, () => this.events.put({ kind: 'TopicDeletion' })),
      watchChildren(zk, ZkPaths.logDirEventNotification, (children) => {
        if (children !== null && children.length > 0) this.events.put({ kind: 'LogDirEventNotification' });
      }),
      watchChildren(zk, ZkPaths.isrChangeNotification, (children) => {
        if (children !== null && children.length > 0) this.events.put({ kind: 'IsrChangeNotification' });
      }),
      watchData(zk, ZkPaths.reassignPartitions, (node) => {
        if (node !== null) this.events.put({ kind: 'ZkPartitionReassignment' });
      }),
      watchData(zk, ZkPaths.preferredReplicaElection, (node) => {
        if (node !== null) this.events.put({ kind: 'ReplicaLeaderElection' });
      }),
    ];
    this.log.info('Deleting log dir event notifications');
    await this.czk.deleteChildren(ZkPaths.logDirEventNotification, (await zk.getChildren(ZkPaths.logDirEventNotification)) ?? []);
    this.log.info('Deleting isr change notifications');
    await this.czk.deleteChildren(ZkPaths.isrChangeNotification, (await zk.getChildren(ZkPaths.isrChangeNotification)) ?? []);
    this.log.info('Initializing controller context');
    const active = await this.initializeControllerContext();
    this.log.info('Fetching topic deletions in progress');
    const toDelete = (await this.czk.getTopicsToBeDeleted()).filter((t) => this.context.allTopics.has(t));
    const ineligible = toDelete.filter((t) => this.context.partitionsForTopic(t).some((tp) => this.context.replicasFor(tp).some((r) => !this.context.isReplicaOnline(r, tp))));
    this.log.info(`List of topics to be deleted: ${csv(toDelete)}`);
    this.log.info(`List of topics ineligible for deletion: ${csv(ineligible)}`);
    this.log.info('Initializing topic deletion manager');
    await active.topicDeletionManager.init(toDelete, ineligible);
    this.log.info('Sending update metadata request');
    active.sendUpdateMetadataRequest([...this.context.liveOrShuttingDownBrokerIds()], []);
    await active.replicaStateMachine.startup();
    await active.partitionStateMachine.startup();
    this.log.info(`Ready to serve as the new controller with epoch ${this.context.epoch}`);
    await active.reassignment.initializePartitionReassignments();
    await active.topicDeletionManager.resumeDeletions();
    await active.leaderBalancer.processZkTriggered();
    this.log.info('Starting the controller scheduler');
    this.scheduler = new Scheduler(this.clock);
    if (this.deps.config.autoLeaderRebalanceEnable) {
      this.scheduler.schedule('auto-leader-rebalance-task', () => this.events.put({ kind: 'AutoPreferredReplicaLeaderElection' }), 5000, this.deps.config.leaderImbalanceCheckIntervalSeconds * 1000);
    }
  }

  /** The state machines, deletion manager and flows of one failover, over one channel and request batch. */
  private buildActiveController(channel: ControllerChannel): ActiveController {
    const context = this.context;
    const batch = new ControllerRequestBatch(
      this.brokerId,
      context,
      channel,
      (brokerId, partitionErrors, deleted) => {
        if (deleted) this.events.put({ kind: 'TopicDeletionStopReplicaResponseReceived', brokerId, partitionErrors });
      },
      (brokerId, errorCode, partitionErrors) => this.events.put({ kind: 'LeaderAndIsrResponseReceived', brokerId, errorCode, partitionErrors }),
      this.deps.config.interBrokerListenerName,
    );
    const partitionStateMachine = new PartitionStateMachine({
      controllerId: this.brokerId,
      context,
      zk: this.czk,
      batch,
      uncleanLeaderElectionEnabled: (topic) => this.uncleanLeaderElectionEnabled(topic),
      ...(this.deps.stats === undefined ? {} : { stats: this.deps.stats }),
    });
    const replicaStateMachine = new ReplicaStateMachine({ controllerId: this.brokerId, context, zk: this.czk, batch });
    const topicDeletionManager = new TopicDeletionManager(this.brokerId, this.deps.config.deleteTopicEnable, context, this.czk, batch, partitionStateMachine, replicaStateMachine);
    const brokerId = this.brokerId;
    const ops: ControllerOps = {
      context,
      partitionStateMachine,
      replicaStateMachine,
      topicDeletionManager,
      channel,
      stateChangeLogger: () => getLogger('state.change.logger', `[Controller id=${brokerId} epoch=${context.epoch}] `),
      sendUpdateMetadataRequest: (brokers, partitions) => {
        batch.newBatch();
        batch.addUpdateMetadataRequestForBrokers(brokers, partitions);
        batch.sendRequestsToBrokers(context.epoch);
      },
      sendLeaderAndIsr: (brokers, tp) => {
        batch.newBatch();
        batch.addLeaderAndIsrRequestForBrokers(brokers, tp, false);
        batch.sendRequestsToBrokers(context.epoch);
      },
    };
    const active: ActiveController = {
      ...ops,
      batch,
      brokerChange: new BrokerChangeHandler(ops, this.registry, this.log),
      leaderBalancer: new LeaderBalancer(ops, this.czk, this.deps.config, this.log),
      reassignment: new PartitionReassignment(ops, this.czk, this.deps.zk, this.log),
      logDirFailures: new LogDirFailureHandler(ops, new LogDirEventZk(this.deps.zk), this.log),
    };
    this.activeState = active;
    return active;
  }

  /** Loads the cluster from ZooKeeper and opens the channel to its brokers; from here on this broker is active. */
  /**
   * Kafka's register/unregisterBrokerModificationsHandler: a data watch on `/brokers/ids/<id>` of every live
   * broker (a BrokerModifications event when its registration is rewritten), dropped for brokers gone.
   */
  private syncBrokerModificationsHandlers(): void {
    const live = this.context.liveBrokers;
    for (const [id, w] of this.brokerWatches) {
      if (live.has(id)) continue;
      w.close();
      this.brokerWatches.delete(id);
    }
    for (const id of live.keys()) {
      if (this.brokerWatches.has(id)) continue;
      // The first delivery is the registration as the context already has it (Kafka's handler only hears
      // data changes), so it puts no event.
      let first = true;
      this.brokerWatches.set(id, watchData(this.deps.zk, ZkPaths.brokerId(id), (n) => {
        if (n !== null && !first) this.events.put({ kind: 'BrokerModifications', brokerId: id });
        first = false;
      }));
    }
  }

  private async initializeControllerContext(): Promise<ActiveController> {
    const ctx = this.context;
    const brokers = await this.registry.getAllBrokersAndEpochs();
    for (const [id, { info, epoch }] of brokers) {
      ctx.liveBrokers.set(id, info);
      ctx.brokerEpochs.set(id, epoch);
    }
    this.log.info(`Initialized broker epochs cache: HashMap(${[...ctx.brokerEpochs].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
    await this.loadTopics(await this.czk.getAllTopics());
    const partitions = [...ctx.allPartitions()];
    await this.loadPartitionStates(partitions);
    const channel = this.deps.createChannel(ctx);
    // Handed over before anything else can fail, so that a resignation always closes it.
    const active = this.buildActiveController(channel);
    for (const broker of ctx.liveBrokers.values()) channel.addBroker(broker);
    this.syncBrokerModificationsHandlers();
    this.log.info(`Currently active brokers in the cluster: ${scalaSet([...ctx.liveBrokers.keys()].sort((a, b) => a - b))}`);
    this.log.info(`Currently shutting brokers in the cluster: ${hashSet(ctx.shuttingDownBrokerIds)}`);
    this.log.info(`Current list of topics in the cluster: ${hashSet([...ctx.allTopics].sort())}`);
    return active;
  }

  /**
   * Reads topics' assignments into the context (the reads in flight together, Kafka's getReplicaAssignmentForTopics)
   * and watches each for added partitions. Returns the partitions the context did not know.
   */
  private async loadTopics(topics: readonly string[]): Promise<TopicPartition[]> {
    const nodes = await Promise.all(topics.map((t) => this.czk.getTopicAssignment(t)));
    await this.processTopicIds(topics, nodes);
    return topics.flatMap((t, i) => this.loadTopic(t, nodes[i] ?? null));
  }

  /**
   * Kafka 2.8's processTopicIds (on failover and for new topics): a topic whose znode has no id (created by
   * kafka-topics --zookeeper or before 2.8) gets a random one written into its znode, the writes in flight
   * together; every id goes into the context. An unreadable znode is left alone (no partial rewrite).
   */
  private async processTopicIds(topics: readonly string[], nodes: readonly (TopicAssignmentWithVersion | null)[]): Promise<void> {
    const writes: Promise<void>[] = [];
    topics.forEach((topic, i) => {
      const node = nodes[i];
      if (node === null || node === undefined || node.unreadable) return;
      if (node.assignment.topicId === undefined) {
        const assignment = { ...node.assignment, topicId: randomUuid() };
        node.assignment = assignment;
        writes.push(this.czk.setTopicAssignment(topic, assignment));
      }
      this.context.topicIds.set(topic, node.assignment.topicId as string);
    });
    await Promise.all(writes);
  }

  /** Reads partitions' leader and ISR into the context, the reads in flight together; a failed read fails the event. */
  private async loadPartitionStates(partitions: readonly TopicPartition[]): Promise<void> {
    const states = await this.czk.getPartitionStates(partitions);
    partitions.forEach((tp, i) => {
      const state = states[i] as PromiseSettledResult<LeaderIsrWithVersion | null>;
      if (state.status === 'rejected') throw state.reason;
      if (state.value !== null) this.context.leadership.set(tpString(tp), state.value);
    });
  }

  private loadTopic(topic: string, node: TopicAssignmentWithVersion | null): TopicPartition[] {
    if (node === null) return [];
    this.context.allTopics.add(topic);
    const added: TopicPartition[] = [];
    for (const [p, replicas] of node.assignment.partitions) {
      const tp = { topic, partition: p };
      if (this.context.replicasFor(tp).length === 0) added.push(tp);
      this.context.setReplicas(tp, replicas);
      // A reassignment in flight (Kafka's isBeingReassigned): ORS = RS − AR, TRS = RS − RR.
      const adding = node.assignment.addingReplicas.get(p) ?? [];
      const removing = node.assignment.removingReplicas.get(p) ?? [];
      if ((adding.length > 0 || removing.length > 0) && !this.context.partitionsBeingReassigned.has(tpString(tp))) {
        this.context.partitionsBeingReassigned.set(tpString(tp), { tp, original: replicas.filter((b) => !adding.includes(b)), target: replicas.filter((b) => !removing.includes(b)) });
      }
    }
    if (!this.topicWatches.has(topic)) {
      this.topicWatches.set(topic, watchData(this.deps.zk, ZkPaths.topic(topic), (n) => {
        if (n !== null) this.events.put({ kind: 'PartitionModifications', topic });
      }));
    }
    return added;
  }

  /**
   * Undoes whatever part of a failover had been done, so a failover cut short by an expired session leaves no
   * watches or scheduled tasks behind. Like Kafka it runs (and logs "Resigned") on expiry and shutdown even on
   * a broker that was not the controller.
   */
  private async onControllerResignation(): Promise<void> {
    this.log.debug('Resigning');
    for (const w of this.activeWatches) w.close();
    for (const w of this.topicWatches.values()) w.close();
    for (const w of this.brokerWatches.values()) w.close();
    this.activeWatches = [];
    this.topicWatches.clear();
    this.brokerWatches.clear();
    const scheduler = this.scheduler;
    this.scheduler = undefined;
    await scheduler?.shutdown();
    const active = this.activeState;
    this.activeState = undefined;
    active?.partitionStateMachine.shutdown();
    active?.replicaStateMachine.shutdown();
    await active?.channel.shutdown();
    this.context.reset();
    this.log.info('Resigned');
  }

  // ---- flows -----------------------------------------------------------------------------------------------

  private async onNewPartitionCreation(partitions: readonly TopicPartition[]): Promise<void> {
    if (partitions.length === 0) return;
    const { partitionStateMachine: psm, replicaStateMachine: rsm } = this.active;
    this.log.info(`New partition creation callback for ${partitions.map(tpString).join(',')}`);
    const replicas = partitions.flatMap((tp) => this.context.replicasFor(tp).map((replica) => ({ tp, replica })));
    await psm.handleStateChanges(partitions, 'NewPartition');
    await rsm.handleStateChanges(replicas, 'NewReplica');
    await psm.handleStateChanges(partitions, 'OnlinePartition', { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: false });
    await rsm.handleStateChanges(replicas, 'OnlineReplica');
  }

  private async processTopicChange(): Promise<void> {
    const topics = new Set(await this.czk.getAllTopics());
    const newTopics = [...topics].filter((t) => !this.context.allTopics.has(t)).sort();
    const deletedTopics = [...this.context.allTopics].filter((t) => !topics.has(t)).sort();
    for (const t of deletedTopics) {
      this.topicWatches.get(t)?.close();
      this.topicWatches.delete(t);
      this.context.removeTopic(t);
    }
    const added = await this.loadTopics(newTopics);
    if (newTopics.length === 0 && deletedTopics.length === 0) return;
    const assignment = added.map((tp) => `${tpString(tp)} -> ${replicaAssignment(this.context.replicasFor(tp))}`).join(', ');
    this.log.info(`New topics: [${scalaSet(newTopics)}], deleted topics: [${hashSet(deletedTopics)}], new partition replica assignment [HashMap(${assignment})]`);
    await this.onNewPartitionCreation(added);
  }

  private async processPartitionModifications(topic: string): Promise<void> {
    const node = await this.czk.getTopicAssignment(topic);
    if (node === null) return;
    const toAdd = [...node.assignment.partitions].filter(([p]) => this.context.replicasFor({ topic, partition: p }).length === 0);
    if (toAdd.length === 0) return;
    if (this.context.isTopicQueuedForDeletion(topic)) {
      this.log.info(`Skipping adding partitions ${toAdd.map(([p]) => p).join(',')} for topic ${topic} since it is currently being deleted`);
      return;
    }
    this.log.info(`New partitions to be added HashMap(${toAdd.map(([p, r]) => `${tpKey(topic, p)} -> ${replicaAssignment(r)}`).join(', ')})`);
    for (const [p, r] of toAdd) this.context.setReplicas({ topic, partition: p }, r);
    await this.onNewPartitionCreation(toAdd.map(([p]) => ({ topic, partition: p })));
  }

  private async processTopicDeletion(): Promise<void> {
    let topics = await this.czk.getTopicsToBeDeleted();
    if (topics.length === 0) return;
    this.log.debug(`Delete topics listener fired for topics ${csv(topics)} to be deleted`);
    const nonExisting = topics.filter((t) => !this.context.allTopics.has(t));
    if (nonExisting.length > 0) {
      this.log.warn(`Ignoring request to delete non-existing topics ${csv(nonExisting)}`);
      await this.czk.deleteTopicDeletionNodes(nonExisting);
    }
    topics = topics.filter((t) => this.context.allTopics.has(t));
    if (topics.length === 0) return;
    if (!this.deps.config.deleteTopicEnable) {
      this.log.info(`Removing ${scalaSet(topics)} since delete topic is disabled`);
      await this.czk.deleteTopicDeletionNodes(topics);
      return;
    }
    const fresh = topics.filter((t) => !this.context.topicsToBeDeleted.has(t));
    if (fresh.length === 0) return;
    this.log.info(`Starting topic deletion for topics ${csv(fresh)}`);
    await this.active.topicDeletionManager.enqueueTopicsForDeletion(fresh);
  }

  private async processIsrChangeNotification(): Promise<void> {
    const children = (await this.deps.zk.getChildren(ZkPaths.isrChangeNotification)) ?? [];
    if (children.length === 0) return;
    let known: TopicPartition[] = [];
    try {
      const partitions = await this.czk.readPartitionNotifications(ZkPaths.isrChangeNotification, children);
      known = partitions.filter((tp) => this.context.replicasFor(tp).length > 0);
      await this.loadPartitionStates(known);
      const brokers = [...this.context.liveOrShuttingDownBrokerIds()];
      this.log.debug(`Sending MetadataRequest to Brokers: List(${brokers.join(', ')}) for TopicPartitions: List(${known.map(tpString).join(', ')})`);
      this.active.sendUpdateMetadataRequest(brokers, known);
    } finally {
      // As Kafka: the notifications go whatever happened to them (an unreadable one must not stay forever).
      await this.czk.deleteChildren(ZkPaths.isrChangeNotification, children);
    }
    await this.active.reassignment.onIsrChange(known);
  }

  /**
   * A topic's unclean.leader.election.enable: its override in /config/topics over the broker default, resolved
   * as Kafka's LogConfig.fromProps. An unreadable override counts as absent (and is logged): an election must
   * not fail on it.
   */
  private async uncleanLeaderElectionEnabled(topic: string): Promise<boolean> {
    const defaults = this.deps.config.logConfigDefaults;
    const data = await this.czk.getTopicConfig(topic);
    if (data === null) return createLogConfig(defaults).uncleanLeaderElectionEnable;
    try {
      return createLogConfig(defaults, ConfigEntityZNode.decode(ZkPaths.configEntity('topics', topic), data)).uncleanLeaderElectionEnable;
    } catch (err) {
      this.log.warn(`Ignoring the invalid config of topic ${topic} for leader election`, err);
      return createLogConfig(defaults).uncleanLeaderElectionEnable;
    }
  }
}
