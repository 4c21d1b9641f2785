import { ErrorCode } from '../common/error-codes';
import { Logger } from '../common/logging/logging';
import { tpString } from '../common/topic-partition';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { BrokerInfo } from '../zk/znodes/broker-info';
import { csv, hashSet } from './scala-render';
import { ControllerOps } from './controller-ops';
import { ControlledShutdownResult } from './controller-events';

/**
 * Broker membership flows of the controller (Kafka's processBrokerChange, onBrokerStartup, onBrokerFailure and
 * doControlledShutdown), run inside controller events.
 */
export class BrokerChangeHandler {
  constructor(
    private readonly controller: ControllerOps,
    private readonly registry: BrokerRegistryZk,
    private readonly log: Logger,
  ) {}

  async process(): Promise<void> {
    const ctx = this.controller.context;
    const current = await this.registry.getAllBrokersAndEpochs();
    const known = new Set(ctx.liveBrokers.keys());
    const newIds = [...current.keys()].filter((id) => !known.has(id)).sort((a, b) => a - b);
    const deadIds = [...known].filter((id) => !current.has(id)).sort((a, b) => a - b);
    const bouncedIds = [...current.keys()].filter((id) => known.has(id) && (current.get(id)?.epoch ?? 0) > (ctx.brokerEpochs.get(id) ?? 0)).sort((a, b) => a - b);
    if (newIds.length === 0 && deadIds.length === 0 && bouncedIds.length === 0) return;
    const all = [...current.keys()].sort((a, b) => a - b);
    this.log.info(`Newly added brokers: ${csv(newIds)}, deleted brokers: ${csv(deadIds)}, bounced brokers: ${csv(bouncedIds)}, all live brokers: ${csv(all)}`);
    const channel = this.controller.channel;
    for (const id of [...deadIds, ...bouncedIds]) {
      channel.removeBroker(id);
      ctx.liveBrokers.delete(id);
      ctx.brokerEpochs.delete(id);
    }
    if (deadIds.length > 0 || bouncedIds.length > 0) await this.onBrokerFailure([...deadIds, ...bouncedIds]);
    for (const id of [...newIds, ...bouncedIds]) {
      const entry = current.get(id);
      if (entry === undefined) continue;
      ctx.liveBrokers.set(id, entry.info);
      ctx.brokerEpochs.set(id, entry.epoch);
      channel.addBroker(entry.info);
    }
    if (newIds.length > 0 || bouncedIds.length > 0) await this.onBrokerStartup([...newIds, ...bouncedIds]);
    this.log.info(`Updated broker epochs cache: HashMap(${[...ctx.brokerEpochs].map(([k, v]) => `${k} -> ${v}`).join(', ')})`);
  }

  /**
   * Kafka's processBrokerModification: a live broker rewrote its registration (its listeners changed at run
   * time). When its endpoints differ from the context's, the context takes the new ones and every live broker
   * gets an UpdateMetadata with them (onBrokerUpdate), so Metadata everywhere lists the new endpoints.
   */
  async processBrokerModification(brokerId: number): Promise<void> {
    const ctx = this.controller.context;
    const newMetadata = await this.registry.getBroker(brokerId);
    const oldMetadata = ctx.liveBrokers.get(brokerId);
    if (newMetadata === null || oldMetadata === undefined) return;
    if (JSON.stringify(endPoints(newMetadata)) === JSON.stringify(endPoints(oldMetadata))) return;
    this.log.info(`Updated broker metadata: ${brokerText(oldMetadata)} -> ${brokerText(newMetadata)}`);
    ctx.liveBrokers.set(brokerId, newMetadata);
    this.log.info(`Broker info update callback for ${brokerId}`);
    this.controller.sendUpdateMetadataRequest([...ctx.liveOrShuttingDownBrokerIds()], []);
  }

  private async onBrokerStartup(ids: number[]): Promise<void> {
    const ctx = this.controller.context;
    this.log.info(`New broker startup callback for ${csv(ids)}`);
    // A (re)registered broker starts with every log dir it could load: what its LeaderAndIsr answers will tell.
    for (const id of ids) ctx.replicasOnOfflineDirs.delete(id);
    const newSet = new Set(ids);
    const existing = [...ctx.liveOrShuttingDownBrokerIds()].filter((id) => !newSet.has(id));
    this.controller.sendUpdateMetadataRequest(existing, []);
    this.controller.sendUpdateMetadataRequest(ids, ctx.allPartitions().filter((tp) => ctx.leadership.has(tpString(tp))));
    const replicas = ctx.allPartitions().flatMap((tp) => ctx.replicasFor(tp).filter((r) => newSet.has(r)).map((replica) => ({ tp, replica })));
    const notDeleting = replicas.filter((pr) => !ctx.isTopicQueuedForDeletion(pr.tp.topic));
    await this.controller.replicaStateMachine.handleStateChanges(notDeleting, 'OnlineReplica');
    await this.controller.partitionStateMachine.triggerOnlinePartitionStateChange();
    const deleting = [...new Set(replicas.filter((pr) => ctx.isTopicQueuedForDeletion(pr.tp.topic)).map((pr) => pr.tp.topic))];
    await this.controller.topicDeletionManager.resumeDeletionForTopics(deleting);
  }

