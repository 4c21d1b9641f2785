import { Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk } from '../zk/controller-zk';
import { ZkPaths } from '../zk/zk-paths';
import { csv } from './scala-render';
import { ControllerOps } from './controller-ops';

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
