import { ErrorCode } from '../common/error-codes';
import { getLogger, Logger } from '../common/logging/logging';
import { Scheduler } from '../common/scheduler';
import { SystemClock } from '../common/time';
import { TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ControllerMovedError, ControllerZk } from '../zk/controller-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { watchChildren, watchData, ZkWatch } from '../zk/zk-watch';
import { ConfigEntityZNode } from '../zk/znodes/config-znodes';
import { FeatureZNode } from '../zk/znodes/cluster-znodes';
import { ControllerChannel } from './controller-channel';
import { ControllerContext } from './controller-context';
import { ControllerEventManager, QueuedEvent } from './controller-event-manager';
import { ControllerRequestBatch } from './controller-request-batch';
import { PartitionStateMachine } from './partition-state-machine';
import { ReplicaStateMachine } from './replica-state-machine';
import { csv, hashSet, replicaAssignment, scalaSet } from './scala-render';
import { TopicDeletionManager } from './topic-deletion-manager';
import { BrokerChangeHandler } from './broker-change-handler';
import { LeaderBalancer } from './leader-balancer';
import { PartitionReassignment } from './partition-reassignment';

export interface ControllerConfig {
  brokerId: number;
  deleteTopicEnable: boolean;
  uncleanLeaderElectionEnable: boolean;
  autoLeaderRebalanceEnable: boolean;
  leaderImbalancePerBrokerPercentage: number;
  leaderImbalanceCheckIntervalSeconds: number;
}

/** The parts the controller is built from; `channel` is made anew at every failover. */
export interface ControllerDeps {
  config: ControllerConfig;
  zk: ZkClient;
  createChannel: (context: ControllerContext) => ControllerChannel;
}

/**
 * Kafka's KafkaController: every broker runs one; the one that creates /controller is active until it loses
 * it. All work goes through one event queue; ZooKeeper watches only enqueue. The flows are Kafka 2.x's:
 * failover, broker membership changes, topic creation, partition addition, deletion, ISR change
 * notifications, preferred leader election and controlled shutdown.
 */
export class KafkaController {
  readonly context = new ControllerContext();
  private readonly log: Logger;
  private readonly czk: ControllerZk;
  private readonly registry: BrokerRegistryZk;
  private readonly events: ControllerEventManager;
  private scheduler: Scheduler | undefined;
  private activeControllerId = -1;
  private controllerWatch: ZkWatch | undefined;
  private activeWatches: ZkWatch[] = [];
  private topicWatches = new Map<string, ZkWatch>();
  private channel: ControllerChannel | undefined;
  private batch: ControllerRequestBatch | undefined;
  private partitionStateMachine: PartitionStateMachine | undefined;
  private replicaStateMachine: ReplicaStateMachine | undefined;
  private deletionManager: TopicDeletionManager | undefined;
  private reassignmentValue: PartitionReassignment | undefined;
  private unregisterSession: (() => void)[] = [];

  constructor(private readonly deps: ControllerDeps) {
    const id = deps.config.brokerId;
    this.log = getLogger('kafka.controller.KafkaController', `[Controller id=${id}] `);
    this.czk = new ControllerZk(deps.zk);
    this.registry = new BrokerRegistryZk(deps.zk);
    this.events = new ControllerEventManager(id, (event, err) => this.handleEventError(event, err));
  }

  get brokerId(): number {
    return this.deps.config.brokerId;
  }

  get isActive(): boolean {
    return this.activeControllerId === this.brokerId && this.channel !== undefined;
  }

  get controllerId(): number {
    return this.activeControllerId;
  }

