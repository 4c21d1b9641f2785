import * as path from 'node:path';
import { ErrorCode } from '../common/error-codes';
import { mapBounded } from '../common/map-bounded';
import { topicIdOf } from '../common/uuid';
import { Clock } from '../common/time';
import { SerialQueue } from '../common/serial-queue';
import { KafkaConfig } from '../common/config/kafka-config';
import { KafkaError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { isInternalTopic, topicNameError } from '../common/topic';
import { LogConfig } from '../common/config/log-config';
import { LoopYield } from '../common/loop-yield';
import { LogManager } from '../log/log-manager';
import { isTransientStorageError } from '../log/log-dir-failure-channel';
import { futureDirNameTooLong } from '../log/log-file-names';
import { LogDirEventZk } from '../zk/log-dir-event-zk';
import { LeaderAndIsrPartitionState, LeaderAndIsrRequest, LeaderAndIsrResponse } from '../protocol/apis/leader-and-isr';
import { EPOCH_DURING_DELETE, NO_LEADER_EPOCH, StopReplicaRequest, StopReplicaResponse } from '../protocol/apis/stop-replica';
import { DescribeLogDirsResult, DescribeLogDirsTopic } from '../protocol/apis/describe-log-dirs';
import { Scheduler, ScheduledTask } from '../common/scheduler';
import { ZkClient } from '../zk/zk-client';
import { IsrChangePropagation, ISR_CHANGE_PROPAGATION_CHECK_MS } from './isr-change-propagation';
import { IsrStateWriter } from './isr-state-writer';
import { MetadataCache } from './metadata-cache';
import { Partition, PartitionHooks, PartitionSettings } from './partition';
import { Watchers } from '../common/watchers';
import { ReplicaFetcherConfig } from './replica-fetcher/replica-fetcher-config';
import { ReplicaFetcherManager } from './replica-fetcher/replica-fetcher-manager';
import { BrokerEndPoint, InitialFetchState } from './replica-fetcher/replica-fetcher-thread';
import { copyToFutureLog, ReplicaAlterLogDirsManager } from './replica-alter-log-dirs-manager';
import { createReplicationQuotaManagers, ReplicationQuotaManagers } from './replication-quota-manager';

/** Work of a LeaderAndIsr between two pauses of the event loop (doBecomeLeaderOrFollower's loops). */
const LEADER_AND_ISR_SLICE_MS = 2;

export interface ReplicaManagerOptions {
  brokerId: number;
  /** Where ISR shrinks and expansions are counted (KafkaMetrics' events), when metrics are on. */
  isrChangeCounts?: { isrShrinks: number; isrExpands: number };
  logManager: LogManager;
  metadataCache: MetadataCache;
  /** The topic's log config: broker defaults with /config/topics/<topic> on top. */
  logConfigFor: (topic: string) => Promise<LogConfig>;
  clock: Clock;
  /** Follower fetching and leader-side ISR maintenance; without it the broker only serves as a leader (RF=1). */
  replication?: ReplicationOptions;
  /**
   * Where a failed log dir is announced to the controller (`/log_dir_event_notification`); default: the
   * replication ZooKeeper session's LogDirEventZk, none without replication.
   */
  logDirEvents?: Pick<LogDirEventZk, 'propagateLogDirEvent'>;
  /** The replication throttles (leader, follower, log-dir mover); default: managers without a bound. */
  replicationQuotas?: ReplicationQuotaManagers;
}

/** Attempts, and the pause between them, at creating a log that failed on a resource error (EMFILE, ...). */
const TRANSIENT_LOG_CREATION_ATTEMPTS = 3;
const TRANSIENT_LOG_CREATION_BACKOFF_MS = 100;

/** Topic configs read once for one LeaderAndIsr request, by topic. */
type LogConfigs = Map<string, LogConfig>;

/** One partition's DeleteRecords outcome (Kafka's DeleteRecordsPartitionResult): low watermark -1 on error. */
export interface DeleteRecordsResult {
  lowWatermark: number;
  errorCode: number;
}

/** Partitions this broker leads and follows after a LeaderAndIsr request (only those that changed cleanly). */
export type LeadershipChangeCallback = (leaders: readonly TopicPartition[], followers: readonly TopicPartition[]) => void;

export interface ReplicationOptions {
  /** The broker's ZooKeeper session: the leader writes ISR changes and their notifications itself. */
  zk: ZkClient;
  scheduler: Scheduler;
  /** replica.lag.time.max.ms. */
  replicaLagTimeMaxMs: number;
  fetcher: ReplicaFetcherConfig;
  /** inter.broker.listener.name: where followers reach leaders. */
  interBrokerListenerName: string;
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
  readonly watchers: Watchers<TopicPartition>;
  private readonly stateChangeLog: Logger;
  private readonly logger: Logger;
  private readonly partitionHooks: PartitionHooks;
  private readonly partitionSettings: PartitionSettings;
  private readonly isrChanges: IsrChangePropagation | undefined;
  readonly fetcherManager: ReplicaFetcherManager | undefined;
  /** Moves of replicas between this broker's log dirs (AlterReplicaLogDirs). */
  readonly alterLogDirsManager: ReplicaAlterLogDirsManager;
  /** Replication throttles: the Fetch handler's leader side, the fetchers' follower side, the mover's. */
  readonly replicationQuotas: ReplicationQuotaManagers;
  private readonly alterLogDirsMaxBytes: number;
  private readonly tasks: ScheduledTask[] = [];
  /** LeaderAndIsr and StopReplica are applied one at a time (Kafka's replicaStateChangeLock). */
  private readonly stateChanges = new SerialQueue();
  /** Failed log dirs are handled one at a time, off the failing call's stack (Kafka's LogDirFailureHandler thread). */
  private readonly logDirFailures = new SerialQueue();
  private readonly logDirEvents: Pick<LogDirEventZk, 'propagateLogDirEvent'> | undefined;
  private stopped = false;

  constructor(private readonly o: ReplicaManagerOptions) {
    this.stateChangeLog = getLogger('state.change.logger', `[Broker id=${o.brokerId}] `);
    this.logger = getLogger('kafka.server.ReplicaManager', `[ReplicaManager broker=${o.brokerId}] `);
    this.watchers = new Watchers<TopicPartition>(tpString, o.clock);
    const r = o.replication;
    this.isrChanges = r === undefined ? undefined : new IsrChangePropagation(r.zk, o.clock);
    this.partitionSettings = { clock: o.clock, replicaLagTimeMaxMs: r?.replicaLagTimeMaxMs ?? KafkaConfig.defaultOf('replica.lag.time.max.ms') };
    this.partitionHooks = {
      ...(r === undefined ? {} : { isrWriter: new IsrStateWriter(r.zk) }),
      onIsrChanged: (tp) => this.isrChanges?.record(tp),
      ...(o.isrChangeCounts === undefined ? {} : { isrChangeCounts: o.isrChangeCounts }),
      notify: (tp) => this.watchers.notify(tp),
    };
    this.replicationQuotas = o.replicationQuotas ?? createReplicationQuotaManagers({ numQuotaSamples: KafkaConfig.defaultOf('replication.quota.window.num'), quotaWindowSizeSeconds: KafkaConfig.defaultOf('replication.quota.window.size.seconds') }, o.clock);
    this.fetcherManager = r === undefined ? undefined : new ReplicaFetcherManager(r.fetcher, (tp) => this.partitions.get(tpString(tp))?.log, o.clock, this.replicationQuotas.follower);
    this.logDirEvents = o.logDirEvents ?? (r === undefined ? undefined : new LogDirEventZk(r.zk));
    this.alterLogDirsMaxBytes = r?.fetcher.fetchMaxBytes ?? KafkaConfig.defaultOf('replica.fetch.max.bytes');
    this.alterLogDirsManager = new ReplicaAlterLogDirsManager(
      {
        partition: (tp) => this.partitions.get(tpString(tp)),
        replaceCurrentWithFutureReplica: (tp, stillMoving) => this.maybeReplaceCurrentWithFutureReplica(tp, stillMoving),
      },
      { brokerId: o.brokerId, maxBytes: this.alterLogDirsMaxBytes, backoffMs: r?.fetcher.fetchBackoffMs ?? KafkaConfig.defaultOf('replica.fetch.backoff.ms'), clock: o.clock, quota: this.replicationQuotas.alterLogDirs },
    );
    o.logManager.failureChannel.onFailure((dir) => this.scheduleLogDirFailure(dir));
  }

  /** Starts the ISR maintenance tasks (Kafka's ReplicaManager.startup). */
  startup(): void {
    // Dirs that failed while the logs were loaded, before this listened (Kafka's queue keeps them for its handler).
    for (const dir of this.o.logManager.failureChannel.offlineLogDirs()) this.scheduleLogDirFailure(dir);
    const r = this.o.replication;
    if (r === undefined) return;
    const lag = r.replicaLagTimeMaxMs;
    this.logger.info(`Starting ISR expiration with a period of ${Math.floor(lag / 2)} ms and ISR change propagation with a period of ${ISR_CHANGE_PROPAGATION_CHECK_MS} ms`);
    this.tasks.push(r.scheduler.schedule('isr-expiration', () => this.maybeShrinkIsr(), 0, Math.max(1, Math.floor(lag / 2))));
    this.tasks.push(r.scheduler.schedule('isr-change-propagation', () => this.isrChanges?.maybePropagate(), 0, ISR_CHANGE_PROPAGATION_CHECK_MS));
  }

  async shutdown(): Promise<void> {
    this.logger.info('Shutting down');
    for (const t of this.tasks) t.cancel();
    // Not waited for: a notification waiting for a ZooKeeper session must not hold the shutdown.
    this.stopped = true;
    await this.alterLogDirsManager.shutdown();
    await this.fetcherManager?.shutdown();
    this.logger.info('Shut down completely');
  }

  /** The `isr-expiration` task: every partition this broker leads drops followers lagging past replica.lag.time.max.ms. */
  private async maybeShrinkIsr(): Promise<void> {
    await Promise.all(this.onlinePartitions().map((p) => p.maybeShrinkIsr()));
  }

  private scheduleLogDirFailure(dir: string): void {
    void this.logDirFailures
      .run(() => new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.handleLogDirFailure(dir)))
      .catch((err: unknown) => {
        if (this.stopped) this.logger.warn(`The failure of log dir ${dir} was not announced to the controller before shutdown`, err);
        else this.logger.error(`Error while handling the failure of log dir ${dir}`, err);
      });
  }

  /**
   * Kafka's ReplicaManager.handleLogDirFailure: the replicas in `dir` stop being served (fetchers removed,
   * partitions offline: clients, the controller's LeaderAndIsr and StopReplica get KAFKA_STORAGE_ERROR for them),
   * the LogManager drops the dir (halting the broker if it was the last), and `/log_dir_event_notification` tells
   * the controller, which moves their leaderships to the other ISR members.
   */
  async handleLogDirFailure(dir: string, sendZkNotification = true): Promise<void> {
    const logManager = this.o.logManager;
    if (this.stopped || !logManager.isLogDirOnline(dir)) return;
    this.logger.warn(`Stopping serving replicas in dir ${dir}`);
    await this.stateChanges.run(async () => {
      const newOfflinePartitions = this.allPartitions()
        .filter((p) => p.log !== undefined && p.log.parentDir === dir)
        .map((p) => p.tp);
      // Moves to or from the failed dir stop; a future replica there is dropped (its files stay for the next start).
      const movesStopped = this.allPartitions().filter((p) => p.futureLog !== undefined && (p.futureLog.parentDir === dir || p.log?.parentDir === dir));
      await this.alterLogDirsManager.removePartitions(movesStopped.map((p) => p.tp));
      for (const p of movesStopped) {
        if (p.futureLog?.parentDir === dir) p.futureLog = undefined;
      }
      await this.fetcherManager?.removeFetcherForPartitions(newOfflinePartitions);
      for (const tp of newOfflinePartitions) this.markPartitionOffline(tp);
      this.logger.warn(
        `Broker ${this.o.brokerId} stopped fetcher for partitions ${newOfflinePartitions.map(tpString).join(',')} and stopped moving logs for partitions ${movesStopped.map((p) => tpString(p.tp)).join(',')} because they are in the failed log directory ${dir}.`,
      );
    });
    logManager.handleLogDirFailure(dir);
    if (sendZkNotification) await this.logDirEvents?.propagateLogDirEvent(this.o.brokerId);
    this.logger.warn(`Stopped serving replicas in dir ${dir}`);
  }

  /**
   * Kafka's HostedPartition.Offline: the partition keeps its (closed) log so that everything asking for it hears
   * KAFKA_STORAGE_ERROR; it leads nothing, so nothing here changes its ISR, and waiting produces and fetches wake up.
   */
  private markPartitionOffline(tp: TopicPartition): void {
    const p = this.partitions.get(tpString(tp));
    if (p === undefined) return;
    p.log?.markOffline();
    p.leaderId = -1;
    this.watchers.notify(tp);
  }

  private isOffline(p: Partition | undefined): boolean {
    return p?.log?.isOffline === true;
  }

  get brokerId(): number {
    return this.o.brokerId;
  }

  getPartition(tp: TopicPartition): Partition | undefined {
    return this.partitions.get(tpString(tp));
  }

  /**
   * Kafka's ReplicaManager.describeLogDirs: each configured log dir (absolute, once) with the size and offset lag
   * of its logs among `partitions` (tp strings; null: all). A dir with logs lists each of its topics, even one
   * with no requested partition (as Kafka does); an offline dir answers KAFKA_STORAGE_ERROR and nothing else.
   */
  describeLogDirs(logDirs: readonly string[], partitions: ReadonlySet<string> | null): DescribeLogDirsResult[] {
    const logManager = this.o.logManager;
    const byDir = new Map<string, Map<string, DescribeLogDirsTopic>>();
    for (const log of logManager.allLogs()) {
      let topics = byDir.get(log.parentDir);
      if (!topics) byDir.set(log.parentDir, (topics = new Map()));
      const tp = log.topicPartition;
      let topic = topics.get(tp.topic);
      if (!topic) topics.set(tp.topic, (topic = { name: tp.topic, partitions: [] }));
      if (partitions !== null && !partitions.has(tpString(tp))) continue;
      const isFuture = log.isFuture;
      topic.partitions.push({ partitionIndex: tp.partition, partitionSize: log.size, offsetLag: this.logEndOffsetLag(tp, log.logEndOffset, isFuture), isFutureKey: isFuture });
    }
    return [...new Set(logDirs.map((d) => path.resolve(d)))].map((dir) => {
      if (!logManager.isLogDirOnline(dir)) {
        this.logger.warn(`Unable to describe replica dirs for ${dir}`, new KafkaError('KAFKA_STORAGE_ERROR', `Log directory ${dir} is offline`));
        return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR.code, logDir: dir, topics: [] };
      }
      return { errorCode: ErrorCode.NONE.code, logDir: dir, topics: [...(byDir.get(dir)?.values() ?? [])] };
    });
  }

  /**
   * Kafka's getLogEndOffsetLag: a future replica's lag behind the current one's log end offset; a current
   * replica's log end offset behind its high watermark (never below 0); -1 when the partition has no local log.
   */
  private logEndOffsetLag(tp: TopicPartition, logEndOffset: number, isFuture: boolean): number {
    const log = this.o.logManager.getLog(tp);
    if (log === undefined) return -1;
    return isFuture ? log.logEndOffset - logEndOffset : Math.max(log.highWatermark - logEndOffset, 0);
  }

  /**
   * Kafka's ReplicaManager.alterReplicaLogDirs (under the state change lock): per partition, the checks and errors
   * of Kafka 2.8 (INVALID_TOPIC_EXCEPTION for a name too long for a future dir, LOG_DIR_NOT_FOUND for a path not
   * in log.dirs, KAFKA_STORAGE_ERROR for an offline dir or partition, REPLICA_NOT_AVAILABLE for a partition of a
   * known topic not hosted here, after the dir was recorded as preferred so that a replica created later lands
   * there), a move to another destination cancelled, and a future log created and filled by the
   * ReplicaAlterLogDirsManager. NONE when the replica is already there or the move starts (or goes on).
   */
  alterReplicaLogDirs(partitionDirs: ReadonlyMap<string, { tp: TopicPartition; dir: string }>): Promise<Map<string, number>> {
    return this.stateChanges.run(async () => {
      const results = new Map<string, number>();
      for (const [key, { tp, dir }] of partitionDirs) {
        try {
          results.set(key, await this.alterReplicaLogDir(tp, dir));
        } catch (err) {
          const error = err instanceof KafkaError ? err : undefined;
          if (error !== undefined && ['INVALID_TOPIC_EXCEPTION', 'LOG_DIR_NOT_FOUND', 'REPLICA_NOT_AVAILABLE', 'KAFKA_STORAGE_ERROR'].includes(error.errorName)) {
            this.logger.warn(`Unable to alter log dirs for ${tpString(tp)}`, err);
            results.set(key, error.code);
          } else {
            this.logger.error(`Error while changing replica dir for partition ${tpString(tp)}`, err);
            this.stateChangeLog.error(`Error while changing replica dir for partition ${tpString(tp)}`, err);
            results.set(key, error?.code ?? ErrorCode.UNKNOWN_SERVER_ERROR.code);
          }
        }
      }
      return results;
    });
  }

  private async alterReplicaLogDir(tp: TopicPartition, dir: string): Promise<number> {
    const logManager = this.o.logManager;
    // KAFKA-4893: the future dir name must fit in a file name.
    if (futureDirNameTooLong(tp)) throw new KafkaError('INVALID_TOPIC_EXCEPTION', 'The topic name is too long.');
    if (!logManager.isLogDirConfigured(dir)) throw new KafkaError('LOG_DIR_NOT_FOUND', `Log dir ${dir} is not found in the config.`);
    if (!logManager.isLogDirOnline(dir) || logManager.failureChannel.isOffline(dir)) throw new KafkaError('KAFKA_STORAGE_ERROR', `Log directory ${dir} is offline`);
    const p = this.partitions.get(tpString(tp));
    if (this.isOffline(p)) throw new KafkaError('KAFKA_STORAGE_ERROR', `Partition ${tpString(tp)} is offline`);
    if (p?.futureLog !== undefined && p.futureLog.parentDir !== dir) {
      // Another destination: the move in progress stops and its future replica goes.
      await this.alterLogDirsManager.removePartitions([tp]);
      await this.removeFutureLocalReplica(p);
    }
    logManager.maybeUpdatePreferredLogDir(tp, dir);
    if (p === undefined) {
      if (this.o.metadataCache.partitionState(tp) !== undefined) throw new KafkaError('REPLICA_NOT_AVAILABLE', `Error while fetching partition state for ${tpString(tp)}`);
      throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Error while fetching partition state for ${tpString(tp)}`);
    }
    const current = p.log;
    if (current === undefined) throw new KafkaError('REPLICA_NOT_AVAILABLE', `Log for partition ${tpString(tp)} is not available on broker ${this.o.brokerId}`);
    // As Kafka, a new future replica starts moving; unlike Kafka, so does one whose move a StopReplica had stopped.
    if (this.maybeCreateFutureReplica(p, current.parentDir, dir) || (p.futureLog !== undefined && !this.alterLogDirsManager.isMoving(tp))) this.startMove(p);
    return ErrorCode.NONE.code;
  }

  /** Kafka's Partition.maybeCreateFutureReplica: true when a future log was created in `dir` now. */
  private maybeCreateFutureReplica(p: Partition, currentDir: string, dir: string): boolean {
    if (currentDir === dir) {
      p.logInfo(`Current log directory ${currentDir} is same as requested log dir ${dir}. Skipping future replica creation.`);
      return false;
    }
    if (p.futureLog !== undefined) return false;
    p.futureLog = this.o.logManager.getOrCreateLog(p.tp, undefined, { isNew: false, isFuture: true });
    return true;
  }

  /** Pauses the partition's cleaning and hands it to the mover (a new move, or one found at startup). */
  private startMove(p: Partition): void {
    const future = p.futureLog;
    if (future === undefined) return;
    this.o.logManager.abortAndPauseCleaning(p.tp);
    this.alterLogDirsManager.addPartitions([{ tp: p.tp, leaderEpoch: p.leaderEpoch, initOffset: future.highWatermark }]);
  }

  /** Kafka's Partition.removeFutureLocalReplica: the future log is dropped and its directory deleted. */
  private async removeFutureLocalReplica(p: Partition): Promise<void> {
    p.futureLog = undefined;
    await this.o.logManager.asyncDelete(p.tp, true);
  }

  /**
   * The end of a move (Kafka's Partition.maybeReplaceCurrentWithFutureReplica and LogManager.replaceCurrentWithFutureLog),
   * under the state change lock so that no LeaderAndIsr or StopReplica interleaves. The partition's appends are
   * held (a follower's fetcher is paused, a leader's produces and DeleteRecords wait at the partition), those
   * already queued on the current log are written, the rest of the current log is copied, and the future log
   * becomes the current one: no append can land in the old log after its last batch was copied. Held appends
   * then go to the new log, a paused fetcher resumes from its end.
   */
  private maybeReplaceCurrentWithFutureReplica(tp: TopicPartition, stillMoving: () => boolean): Promise<boolean> {
    return this.stateChanges.run(async () => {
      const p = this.partitions.get(tpString(tp));
      const current = p?.log;
      const future = p?.futureLog;
      if (!stillMoving() || p === undefined || current === undefined || future === undefined || current.isOffline || future.isOffline) return false;
      const following = this.fetcherManager?.fetchStateFor(tp);
      if (following !== undefined) await this.fetcherManager?.removeFetcherForPartitions([tp]);
      const release = p.blockAppends();
      try {
        await current.quiesce();
        while (future.logEndOffset < current.logEndOffset) {
          if ((await copyToFutureLog(current, future, this.alterLogDirsMaxBytes)) === 0) break;
        }
        if (future.logEndOffset !== current.logEndOffset) return false;
        p.log = await this.o.logManager.replaceCurrentWithFutureLog(tp);
        p.futureLog = undefined;
        return true;
      } finally {
        release();
        this.watchers.notify(tp);
        if (following !== undefined && p.log !== undefined && !p.log.isOffline) {
          await this.fetcherManager?.addFetcherForPartitions([{ ...following, initOffset: p.log.logEndOffset }]);
        }
      }
    });
  }

  /** The partition if this broker leads it, else the error a client gets (Kafka's getPartitionOrException). */
  leaderPartition(tp: TopicPartition): Partition {
    return this.localPartition(tp, true);
  }

  /**
   * The partition if this broker holds a replica of it (its leader, when `fetchOnlyFromLeader`), else the error a
   * client gets: Kafka's localLogWithEpochOrException, which lets a consumer with client metadata (Fetch v11+)
   * read a follower, up to the follower's high watermark.
   */
  localPartition(tp: TopicPartition, fetchOnlyFromLeader: boolean): Partition {
    const p = this.partitions.get(tpString(tp));
    if (p === undefined || p.log === undefined) {
      if (this.o.metadataCache.partitionState(tp) !== undefined) throw new KafkaError('NOT_LEADER_OR_FOLLOWER');
      throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION');
    }
    if (p.log.isOffline) throw new KafkaError('KAFKA_STORAGE_ERROR');
    if (fetchOnlyFromLeader && !p.isLeader) throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `Leader not local for partition ${tpString(tp)} on broker ${this.o.brokerId}`);
    return p;
  }

  /**
   * DeleteRecords (Kafka's ReplicaManager.deleteRecords with DelayedDeleteRecords): each leader's log start offset
   * moves to the offset asked; the answer waits, up to `timeoutMs`, until every partition's low watermark (the
   * smallest log start offset of its live replicas, the followers reporting theirs in their fetches) has reached
   * it. A partition still short of it then is REQUEST_TIMED_OUT with the low watermark it had at the start.
   */
  async deleteRecords(timeoutMs: number, offsets: ReadonlyMap<string, { tp: TopicPartition; offset: number }>): Promise<Map<string, DeleteRecordsResult>> {
    const isAlive = (id: number): boolean => this.o.metadataCache.isBrokerAlive(id);
    const results = new Map<string, DeleteRecordsResult>();
    const pending = new Map<string, { tp: TopicPartition; requiredOffset: number }>();
    for (const [key, { tp, offset }] of offsets) {
      if (isInternalTopic(tp.topic)) {
        results.set(key, { lowWatermark: -1, errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION.code });
        continue;
      }
      try {
        const { requestedOffset, lowWatermark } = await this.leaderPartition(tp).deleteRecordsOnLeader(offset, isAlive);
        results.set(key, { lowWatermark, errorCode: ErrorCode.NONE.code });
        // DelayedDeleteRecords: REQUEST_TIMED_OUT until the low watermark arrives.
        if (lowWatermark < requestedOffset) {
          pending.set(key, { tp, requiredOffset: requestedOffset });
          results.set(key, { lowWatermark, errorCode: ErrorCode.REQUEST_TIMED_OUT.code });
        }
      } catch (err) {
        if (!(err instanceof KafkaError)) this.logger.error(`Error processing delete records operation on partition ${tpString(tp)}`, err);
        results.set(key, { lowWatermark: -1, errorCode: err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code });
      }
    }
    if (pending.size === 0) return results;
    const tryComplete = (): boolean => {
      for (const [key, { tp, requiredOffset }] of pending) {
        const p = this.partitions.get(tpString(tp));
        let error: number = ErrorCode.NONE.code;
        let low = -1;
        if (p === undefined || p.log === undefined) error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code;
        else if (this.isOffline(p)) error = ErrorCode.KAFKA_STORAGE_ERROR.code;
        else if (!p.isLeader) error = ErrorCode.NOT_LEADER_OR_FOLLOWER.code;
        else low = p.lowWatermarkIfLeader(isAlive);
        if (error !== ErrorCode.NONE.code || low >= requiredOffset) {
          pending.delete(key);
          results.set(key, { lowWatermark: low, errorCode: error });
        }
      }
      return pending.size === 0;
    };
    if (!tryComplete()) await this.watchers.waitUntil(tryComplete, [...pending.values()].map((v) => v.tp), timeoutMs);
    return results;
  }

  allPartitions(): Partition[] {
    return [...this.partitions.values()];
  }

  /** The partitions not in a failed log dir (Kafka's onlinePartitionsIterator). */
  onlinePartitions(): Partition[] {
    return this.allPartitions().filter((p) => !this.isOffline(p));
  }

  /**
   * Applies a LeaderAndIsr request; `onLeadershipChange` then hears which partitions this broker now leads and
   * follows (Kafka's callback, through which the group coordinator takes over or gives up its groups).
   */
  becomeLeaderOrFollower(correlationId: number, request: LeaderAndIsrRequest, version: number, onLeadershipChange?: LeadershipChangeCallback): Promise<LeaderAndIsrResponse> {
    return this.stateChanges.run(() => this.doBecomeLeaderOrFollower(correlationId, request, version, onLeadershipChange));
  }

  private async doBecomeLeaderOrFollower(correlationId: number, request: LeaderAndIsrRequest, version: number, onLeadershipChange?: LeadershipChangeCallback): Promise<LeaderAndIsrResponse> {
    const started = this.o.clock.nowMs();
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
    // v5+ (KIP-516): the topics' ids; a topic without one (zero Uuid) is not checked.
    const topicIds = new Map<string, string>();
    if (version >= 5) {
      for (const t of request.topicStates) {
        const id = t.topicId === undefined ? undefined : topicIdOf(t.topicId);
        if (id !== undefined) topicIds.set(t.topicName, id);
      }
    }
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
      if (this.isOffline(existing)) {
        this.stateChangeLog.warn(
          `Ignoring LeaderAndIsr request from controller ${cid} with correlation id ${correlationId} epoch ${ce} for partition ${tpString(tp)} as the local replica for the partition is in an offline log directory`,
        );
        result(s, ErrorCode.KAFKA_STORAGE_ERROR.code);
      } else if (!this.hasConsistentTopicId(topicIds.get(tp.topic), existing?.log?.topicId ?? this.o.logManager.getLog(tp)?.topicId)) {
        // Kafka 2.8's Partition/Log check: the log on this broker belongs to another topic of the same name.
        const logTopicId = existing?.log?.topicId ?? this.o.logManager.getLog(tp)?.topicId;
        this.stateChangeLog.error(`Topic ID in memory: ${logTopicId ?? ''} does not match the topic ID for partition ${tpString(tp)} received: ${topicIds.get(tp.topic) ?? ''}.`);
        result(s, ErrorCode.INCONSISTENT_TOPIC_ID.code);
      } else if (s.leaderEpoch < currentEpoch) {
        this.stateChangeLog.warn(
          `Ignoring LeaderAndIsr request from controller ${cid} with correlation id ${correlationId} epoch ${ce} for partition ${tpString(tp)} since its associated leader epoch ${s.leaderEpoch} is smaller than the current leader epoch ${currentEpoch}`,
        );
        result(s, ErrorCode.STALE_CONTROLLER_EPOCH.code);
      } else if (s.leaderEpoch === currentEpoch && existing?.log !== undefined) {
        this.stateChangeLog.info(
          `Ignoring LeaderAndIsr request from controller ${cid} with correlation id ${correlationId} epoch ${ce} for partition ${tpString(tp)} since its associated leader epoch ${s.leaderEpoch} matches the current leader epoch`,
        );
        result(s, ErrorCode.STALE_CONTROLLER_EPOCH.code);
      } else if (topicNameError(s.topicName) !== undefined) {
        // The name becomes a log directory name: an illegal one (say "..") is never created, whoever sent it.
        this.stateChangeLog.error(`Ignoring LeaderAndIsr request from controller ${cid} with correlation id ${correlationId} epoch ${ce} for partition ${tpString(tp)}: ${topicNameError(s.topicName)}`);
        result(s, ErrorCode.INVALID_TOPIC_EXCEPTION.code);
      } else if (!s.replicas.includes(this.o.brokerId)) {
        result(s, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code);
      } else if (s.leader === this.o.brokerId) {
        becomeLeader.push(s);
      } else {
        becomeFollower.push(s);
      }
    }
    if (becomeLeader.length > 0) {
      await this.fetcherManager?.removeFetcherForPartitions(becomeLeader.map((s) => ({ topic: s.topicName, partition: s.partitionIndex })));
      this.stateChangeLog.info(
        `Stopped fetchers as part of LeaderAndIsr request correlationId ${correlationId} from controller ${cid} epoch ${ce} as part of the become-leader transition for ${becomeLeader.length} partitions`,
      );
    }
    const configs = await this.logConfigsForNewLogs([...becomeLeader, ...becomeFollower]);
    // Creating a log is a few file creations on the event loop; thousands of them must not hold it for seconds.
    // Short slices: on the controller's broker each pause is the one turn in which the controller's ZooKeeper
    // answers come in and the next requests go out (at most zookeeper.max.in.flight.requests per turn, Kafka's
    // 10), so with 10 ms slices a failover's or a controlled shutdown's writes crawled at ~10 per slice while
    // this broker applied the LeaderAndIsr they had just caused. A pause costs microseconds.
    const pause = new LoopYield(LEADER_AND_ISR_SLICE_MS);
    const leaders: TopicPartition[] = [];
    for (const s of becomeLeader) {
      await pause.maybeYield();
      const code = await this.makeLeader(correlationId, cid, ce, s, configs);
      result(s, code);
      if (code === ErrorCode.NONE.code) leaders.push({ topic: s.topicName, partition: s.partitionIndex });
    }
    const followers: LeaderAndIsrPartitionState[] = [];
    for (const s of becomeFollower) {
      await pause.maybeYield();
      const code = await this.makeFollower(correlationId, cid, ce, s, configs);
      result(s, code);
      if (code === ErrorCode.NONE.code) followers.push(s);
    }
    if (followers.length > 0) await this.startFollowing(correlationId, cid, ce, followers, request);
    if (topicIds.size > 0) await this.recordTopicIds(topicIds, [...leaders, ...followers.map((f) => ({ topic: f.topicName, partition: f.partitionIndex }))]);
    // A future replica loaded at startup (a move the broker was making when it stopped) resumes once its
    // partition is hosted again (Kafka's becomeLeaderOrFollower, futureReplicasAndInitialOffset).
    for (const tp of [...leaders, ...followers.map((f) => ({ topic: f.topicName, partition: f.partitionIndex }))]) {
      const p = this.partitions.get(tpString(tp));
      if (p === undefined || this.alterLogDirsManager.isMoving(tp)) continue;
      const future = this.o.logManager.getLog(tp, true);
      if (future === undefined || p.log === undefined) continue;
      p.futureLog = future;
      this.startMove(p);
    }
    onLeadershipChange?.(leaders, followers.map((f) => ({ topic: f.topicName, partition: f.partitionIndex })));
    this.stateChangeLog.info(`Finished LeaderAndIsr request in ${this.o.clock.nowMs() - started}ms correlationId ${correlationId} from controller ${cid} for ${states.length} partitions`);
    return { errorCode: ErrorCode.NONE.code, partitionErrors };
  }

  /** Kafka's check: no id on either side, or the same id. */
  private hasConsistentTopicId(requestTopicId: string | undefined, logTopicId: string | undefined): boolean {
    return requestTopicId === undefined || logTopicId === undefined || requestTopicId === logTopicId;
  }

  /**
   * Writes partition.metadata for the partitions that became leader or follower, where it is missing (Kafka
   * 2.8's becomeLeaderOrFollower); a log that already has another id is only warned about. Written off the
   * event loop, a bounded number at a time (a LeaderAndIsr can carry thousands of partitions).
   */
  private async recordTopicIds(topicIds: ReadonlyMap<string, string>, partitions: readonly TopicPartition[]): Promise<void> {
    await mapBounded(partitions, async (tp) => {
      const id = topicIds.get(tp.topic);
      const log = this.partitions.get(tpString(tp))?.log;
      if (id === undefined || log === undefined) return;
      if (log.topicId === undefined) {
        try {
          await log.partitionMetadataFile.writeAsync(id);
          log.topicId = id;
        } catch (err) {
          this.stateChangeLog.error(`Error while writing the partition metadata file of partition ${tpString(tp)}`, err);
        }
      } else if (log.topicId !== id) {
        this.stateChangeLog.warn(`Partition ${tpString(tp)} on broker ${this.o.brokerId} has an existing topic ID (${log.topicId}) which does not match the topic Id provided in the request: ${id}.`);
      }
    });
  }

  /**
   * Moves the new followers' fetchers to their leaders (Kafka's makeFollowers, second half): the old fetchers
   * stop before the new ones start, which first truncate with OffsetsForLeaderEpoch.
   */
  private async startFollowing(correlationId: number, cid: number, ce: number, states: LeaderAndIsrPartitionState[], request: LeaderAndIsrRequest): Promise<void> {
    const manager = this.fetcherManager;
    if (manager === undefined) return;
    const tps = states.map((s) => ({ topic: s.topicName, partition: s.partitionIndex }));
    await manager.removeFetcherForPartitions(tps);
    this.stateChangeLog.info(`Stopped fetchers as part of become-follower request from controller ${cid} epoch ${ce} with correlation id ${correlationId} for ${states.length} partitions`);
    const initial: InitialFetchState[] = [];
    for (const s of states) {
      const tp = { topic: s.topicName, partition: s.partitionIndex };
      const leader = this.leaderEndPoint(s.leader, request);
      const p = this.partitions.get(tpString(tp));
      if (leader === undefined || p?.log === undefined) {
        this.stateChangeLog.error(
          `Received LeaderAndIsrRequest with correlation id ${correlationId} from controller ${cid} epoch ${ce} for partition ${tpString(tp)} (last update controller epoch ${s.controllerEpoch}) but cannot become follower since the new leader ${s.leader} is unavailable.`,
        );
        continue;
      }
      initial.push({ tp, leader, currentLeaderEpoch: s.leaderEpoch, initOffset: p.log.logEndOffset });
    }
    if (initial.length > 0) await manager.addFetcherForPartitions(initial);
  }

  /** The leader's inter-broker endpoint: from the request's live leaders, else the metadata cache. */
  private leaderEndPoint(leaderId: number, request: LeaderAndIsrRequest): BrokerEndPoint | undefined {
    const live = request.liveLeaders.find((l) => l.brokerId === leaderId);
    if (live !== undefined) return { id: leaderId, host: live.hostName, port: live.port };
    const listener = this.o.replication?.interBrokerListenerName ?? '';
    const e = this.o.metadataCache.endpoint(leaderId, listener);
    return e === undefined ? undefined : { id: leaderId, host: e.host, port: e.port };
  }

  /**
   * The topic configs (broker defaults plus /config/topics overrides) of the partitions that have no log yet, one
   * ZooKeeper read per topic with the reads in flight together: Kafka reads them per partition, one at a time,
   * which at thousands of new partitions is thousands of round trips. A failed read is retried per partition.
   */
  private async logConfigsForNewLogs(states: readonly LeaderAndIsrPartitionState[]): Promise<LogConfigs> {
    const topics = new Set<string>();
    for (const s of states) if (this.partitions.get(tpKey(s.topicName, s.partitionIndex))?.log === undefined) topics.add(s.topicName);
    const configs: LogConfigs = new Map();
    await Promise.all(
      [...topics].map(async (t) => {
        try {
          configs.set(t, await this.o.logConfigFor(t));
        } catch {
          // createLog reads it again, and its error is that partition's.
        }
      }),
    );
    return configs;
  }

  private async partitionWithLog(s: LeaderAndIsrPartitionState, configs?: LogConfigs): Promise<Partition> {
    const tp = { topic: s.topicName, partition: s.partitionIndex };
    let p = this.partitions.get(tpString(tp));
    if (p === undefined) {
      p = new Partition(tp, this.o.brokerId, this.partitionSettings, this.partitionHooks);
      this.partitions.set(tpString(tp), p);
    }
    if (p.log === undefined) p.log = await this.createLog(tp, s.isNew, configs?.get(tp.topic));
    return p;
  }

  /** The partition's log, created if needed; a resource error (EMFILE, ...) is retried a few times first. */
  private async createLog(tp: TopicPartition, isNew: boolean, known?: LogConfig): Promise<NonNullable<Partition['log']>> {
    const config = known ?? (await this.o.logConfigFor(tp.topic));
    for (let attempt = 1; ; attempt++) {
      try {
        return this.o.logManager.getOrCreateLog(tp, config, { isNew });
      } catch (err) {
        if (!isTransientStorageError(err) || attempt >= TRANSIENT_LOG_CREATION_ATTEMPTS) throw err;
        await this.o.clock.sleep(TRANSIENT_LOG_CREATION_BACKOFF_MS * attempt);
      }
    }
  }

  /**
   * The LeaderAndIsr partition error for a failed become-leader/follower. KAFKA_STORAGE_ERROR tells the controller
   * the replica is in a failed dir, so it is kept for that: a resource error or a bug is UNKNOWN_SERVER_ERROR.
   */
  private leaderAndIsrErrorCode(err: unknown): number {
    if (!(err instanceof KafkaError) || isTransientStorageError(err)) return ErrorCode.UNKNOWN_SERVER_ERROR.code;
    return err.code;
  }

  private async makeLeader(correlationId: number, cid: number, ce: number, s: LeaderAndIsrPartitionState, configs: LogConfigs): Promise<number> {
    const tp = tpKey(s.topicName, s.partitionIndex);
    try {
      this.stateChangeLog.trace(`Handling LeaderAndIsr request correlationId ${correlationId} from controller ${cid} epoch ${ce} starting the become-leader transition for partition ${tp}`);
      const p = await this.partitionWithLog(s, configs);
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
      if (err instanceof KafkaError && err.errorName === 'KAFKA_STORAGE_ERROR' && !isTransientStorageError(err)) {
        this.stateChangeLog.error(
          `Skipped the become-leader state change with correlation id ${correlationId} from controller ${cid} epoch ${ce} for partition ${tp} (last update controller epoch ${s.controllerEpoch}) since the replica for the partition is offline due to disk error ${err.message}`,
        );
        this.logger.error(`Error while making broker the leader for partition ${tp} in dir ${someOrNone(this.partitions.get(tp)?.log?.parentDir)}`, err);
        return err.code;
      }
      this.stateChangeLog.error(`Error while processing LeaderAndIsr request correlationId ${correlationId} received from controller ${cid} epoch ${ce} for partition ${tp}`, err);
      return this.leaderAndIsrErrorCode(err);
    }
  }

  private async makeFollower(correlationId: number, cid: number, ce: number, s: LeaderAndIsrPartitionState, configs: LogConfigs): Promise<number> {
    const tp = tpKey(s.topicName, s.partitionIndex);
    try {
      this.stateChangeLog.trace(
        `Handling LeaderAndIsr request correlationId ${correlationId} from controller ${cid} epoch ${ce} starting the become-follower transition for partition ${tp} with leader ${s.leader}`,
      );
      const p = await this.partitionWithLog(s, configs);
      const log = p.log as NonNullable<Partition['log']>;
      const previousEpoch = p.leaderEpoch;
      p.makeFollower(s, log);
      this.stateChangeLog.info(`Follower ${tp} starts at leader epoch ${s.leaderEpoch} from offset ${log.logEndOffset} with high watermark ${log.highWatermark}. Previous leader epoch was ${previousEpoch}.`);
      this.watchers.notify(p.tp);
      return 0;
    } catch (err) {
      if (err instanceof KafkaError && err.errorName === 'KAFKA_STORAGE_ERROR' && !isTransientStorageError(err)) {
        this.stateChangeLog.error(
          `Skipped the become-follower state change with correlation id ${correlationId} from controller ${cid} epoch ${ce} for partition ${tp} (last update controller epoch ${s.controllerEpoch}) with leader ${s.leader} since the replica for the partition is offline due to disk error ${err.message}`,
        );
        this.logger.error(`Error while making broker the follower for partition ${tp} with leader ${s.leader} in dir ${someOrNone(this.partitions.get(tp)?.log?.parentDir)}`, err);
        return err.code;
      }
      this.stateChangeLog.error(`Error while processing LeaderAndIsr request correlationId ${correlationId} received from controller ${cid} epoch ${ce} for partition ${tp}`, err);
      return this.leaderAndIsrErrorCode(err);
    }
  }

  stopReplicas(correlationId: number, request: StopReplicaRequest, version: number): Promise<StopReplicaResponse> {
    return this.stateChanges.run(() => this.doStopReplicas(correlationId, request, version));
  }

  /**
   * Kafka 2.8's ReplicaManager.stopReplicas. v3 carries each partition's leader epoch and delete flag (older
   * versions: one flag, and NoEpoch); a hosted partition whose epoch is not older than the request's is left
   * alone with FENCED_LEADER_EPOCH (2.8 stops only on a strictly newer epoch, or the -2/-1 sentinels).
   */
  private async doStopReplicas(correlationId: number, request: StopReplicaRequest, version: number): Promise<StopReplicaResponse> {
    const states: { tp: TopicPartition; leaderEpoch: number; deletePartition: boolean }[] =
      version >= 3
        ? request.topicStates.flatMap((t) => t.partitionStates.map((p) => ({ tp: { topic: t.topicName, partition: p.partitionIndex }, leaderEpoch: p.leaderEpoch, deletePartition: p.deletePartition })))
        : (version >= 1
            ? request.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })))
            : request.ungroupedPartitions.map((p) => ({ topic: p.topicName, partition: p.partitionIndex }))
          ).map((tp) => ({ tp, leaderEpoch: NO_LEADER_EPOCH, deletePartition: request.deletePartitions }));
    const cid = request.controllerId;
    const ce = request.controllerEpoch;
    this.stateChangeLog.info(`Handling StopReplica request correlationId ${correlationId} from controller ${cid} for ${states.length} partitions`);
    if (ce < this.controllerEpoch) {
      this.stateChangeLog.warn(
        `Ignoring StopReplica request from controller ${cid} with correlation id ${correlationId} since its controller epoch ${ce} is old. Latest known controller epoch is ${this.controllerEpoch}`,
      );
      return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH.code, partitionErrors: [] };
    }
    this.controllerEpoch = ce;
    const errors = new Map<string, number>();
    const stopped: typeof states = [];
    for (const st of states) {
      const p = this.partitions.get(tpString(st.tp));
      const ignoring = `Ignoring StopReplica request (delete=${st.deletePartition}) from controller ${cid} with correlation id ${correlationId} epoch ${ce} for partition ${tpString(st.tp)}`;
      if (this.isOffline(p)) {
        // A replica in a failed dir is neither stopped nor deleted; the controller hears why.
        this.stateChangeLog.warn(`${ignoring} as the local replica for the partition is in an offline log directory`);
        errors.set(tpString(st.tp), ErrorCode.KAFKA_STORAGE_ERROR.code);
      } else if (p === undefined || st.leaderEpoch === EPOCH_DURING_DELETE || st.leaderEpoch === NO_LEADER_EPOCH || st.leaderEpoch > p.leaderEpoch) {
        // Not hosted: its log may still be on disk (a topic deleted while this broker was down).
        stopped.push(st);
        errors.set(tpString(st.tp), ErrorCode.NONE.code);
      } else if (st.leaderEpoch < p.leaderEpoch) {
        this.stateChangeLog.warn(`${ignoring} since its associated leader epoch ${st.leaderEpoch} is smaller than the current leader epoch ${p.leaderEpoch}`);
        errors.set(tpString(st.tp), ErrorCode.FENCED_LEADER_EPOCH.code);
      } else {
        this.stateChangeLog.info(`${ignoring} since its associated leader epoch ${st.leaderEpoch} matches the current leader epoch`);
        errors.set(tpString(st.tp), ErrorCode.FENCED_LEADER_EPOCH.code);
      }
    }
    await this.fetcherManager?.removeFetcherForPartitions(stopped.map((st) => st.tp));
    await this.alterLogDirsManager.removePartitions(stopped.map((st) => st.tp));
    for (const { tp, deletePartition } of stopped) {
      try {
        const p = this.partitions.get(tpString(tp));
        if (deletePartition) {
          this.partitions.delete(tpString(tp));
          if (this.o.logManager.getLog(tp) !== undefined) await this.o.logManager.asyncDelete(tp);
          if (this.o.logManager.getLog(tp, true) !== undefined) await this.o.logManager.asyncDelete(tp, true);
        } else if (p !== undefined) {
          p.leaderId = -1;
        }
        this.watchers.notify(tp);
      } catch (err) {
        this.stateChangeLog.error(`Error while stopping replica ${tpString(tp)}`, err);
        errors.set(tpString(tp), err instanceof KafkaError ? err.code : ErrorCode.KAFKA_STORAGE_ERROR.code);
      }
    }
    const partitionErrors = states.map((st) => ({ topicName: st.tp.topic, partitionIndex: st.tp.partition, errorCode: errors.get(tpString(st.tp)) ?? 0 }));
    return { errorCode: ErrorCode.NONE.code, partitionErrors };
  }

  /** Partitions whose topic was deleted from the metadata cache and that we still host as leader. */
  forgetDeleted(tps: readonly TopicPartition[]): void {
    for (const tp of tps) this.watchers.notify(tp);
  }
}

/** Scala's rendering of an Option in log lines. */
function someOrNone(value: string | undefined): string {
  return value === undefined ? 'None' : `Some(${value})`;
}
