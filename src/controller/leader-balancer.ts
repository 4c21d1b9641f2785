import { ErrorCode } from '../common/error-codes';
import { Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk } from '../zk/controller-zk';
import { ZkPaths } from '../zk/zk-paths';
import { csv, scalaSet } from './scala-render';
import { ControllerOps } from './controller-ops';
import { AdminLeaderElection, ElectionOutcome } from './controller-events';
import { ElectionStrategy, StateChangeFailedError } from './partition-state-machine';

export interface LeaderBalancerConfig {
  /** leader.imbalance.per.broker.percentage */
  readonly leaderImbalancePerBrokerPercentage: number;
}

/**
 * Preferred replica leader election: on request through /admin/preferred_replica_election (ZkTriggered) and,
 * with auto.leader.rebalance.enable, whenever a broker leads too few of the partitions it is preferred for
 * (AutoTriggered).
 */
export class LeaderBalancer {
  constructor(
    private readonly controller: ControllerOps,
    private readonly czk: ControllerZk,
    private readonly config: LeaderBalancerConfig,
    private readonly log: Logger,
  ) {}

  async processZkTriggered(): Promise<void> {
    const requested = await this.czk.readPreferredReplicaElection();
    if (requested === null) return;
    const ctx = this.controller.context;
    const partitions: TopicPartition[] = [];
    for (const tp of requested) {
      if (ctx.replicasFor(tp).length === 0) {
        this.log.warn(`Skipping replica leader election (PREFERRED) for partition ${tpString(tp)} by ZkTriggered since it doesn't exist.`);
      } else if (!ctx.isTopicQueuedForDeletion(tp.topic)) {
        partitions.push(tp);
      }
    }
    try {
      await this.elect(partitions, 'ZkTriggered');
    } finally {
      // Kafka's onReplicaElection removes the request however the election went (unreadable ones included).
      await this.czk.deleteIfExists(ZkPaths.preferredReplicaElection);
    }
  }

  /**
   * Kafka's processReplicaLeaderElection for AdminClientTriggered (ElectLeaders): unknown partitions, topics being
   * deleted and partitions whose leader is already valid are answered without an election; the others are
   * elected with the preferred replica strategy, or for UNCLEAN with the offline strategy allowed to pick a live
   * replica outside the ISR (whatever the topic's unclean.leader.election.enable says, as Kafka does), and each
   * answered with its new leader or Kafka's error.
   */
  async processAdminTriggered(request: AdminLeaderElection): Promise<void> {
    const ctx = this.controller.context;
    const { electionType } = request;
    const results: ElectionOutcome[] = [];
    const live = ctx.liveBrokerIds();
    const beingDeleted: string[] = [];
    const electable: TopicPartition[] = [];
    for (const tp of request.partitions) {
      if (ctx.replicasFor(tp).length === 0) {
        this.log.info(`Skipping replica leader election (${electionType}) for partition ${tpString(tp)} by AdminClientTriggered since it doesn't exist.`);
        results.push({ tp, leader: -1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, errorMessage: 'The partition does not exist.' });
        continue;
      }
      if (ctx.isTopicQueuedForDeletion(tp.topic)) {
        beingDeleted.push(tpString(tp));
        results.push({ tp, leader: -1, errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION.code, errorMessage: 'The topic is being deleted' });
        continue;
      }
      const leader = ctx.leadership.get(tpString(tp))?.state.leader ?? -1;
      const needed = electionType === 'PREFERRED' ? leader !== ctx.replicasFor(tp)[0] : leader === -1 || !live.has(leader);
      if (needed) electable.push(tp);
      else results.push({ tp, leader: -1, errorCode: ErrorCode.ELECTION_NOT_NEEDED.code, errorMessage: null });
    }
    if (beingDeleted.length > 0) {
      this.log.warn(`Skipping replica leader election (${electionType}) for partitions ${scalaSet(beingDeleted)} by AdminClientTriggered since the respective topics are being deleted`);
    }
    if (electable.length > 0) {
      this.log.info(`Starting replica leader election (${electionType}) for partitions ${electable.map(tpString).join(',')} triggered by AdminClientTriggered`);
      const strategy: ElectionStrategy =
        electionType === 'PREFERRED' ? { kind: 'PreferredReplicaPartitionLeaderElectionStrategy' } : { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: true };
      const failures = await this.controller.partitionStateMachine.electLeadersForAdmin(electable, strategy);
      for (const tp of electable) {
        const cause = failures.get(tpString(tp));
        if (cause === undefined) {
          results.push({ tp, leader: ctx.leadership.get(tpString(tp))?.state.leader ?? -1, errorCode: ErrorCode.NONE.code, errorMessage: null });
        } else if (cause instanceof StateChangeFailedError) {
          const error = electionType === 'PREFERRED' ? ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE : ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE;
          results.push({ tp, leader: -1, errorCode: error.code, errorMessage: cause.message });
        } else {
          results.push({ tp, leader: -1, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: cause.message });
        }
      }
    }
    this.log.debug(`Waiting for any successful result for election type (${electionType}) by AdminClientTriggered for partitions: ${results.map((r) => `${tpString(r.tp)} -> ${r.errorCode === 0 ? `Right(${r.leader})` : `Left(${r.errorCode})`}`).join(', ')}`);
    request.callback(results);
  }