  startup(): void {
    this.events.start();
    this.unregisterSession.push(this.deps.zk.onBeforeSessionReinitialized(() => this.enqueue('Expire', () => this.processExpire(), true)));
    this.unregisterSession.push(this.deps.zk.onSessionReinitialized(() => this.enqueue('RegisterBrokerAndReelect', () => this.elect())));
    this.controllerWatch = watchData(this.deps.zk, ZkPaths.controller, (node) => {
      if (node === null) this.enqueue('Reelect', () => this.processReelect());
      else this.enqueue('ControllerChange', () => this.processControllerChange());
    });
    this.enqueue('Startup', () => this.elect());
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

  enqueue(name: string, run: () => Promise<void>, clearFirst = false): void {
    const event: QueuedEvent = { name, process: run };
    if (clearFirst) this.events.clearAndPut(event);
    else this.events.put(event);
  }

  private async handleEventError(event: QueuedEvent, err: unknown): Promise<void> {
    if (err instanceof ControllerMovedError) {
      this.log.info(`Controller moved to another broker when processing ${event.name}.`);
      await this.maybeResign();
      return;
    }
    this.log.error(`Error processing event ${event.name}`, err);
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

  private async processControllerChange(): Promise<void> {
    await this.maybeResign();
  }

  private async processReelect(): Promise<void> {
    await this.maybeResign();
    await this.elect();
  }

  private async processExpire(): Promise<void> {
    this.activeControllerId = -1;
    await this.onControllerResignation();
  }

  private async maybeResign(): Promise<void> {
    const wasActive = this.channel !== undefined;
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
      watchChildren(zk, ZkPaths.brokerIds, () => this.enqueue('BrokerChange', () => this.ifActive(() => this.brokerChange().process()))),
      watchChildren(zk, ZkPaths.topics, () => this.enqueue('TopicChange', () => this.ifActive(() => this.processTopicChange()))),
      watchChildren(zk, ZkPaths.deleteTopics, () => this.enqueue('TopicDeletion', () => this.ifActive(() => this.processTopicDeletion()))),
      watchChildren(zk, ZkPaths.isrChangeNotification, (children) => {
        if (children !== null && children.length > 0) this.enqueue('IsrChangeNotification', () => this.ifActive(() => this.processIsrChangeNotification()));
      }),
      watchData(zk, ZkPaths.reassignPartitions, (node) => {
        if (node !== null) this.enqueue('ZkPartitionReassignment', () => this.ifActive(() => this.reassignment.processZkPartitionReassignment()));
      }),
      watchData(zk, ZkPaths.preferredReplicaElection, (node) => {
        if (node !== null) this.enqueue('ReplicaLeaderElection', () => this.ifActive(() => this.leaderBalancer().processZkTriggered()));
      }),
    ];
    this.log.info('Deleting log dir event notifications');
    await this.czk.deleteChildren(ZkPaths.logDirEventNotification, (await zk.getChildren(ZkPaths.logDirEventNotification)) ?? []);
    this.log.info('Deleting isr change notifications');
    await this.czk.deleteChildren(ZkPaths.isrChangeNotification, (await zk.getChildren(ZkPaths.isrChangeNotification)) ?? []);
    this.log.info('Initializing controller context');
    await this.initializeControllerContext();
    this.log.info('Fetching topic deletions in progress');
    const toDelete = (await this.czk.getTopicsToBeDeleted()).filter((t) => this.context.allTopics.has(t));
    const ineligible = toDelete.filter((t) => this.context.partitionsForTopic(t).some((tp) => this.context.replicasFor(tp).some((r) => !this.context.isReplicaOnline(r))));
    this.log.info(`List of topics to be deleted: ${csv(toDelete)}`);
    this.log.info(`List of topics ineligible for deletion: ${csv(ineligible)}`);
    this.log.info('Initializing topic deletion manager');
    const batch = this.batch as ControllerRequestBatch;
    const psm = new PartitionStateMachine({
      controllerId: this.brokerId,
      context: this.context,
      zk: this.czk,
      batch,
      uncleanLeaderElectionEnabled: (topic) => this.uncleanLeaderElectionEnabled(topic),
    });
    const rsm = new ReplicaStateMachine({ controllerId: this.brokerId, context: this.context, zk: this.czk, batch });
    this.partitionStateMachine = psm;
    this.replicaStateMachine = rsm;
    this.deletionManager = new TopicDeletionManager(this.brokerId, this.deps.config.deleteTopicEnable, this.context, this.czk, batch, psm, rsm);
    await this.deletionManager.init(toDelete, ineligible);
    this.reassignmentValue = new PartitionReassignment(this, this.czk, zk, this.log);
    this.log.info('Sending update metadata request');
    this.sendUpdateMetadataRequest([...this.context.liveOrShuttingDownBrokerIds()], []);
    await rsm.startup();
    await psm.startup();
    this.log.info(`Ready to serve as the new controller with epoch ${this.context.epoch}`);
    await this.deletionManager.resumeDeletions();
    await this.leaderBalancer().processZkTriggered();
    this.log.info('Starting the controller scheduler');
    this.scheduler = new Scheduler(new SystemClock());
    if (this.deps.config.autoLeaderRebalanceEnable) {
      this.scheduler.schedule('auto-leader-rebalance-task', () => this.enqueue('AutoPreferredReplicaLeaderElection', () => this.ifActive(() => this.leaderBalancer().processAutomatic())), 5000, this.deps.config.leaderImbalanceCheckIntervalSeconds * 1000);
    }
  }

  private async initializeControllerContext(): Promise<void> {
    const ctx = this.context;
    const brokers = await this.registry.getAllBrokersAndEpochs();
    for (const [id, { info, epoch }] of brokers) {
      ctx.liveBrokers.set(id, info);
      ctx.brokerEpochs.set(id, epoch);
    }
    this.log.info(`Initialized broker epochs cache: HashMap(${[...ctx.brokerEpochs].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
    for (const topic of await this.czk.getAllTopics()) await this.loadTopic(topic);
    for (const tp of ctx.allPartitions()) {
      const state = await this.czk.getPartitionState(tp.topic, tp.partition);
      if (state !== null) ctx.leadership.set(tpString(tp), state);
    }
    this.channel = this.deps.createChannel(ctx);
    this.batch = new ControllerRequestBatch(this.brokerId, ctx, this.channel, (brokerId, errors, deleted) => {
      if (deleted) this.enqueue('TopicDeletionStopReplicaResponseReceived', () => this.ifActive(() => this.deletionManager?.completeReplicaDeletion(brokerId, errors) ?? Promise.resolve()));
    });
    for (const broker of ctx.liveBrokers.values()) this.channel.addBroker(broker);
    this.log.info(`Currently active brokers in the cluster: ${scalaSet([...ctx.liveBrokers.keys()].sort((a, b) => a - b))}`);
    this.log.info(`Currently shutting brokers in the cluster: ${hashSet(ctx.shuttingDownBrokerIds)}`);
    this.log.info(`Current list of topics in the cluster: ${hashSet([...ctx.allTopics].sort())}`);
  }

  /** Reads a topic's assignment into the context and watches it for added partitions. */
  async loadTopic(topic: string): Promise<TopicPartition[]> {
    const node = await this.czk.getTopicAssignment(topic);
    if (node === null) return [];
    this.context.allTopics.add(topic);
    const added: TopicPartition[] = [];
    for (const [p, replicas] of node.assignment.partitions) {
      if (this.context.replicasFor({ topic, partition: p }).length === 0) added.push({ topic, partition: p });
      this.context.setReplicas({ topic, partition: p }, replicas);
    }
    if (!this.topicWatches.has(topic)) {
      this.topicWatches.set(topic, watchData(this.deps.zk, ZkPaths.topic(topic), (n) => {
        if (n !== null) this.enqueue(`PartitionModifications(${topic})`, () => this.ifActive(() => this.processPartitionModifications(topic)));
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
    this.activeWatches = [];
    this.topicWatches.clear();
    const scheduler = this.scheduler;
    this.scheduler = undefined;
    await scheduler?.shutdown();
    this.partitionStateMachine?.shutdown();
    this.replicaStateMachine?.shutdown();
    this.reassignmentValue = undefined;
    const channel = this.channel;
    this.channel = undefined;
    this.batch = undefined;
    await channel?.shutdown();
    this.context.reset();
    this.log.info('Resigned');
  }

  private async ifActive(run: () => Promise<void>): Promise<void> {
    if (this.isActive) await run();
  }

  // ---- flows -----------------------------------------------------------------------------------------------

  get psm(): PartitionStateMachine {
    return this.partitionStateMachine as PartitionStateMachine;
  }

  get rsm(): ReplicaStateMachine {
    return this.replicaStateMachine as ReplicaStateMachine;
  }

  get deletion(): TopicDeletionManager {
    return this.deletionManager as TopicDeletionManager;
  }

  get reassignment(): PartitionReassignment {
    return this.reassignmentValue as PartitionReassignment;
  }

  /** The controller's side of state-change.log. */
  stateChangeLogger(): Logger {
    return getLogger('state.change.logger', `[Controller id=${this.brokerId} epoch=${this.context.epoch}] `);
  }

  /** LeaderAndIsr with the current leadership of `tp` to `brokers`, as one batch. */
  sendLeaderAndIsr(brokers: readonly number[], tp: TopicPartition): void {
    const batch = this.batch as ControllerRequestBatch;
    batch.newBatch();
    batch.addLeaderAndIsrRequestForBrokers(brokers, tp, false);
    batch.sendRequestsToBrokers(this.context.epoch);
  }

  get channelOrThrow(): ControllerChannel {
    if (this.channel === undefined) throw new ControllerMovedError('not the active controller');
    return this.channel;
  }

  private brokerChange(): BrokerChangeHandler {
    return new BrokerChangeHandler(this, this.registry, this.log);
  }

  private leaderBalancer(): LeaderBalancer {
    return new LeaderBalancer(this, this.czk, this.deps.config, this.log);
  }

  sendUpdateMetadataRequest(brokers: readonly number[], partitions: readonly TopicPartition[]): void {
    const batch = this.batch as ControllerRequestBatch;
    batch.newBatch();
    batch.addUpdateMetadataRequestForBrokers(brokers, partitions);
    batch.sendRequestsToBrokers(this.context.epoch);
  }

  async onNewPartitionCreation(partitions: readonly TopicPartition[]): Promise<void> {
    if (partitions.length === 0) return;
    this.log.info(`New partition creation callback for ${partitions.map(tpString).join(',')}`);
    const replicas = partitions.flatMap((tp) => this.context.replicasFor(tp).map((replica) => ({ tp, replica })));
    await this.psm.handleStateChanges(partitions, 'NewPartition');
    await this.rsm.handleStateChanges(replicas, 'NewReplica');
    await this.psm.handleStateChanges(partitions, 'OnlinePartition', { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: false });
    await this.rsm.handleStateChanges(replicas, 'OnlineReplica');
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
    const added: TopicPartition[] = [];
    for (const t of newTopics) added.push(...(await this.loadTopic(t)));
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
    await this.deletion.enqueueTopicsForDeletion(fresh);
  }

  private async processIsrChangeNotification(): Promise<void> {
    const children = (await this.deps.zk.getChildren(ZkPaths.isrChangeNotification)) ?? [];
    if (children.length === 0) return;
    const partitions = await this.czk.readPartitionNotifications(ZkPaths.isrChangeNotification, children);
    const known = partitions.filter((tp) => this.context.replicasFor(tp).length > 0);
    for (const tp of known) {
      const state = await this.czk.getPartitionState(tp.topic, tp.partition);
      if (state !== null) this.context.leadership.set(tpString(tp), state);
    }
    const brokers = [...this.context.liveOrShuttingDownBrokerIds()];
    this.log.debug(`Sending MetadataRequest to Brokers: List(${brokers.join(', ')}) for TopicPartitions: List(${known.map(tpString).join(', ')})`);
    this.sendUpdateMetadataRequest(brokers, known);
    await this.czk.deleteChildren(ZkPaths.isrChangeNotification, children);
    await this.reassignment.onIsrChange(known);
  }

  /** Broker-side entry point of a ControlledShutdown request; resolves with the partitions it still leads. */
  controlledShutdown(brokerId: number, brokerEpoch: number): Promise<{ errorCode: number; remaining: TopicPartition[] }> {
    return new Promise((resolve) => {
      this.enqueue('ControlledShutdown', async () => {
        if (!this.isActive) {
          resolve({ errorCode: ErrorCode.NOT_CONTROLLER.code, remaining: [] });
          return;
        }
        resolve(await this.brokerChange().doControlledShutdown(brokerId, brokerEpoch));
      });
    });
  }

  async uncleanLeaderElectionEnabled(topic: string): Promise<boolean> {
    const data = await this.czk.getTopicConfig(topic);
    const override = data === null ? undefined : ConfigEntityZNode.decode(ZkPaths.configEntity('topics', topic), data).get('unclean.leader.election.enable');
    return override === undefined ? this.deps.config.uncleanLeaderElectionEnable : override.trim().toLowerCase() === 'true';
  }
}
