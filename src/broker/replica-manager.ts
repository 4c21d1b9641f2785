import { ErrorCode } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { LogConfig } from '../log/log-config';
import { LogManager } from '../log/log-manager';
import { LeaderAndIsrPartitionState, LeaderAndIsrRequest, LeaderAndIsrResponse } from '../protocol/apis/leader-and-isr';
import { StopReplicaRequest, StopReplicaResponse } from '../protocol/apis/stop-replica';
import { MetadataCache } from './metadata-cache';
import { Partition } from './partition';
import { PartitionWatchers } from './partition-watchers';

export interface ReplicaManagerOptions {
  brokerId: number;
  logManager: LogManager;
  metadataCache: MetadataCache;
  /** The topic's log config: broker defaults with /config/topics/<topic> on top. */
  logConfigFor: (topic: string) => Promise<LogConfig>;
  now: () => number;
}

/**
 * The partitions this broker hosts and their roles (Kafka's ReplicaManager): applies LeaderAndIsr and
 * StopReplica from the controller, appends produced batches as leader, and wakes waiting fetches and acks=-1
 * produces when logs grow or high watermarks move.
 */
export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>();
  controllerEpoch = 0;
  /** Woken on every append (long-polling fetches) and high watermark change (acks=-1 produces). */
  readonly watchers = new PartitionWatchers();
  private readonly stateChangeLog: Logger;

  constructor(private readonly o: ReplicaManagerOptions) {
    this.stateChangeLog = getLogger('state.change.logger', `[Broker id=${o.brokerId}] `);
  }

  get brokerId(): number {
    return this.o.brokerId;
  }

  getPartition(tp: TopicPartition): Partition | undefined {
    return this.partitions.get(tpString(tp));
  }

  /** The partition if this broker leads it, else the error a client gets (Kafka's getPartitionOrException). */
  leaderPartition(tp: TopicPartition): Partition {
    const p = this.partitions.get(tpString(tp));
    if (p === undefined || p.log === undefined) {
      if (this.o.metadataCache.partitionState(tp) !== undefined) throw new KafkaError('NOT_LEADER_OR_FOLLOWER');
      throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION');
    }
    if (p.log.isOffline) throw new KafkaError('KAFKA_STORAGE_ERROR');
    if (!p.isLeader) throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `Leader not local for partition ${tpString(tp)} on broker ${this.o.brokerId}`);
    return p;
  }

  allPartitions(): Partition[] {
    return [...this.partitions.values()];
  }

  async becomeLeaderOrFollower(correlationId: number, request: LeaderAndIsrRequest, version: number): Promise<LeaderAndIsrResponse> {
    const started = this.o.now();
    const states: LeaderAndIsrPartitionState[] =
      version >= 2 ? request.topicStates.flatMap((t) => t.partitionStates.map((s) => ({ ...s, topicName: t.topicName }))) : request.ungroupedPartitionStates;
    const cid = request.controllerId;
    const ce = request.controllerEpoch;
    this.stateChangeLog.info(`Handling LeaderAndIsr request correlationId ${correlationId} from controller ${cid} for ${states.length} partitions`);
    if (ce < this.controllerEpoch) {
      this.stateChangeLog.warn(
        `Ignoring LeaderAndIsr request from controller ${cid} with correlation id ${correlationId} since its controller epoch ${ce} is old. Latest known controller epoch is ${this.controllerEpoch}`,
      );
      return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH.code, partitionErrors: [] };
    }
    this.controllerEpoch = ce;
    const partitionErrors: LeaderAndIsrResponse['partitionErrors'] = [];
    const result = (s: LeaderAndIsrPartitionState, code: number): void => {
      partitionErrors.push({ topicName: s.topicName, partitionIndex: s.partitionIndex, errorCode: code });
    };
    const becomeLeader: LeaderAndIsrPartitionState[] = [];
    const becomeFollower: LeaderAndIsrPartitionState[] = [];
    for (const s of states) {
      const tp = { topic: s.topicName, partition: s.partitionIndex };
      if (this.stateChangeLog.isTraceEnabled()) {
        this.stateChangeLog.trace(`Received LeaderAndIsr request ${JSON.stringify(s)} correlation id ${correlationId} from controller ${cid} epoch ${ce}`);
      }
      const existing = this.partitions.get(tpString(tp));
      const currentEpoch = existing?.leaderEpoch ?? -1;
      if (s.leaderEpoch < currentEpoch) {
        this.stateChangeLog.warn(
          `Ignoring LeaderAndIsr request from controller ${cid} with correlation id ${correlationId} epoch ${ce} for partition ${tpString(tp)} since its associated leader epoch ${s.leaderEpoch} is smaller than the current leader epoch ${currentEpoch}`,
        );
        result(s, ErrorCode.STALE_CONTROLLER_EPOCH.code);
      } else if (s.leaderEpoch === currentEpoch && existing?.log !== undefined) {
        this.stateChangeLog.info(
          `Ignoring LeaderAndIsr request from controller ${cid} with correlation id ${correlationId} epoch ${ce} for partition ${tpString(tp)} since its associated leader epoch ${s.leaderEpoch} matches the current leader epoch`,
        );
        result(s, ErrorCode.STALE_CONTROLLER_EPOCH.code);
      } else if (!s.replicas.includes(this.o.brokerId)) {
        result(s, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code);
      } else if (s.leader === this.o.brokerId) {
        becomeLeader.push(s);
      } else {
        becomeFollower.push(s);
      }
    }
    for (const s of becomeLeader) result(s, await this.makeLeader(correlationId, cid, ce, s));
    for (const s of becomeFollower) result(s, await this.makeFollower(correlationId, cid, ce, s));
    this.stateChangeLog.info(`Finished LeaderAndIsr request in ${this.o.now() - started}ms correlationId ${correlationId} from controller ${cid} for ${states.length} partitions`);
    return { errorCode: 0, partitionErrors };
  }

  private async partitionWithLog(s: LeaderAndIsrPartitionState): Promise<Partition> {
    const tp = { topic: s.topicName, partition: s.partitionIndex };
    let p = this.partitions.get(tpString(tp));
    if (p === undefined) {
      p = new Partition(tp, this.o.brokerId, this.o.now);
      this.partitions.set(tpString(tp), p);
    }
    if (p.log === undefined) p.log = this.o.logManager.getOrCreateLog(tp, await this.o.logConfigFor(tp.topic));
    return p;
  }

  private async makeLeader(correlationId: number, cid: number, ce: number, s: LeaderAndIsrPartitionState): Promise<number> {
    const tp = `${s.topicName}-${s.partitionIndex}`;
    try {
      this.stateChangeLog.trace(`Handling LeaderAndIsr request correlationId ${correlationId} from controller ${cid} epoch ${ce} starting the become-leader transition for partition ${tp}`);
      const p = await this.partitionWithLog(s);
      const log = p.log as NonNullable<Partition['log']>;
      const previousEpoch = p.leaderEpoch;
      if (p.makeLeader(s, log)) {
        this.stateChangeLog.info(
          `Leader ${tp} starts at leader epoch ${s.leaderEpoch} from offset ${log.logEndOffset} with high watermark ${log.highWatermark} ISR [${s.isr.join(',')}] addingReplicas [] removingReplicas []. Previous leader epoch was ${previousEpoch}.`,
        );
      }
      this.watchers.notify(p.tp);
      return 0;
    } catch (err) {
      this.stateChangeLog.error(`Error while processing LeaderAndIsr request correlationId ${correlationId} received from controller ${cid} epoch ${ce} for partition ${tp}`, err);
      return err instanceof KafkaError ? err.code : ErrorCode.KAFKA_STORAGE_ERROR.code;
    }
  }

  private async makeFollower(correlationId: number, cid: number, ce: number, s: LeaderAndIsrPartitionState): Promise<number> {
    const tp = `${s.topicName}-${s.partitionIndex}`;
    try {
      this.stateChangeLog.trace(
        `Handling LeaderAndIsr request correlationId ${correlationId} from controller ${cid} epoch ${ce} starting the become-follower transition for partition ${tp} with leader ${s.leader}`,
      );
      const p = await this.partitionWithLog(s);
      const log = p.log as NonNullable<Partition['log']>;
      const previousEpoch = p.leaderEpoch;
      p.makeFollower(s, log);
      this.stateChangeLog.info(`Follower ${tp} starts at leader epoch ${s.leaderEpoch} from offset ${log.logEndOffset} with high watermark ${log.highWatermark}. Previous leader epoch was ${previousEpoch}.`);
      this.watchers.notify(p.tp);
      return 0;
    } catch (err) {
      this.stateChangeLog.error(`Error while processing LeaderAndIsr request correlationId ${correlationId} received from controller ${cid} epoch ${ce} for partition ${tp}`, err);
      return err instanceof KafkaError ? err.code : ErrorCode.KAFKA_STORAGE_ERROR.code;
    }
  }

  async stopReplicas(correlationId: number, request: StopReplicaRequest, version: number): Promise<StopReplicaResponse> {
    const tps: TopicPartition[] =
      version >= 1
        ? request.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })))
        : request.ungroupedPartitions.map((p) => ({ topic: p.topicName, partition: p.partitionIndex }));
    this.stateChangeLog.info(`Handling StopReplica request correlationId ${correlationId} from controller ${request.controllerId} for ${tps.length} partitions`);
    if (request.controllerEpoch < this.controllerEpoch) {
      this.stateChangeLog.warn(
        `Ignoring StopReplica request from controller ${request.controllerId} with correlation id ${correlationId} since its controller epoch ${request.controllerEpoch} is old. Latest known controller epoch is ${this.controllerEpoch}`,
      );
      return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH.code, partitionErrors: [] };
    }
    this.controllerEpoch = request.controllerEpoch;
    const partitionErrors: StopReplicaResponse['partitionErrors'] = [];
    for (const tp of tps) {
      let code = 0;
      try {
        const p = this.partitions.get(tpString(tp));
        if (request.deletePartitions) {
          this.partitions.delete(tpString(tp));
          if (this.o.logManager.getLog(tp) !== undefined) await this.o.logManager.asyncDelete(tp);
        } else if (p !== undefined) {
          p.leaderId = -1;
        }
        this.watchers.notify(tp);
      } catch (err) {
        this.stateChangeLog.error(`Error while stopping replica ${tpString(tp)}`, err);
        code = err instanceof KafkaError ? err.code : ErrorCode.KAFKA_STORAGE_ERROR.code;
      }
      partitionErrors.push({ topicName: tp.topic, partitionIndex: tp.partition, errorCode: code });
    }
    return { errorCode: 0, partitionErrors };
  }

  /** Partitions whose topic was deleted from the metadata cache and that we still host as leader. */
  forgetDeleted(tps: readonly TopicPartition[]): void {
    for (const tp of tps) this.watchers.notify(tp);
  }
}