  async processAutomatic(): Promise<void> {
    const ctx = this.controller.context;
    this.log.info('Processing automatic preferred replica leader election');
    this.log.trace('Checking need to trigger auto leader balancing');
    const byPreferred = new Map<number, TopicPartition[]>();
    for (const tp of ctx.allPartitions()) {
      if (ctx.isTopicQueuedForDeletion(tp.topic)) continue;
      const preferred = ctx.replicasFor(tp)[0];
      if (preferred === undefined) continue;
      let list = byPreferred.get(preferred);
      if (!list) byPreferred.set(preferred, (list = []));
      list.push(tp);
    }
    for (const [broker, partitions] of byPreferred) {
      const notLed = partitions.filter((tp) => ctx.leadership.get(tpString(tp))?.state.leader !== broker);
      this.log.debug(`Topics not in preferred replica for broker ${broker} HashMap(${notLed.map((tp) => `${tpString(tp)} -> ${csv(ctx.replicasFor(tp))}`).join(', ')})`);
      const ratio = partitions.length === 0 ? 0 : notLed.length / partitions.length;
      this.log.trace(`Leader imbalance ratio for broker ${broker} is ${Number.isInteger(ratio) ? ratio.toFixed(1) : ratio}`);
      if (ratio <= this.config.leaderImbalancePerBrokerPercentage / 100) continue;
      const eligible = notLed.filter((tp) => {
        const state = ctx.leadership.get(tpString(tp))?.state;
        return ctx.isReplicaOnline(broker, tp) && state !== undefined && state.isr.includes(broker);
      });
      await this.elect(eligible, 'AutoTriggered');
    }
  }

  private async elect(partitions: readonly TopicPartition[], trigger: 'ZkTriggered' | 'AutoTriggered'): Promise<void> {
    const ctx = this.controller.context;
    const needed = partitions.filter((tp) => ctx.leadership.get(tpString(tp))?.state.leader !== ctx.replicasFor(tp)[0]);
    if (needed.length === 0) return;
    this.log.info(`Starting replica leader election (PREFERRED) for partitions ${needed.map(tpString).join(',')} triggered by ${trigger}`);
    await this.controller.partitionStateMachine.handleStateChanges(needed, 'OnlinePartition', { kind: 'PreferredReplicaPartitionLeaderElectionStrategy' });
    for (const tp of needed) {
      const preferred = ctx.replicasFor(tp)[0];
      const leader = ctx.leadership.get(tpString(tp))?.state.leader;
      if (leader === preferred) this.log.info(`Partition ${tpString(tp)} completed preferred replica leader election. New leader is ${preferred}`);
      else this.log.warn(`Partition ${tpString(tp)} failed to complete preferred replica leader election to ${String(preferred)}. Leader is still ${String(leader)}`);
    }
  }
}