  private async onBrokerFailure(ids: number[]): Promise<void> {
    const ctx = this.controller.context;
    this.log.info(`Broker failure callback for ${csv(ids)}`);
    for (const id of ids) ctx.replicasOnOfflineDirs.delete(id);
    const removed = ids.filter((id) => ctx.shuttingDownBrokerIds.delete(id));
    if (removed.length > 0) this.log.info(`Removed ${csv(removed)} from list of shutting down brokers.`);
    const dead = new Set(ids);
    const ledByDead = ctx.allPartitions().filter((tp) => {
      const leader = ctx.leadership.get(tpString(tp))?.state.leader;
      return leader !== undefined && dead.has(leader) && !ctx.isTopicQueuedForDeletion(tp.topic);
    });
    await this.controller.partitionStateMachine.handleStateChanges(ledByDead, 'OfflinePartition');
    await this.controller.partitionStateMachine.triggerOnlinePartitionStateChange();
    const replicas = ctx.allPartitions().flatMap((tp) => ctx.replicasFor(tp).filter((r) => dead.has(r)).map((replica) => ({ tp, replica })));
    const notDeleting = replicas.filter((pr) => !ctx.isTopicQueuedForDeletion(pr.tp.topic));
    await this.controller.replicaStateMachine.handleStateChanges(notDeleting, 'OfflineReplica');
    const deleting = replicas.filter((pr) => ctx.isTopicQueuedForDeletion(pr.tp.topic));
    if (deleting.length > 0) {
      await this.controller.replicaStateMachine.handleStateChanges(deleting, 'ReplicaDeletionIneligible');
      this.controller.topicDeletionManager.markTopicIneligibleForDeletion([...new Set(deleting.map((pr) => pr.tp.topic))], 'offline replicas');
    }
    if (ledByDead.length === 0 && notDeleting.length === 0) this.controller.sendUpdateMetadataRequest([...ctx.liveOrShuttingDownBrokerIds()], []);
  }

  /**
   * Moves leadership away from a broker that asked to shut down, and takes its follower replicas out of the ISRs.
   * Answers with the partitions it still leads (empty means it may stop without clients seeing unavailability).
   */
  async doControlledShutdown(brokerId: number, brokerEpoch: number): Promise<ControlledShutdownResult> {
    const ctx = this.controller.context;
    if (!ctx.liveBrokers.has(brokerId)) {
      this.log.warn(`Broker id ${brokerId} does not exist.`);
      return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE.code, remaining: [] };
    }
    const current = ctx.brokerEpochs.get(brokerId) ?? -1;
    if (brokerEpoch !== -1 && brokerEpoch < current) {
      this.log.info(`Received controlled shutdown request from an old broker epoch ${brokerEpoch} for broker ${brokerId}. Current broker epoch is ${current}.`);
      return { errorCode: ErrorCode.STALE_BROKER_EPOCH.code, remaining: [] };
    }
    this.log.info(`Shutting down broker ${brokerId}`);
    ctx.shuttingDownBrokerIds.add(brokerId);
    this.log.debug(`All shutting down brokers: ${csv(ctx.shuttingDownBrokerIds)}`);
    this.log.debug(`Live brokers: ${csv(ctx.liveBrokerIds())}`);
    const partitions = ctx.partitionsOnBroker(brokerId).filter((tp) => ctx.replicasFor(tp).length > 1 && ctx.leadership.has(tpString(tp)) && !ctx.isTopicQueuedForDeletion(tp.topic));
    const led = partitions.filter((tp) => ctx.leadership.get(tpString(tp))?.state.leader === brokerId);
    const followed = partitions.filter((tp) => ctx.leadership.get(tpString(tp))?.state.leader !== brokerId);
    await this.controller.partitionStateMachine.handleStateChanges(led, 'OnlinePartition', { kind: 'ControlledShutdownPartitionLeaderElectionStrategy' });
    await this.controller.replicaStateMachine.handleStateChanges(followed.map((tp) => ({ tp, replica: brokerId })), 'OfflineReplica');
    const remaining = ctx.partitionsLedBy(brokerId).filter((tp) => ctx.replicasFor(tp).length > 1);
    if (this.log.isTraceEnabled()) this.log.trace(`All leaders = ${hashSet(ctx.allPartitions().map((tp) => `${tpString(tp)} -> ${ctx.leadership.get(tpString(tp))?.state.leader ?? -1}`))}`);
    return { errorCode: ErrorCode.NONE.code, remaining };
  }
}

/** A registration's endpoints with their security protocols, in order (Broker.endPoints). */
function endPoints(b: BrokerInfo): string[] {
  return b.endpoints.map((e) => `${e.listenerName}://${e.host}:${e.port}/${b.listenerSecurityProtocolMap[e.listenerName] ?? e.listenerName}`);
}

/** kafka.cluster.Broker.toString (2.8): `id : (endpoints) : rack : features`. */
function brokerText(b: BrokerInfo): string {
  const eps = b.endpoints.map((e) => `EndPoint(${e.host},${e.port},ListenerName(${e.listenerName}),${b.listenerSecurityProtocolMap[e.listenerName] ?? e.listenerName})`);
  return `${b.id} : (${eps.join(',')}) : ${b.rack ?? 'null'} : Features{}`;
}
