import * as fs from 'node:fs';
import * as path from 'node:path';
import { LoopYield } from '../common/loop-yield';
import { KafkaError } from '../common/kafka-error';
import { getLogger } from '../common/logging/logging';
import { Clock } from '../common/time';
import { ScheduledTask, Scheduler } from '../common/scheduler';
import {
  CLEANER_OFFSET_CHECKPOINT_FILE,
  CLEAN_SHUTDOWN_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  isDeleteDirName,
  isFutureDirName,
  logDeleteDirName,
  logDirName,
  logFutureDirName,
  parseTopicPartitionName,
} from './log-file-names';
import { isCompactPolicy, LogConfig } from '../common/config/log-config';
import { LogCleaner } from './log-cleaner';
import { errnoOf, isIoError, isLogDirFailure, isResourceError, LogDirFailureChannel, TransientStorageError } from './log-dir-failure-channel';
import { Log } from './log';
import { LogManagerConfig } from './log-manager-config';
import { OffsetCheckpointFile, PartitionOffset } from './offset-checkpoint-file';
import { TopicPartition, tpString } from '../common/topic-partition';

/** What a LogManager is built from (KafkaServer passes the broker's; tests their own). */
export interface LogManagerParams {
  readonly config: LogManagerConfig;
  /** Config for logs of topics without an entry in `topicConfigs`. */
  readonly defaultConfig: LogConfig;
  /** Per-topic configs known at startup (topic overrides merged over the defaults). */
  readonly topicConfigs?: ReadonlyMap<string, LogConfig>;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly failureChannel?: LogDirFailureChannel;
  /** Log dirs found unusable before the LogManager was built (meta.properties unreadable): offline from the start. */
  readonly initialOfflineDirs?: readonly string[];
  /**
   * Kafka's Exit.halt: what runs when the last live log dir fails (KafkaServer passes process.exit). Without it
   * the LogManager only logs that the broker should shut down.
   */
  readonly halt?: (statusCode: number) => void;
  /** Given to every log it opens (LogFlushStats, when kafka.metrics.port is set): each segment flush's time in ms. */
  readonly onSegmentFlush?: (ms: number) => void;
}

/**
 * All partition logs of this broker across log.dirs (Kafka's LogManager). It loads and recovers the logs at
 * startup, places new partitions in the live log dir holding the fewest, runs the periodic tasks (retention,
 * flush, checkpoints), and takes a log dir offline when its disk fails while the other dirs keep serving.
 *
 * A failed dir (see LogDirFailureChannel): its logs stop touching the disk at once; `handleLogDirFailure`, which
 * the ReplicaManager calls (Kafka's order), then drops them and closes their files, or halts the broker when it
 * was the last live dir. A dir that cannot be created or read at startup is offline from the start; one that
 * failed at run time is tried afresh at the next start, and serves again if it is readable.
 *
 * Per log dir it keeps recovery-point-offset-checkpoint, log-start-offset-checkpoint and
 * replication-offset-checkpoint, and writes `.kafka_cleanshutdown` after a clean shutdown so the next start
 * skips recovery.
 */
/** Kafka's LogManager.ProducerIdExpirationCheckIntervalMs. */
const PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 10 * 60 * 1000;

export class LogManager {
  readonly failureChannel: LogDirFailureChannel;
  private readonly logger = getLogger('kafka.log.LogManager');
  private readonly logs = new Map<string, Log>();
  /** Kafka's futureLogs: replicas being moved into another log dir of this broker (AlterReplicaLogDirs). */
  private readonly futureLogs = new Map<string, Log>();
  /**
   * Kafka's preferredLogDirs: where AlterReplicaLogDirs asked a partition to live. A log created later (by
   * LeaderAndIsr, or the future log of a move) goes there; the entry is dropped once it is used.
   */
  private readonly preferredLogDirs = new Map<string, string>();
  /** Partitions whose compaction is paused while their replica moves between log dirs. */
  private readonly cleaningPaused = new Set<string>();
  private readonly cleanerManagerLogger = getLogger('kafka.log.LogCleanerManager');
  private readonly topicConfigs: Map<string, LogConfig>;
  private readonly tasks: ScheduledTask[] = [];
  /** The `kafka-log-cleaner` task, rescheduled when the cleaner is reconfigured. */
  private cleanerTask: ScheduledTask | undefined;
  /** log.cleaner.backoff.ms now (dynamic). */
  private cleanerBackoffMs: number;
  /** The periodic tasks are scheduled (between startup and shutdown). */
  private cleanerRunning = false;
  /** Kafka's _liveLogDirs: configured dirs not yet handled as failed (a failed one may still be here until then). */
  private readonly liveDirs: Set<string>;
  private readonly initialOfflineDirs: Set<string>;
  private defaultConfigValue: LogConfig;
  private started = false;
  private readonly cleaner: LogCleaner;

  constructor(private readonly p: LogManagerParams) {
    this.failureChannel = p.failureChannel ?? new LogDirFailureChannel();
    this.topicConfigs = new Map(p.topicConfigs ?? []);
    this.defaultConfigValue = p.defaultConfig;
    this.liveDirs = new Set(p.config.logDirs.map((d) => path.resolve(d)));
    this.cleanerBackoffMs = p.config.cleanerBackoffMs;
    this.initialOfflineDirs = new Set((p.initialOfflineDirs ?? []).map((d) => path.resolve(d)));
    this.cleaner = new LogCleaner(p.clock);
    this.failureChannel.onFailure((dir) => this.markLogDirOffline(dir));
  }

  get defaultConfig(): LogConfig {
    return this.defaultConfigValue;
  }

  /** The dirs logs may be read from, written to and placed in: live and not failed. */
  liveLogDirs(): string[] {
    return [...this.liveDirs].filter((d) => !this.failureChannel.isOffline(d));
  }

  /**
   * Whether `dir` is one of log.dirs as Kafka compares it (LogManager.isLogDirOnline): the absolute path exactly,
   * so a relative path or one with a trailing slash is not found.
   */
  isLogDirConfigured(dir: string): boolean {
    return this.configuredDirs().includes(dir);
  }

  /** Kafka's isLogDirOnline: the dir has not been handled as failed (`handleLogDirFailure`). */
  isLogDirOnline(dir: string): boolean {
    return this.liveDirs.has(path.resolve(dir));
  }

  offlineLogDirs(): string[] {
    return this.configuredDirs().filter((d) => !this.liveDirs.has(d) || this.failureChannel.isOffline(d));
  }

  /**
   * Creates missing log dirs (a dir that cannot be created or read is offline from the start, Kafka's
   * createAndValidateLogDirs; none left is fatal), loads every log (recovering after an unclean shutdown), and
   * starts the periodic tasks.
   */
  async startup(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.createAndValidateLogDirs();
    for (const dir of this.liveLogDirs()) {
      try {
        await this.loadLogDir(dir);
      } catch (err) {
        if (isResourceError(err)) throw new Error(`Error while loading log dir ${dir}: ${errnoOf(err)} is a limit of this process or host, not a failure of the dir`, { cause: err });
        if (!isIoError(err)) throw err;
        this.failureChannel.maybeAddOfflineLogDir(dir, `Error while loading log dir ${dir}`, err);
      }
    }
    this.scheduleTasks();
  }

  private configuredDirs(): string[] {
    return this.p.config.logDirs.map((d) => path.resolve(d));
  }

  private createAndValidateLogDirs(): void {
    for (const dir of this.configuredDirs()) {
      try {
        if (this.initialOfflineDirs.has(dir)) throw Object.assign(new Error(`Failed to load ${dir} during broker startup`), { code: 'EIO' });
        if (!fs.existsSync(dir)) {
          this.logger.info(`Log directory ${dir} not found, creating it.`);
          fs.mkdirSync(dir, { recursive: true });
        }
        if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a readable log directory.`), { code: 'ENOTDIR' });
        fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK);
      } catch (err) {
        if (!isLogDirFailure(err)) throw err;
        this.liveDirs.delete(dir);
        this.failureChannel.maybeAddOfflineLogDir(dir, `Failed to create or validate data directory ${dir}`, err);
      }
    }
    if (this.liveDirs.size === 0) {
      const message = `Shutdown broker because none of the specified log dirs from ${this.configuredDirs().join(', ')} can be created or validated`;
      this.logger.error(message);
      throw new Error(message);
    }
  }

  /** The partition's current log, or with `isFuture` the future log of a move in progress. */
  getLog(tp: TopicPartition, isFuture = false): Log | undefined {
    return (isFuture ? this.futureLogs : this.logs).get(tpString(tp));
  }

  /** Current and future logs (Kafka's allLogs): what is flushed and checkpointed. */
  allLogs(): Log[] {
    return this.futureLogs.size === 0 ? [...this.logs.values()] : [...this.logs.values(), ...this.futureLogs.values()];
  }

  /** Current logs only: what retention and the cleaner work on (a future log follows its current log). */
  currentLogs(): Log[] {
    return [...this.logs.values()];
  }

  logsByDir(dir: string): Log[] {
    return this.allLogs().filter((l) => l.parentDir === dir);
  }

  /** The config a log of `topic` gets: its topic config if known, else the broker default. */
  configForTopic(topic: string): LogConfig {
    return this.topicConfigs.get(topic) ?? this.defaultConfigValue;
  }

  /**
   * Returns the partition's log, creating it in the live log dir with the fewest partitions if absent (Kafka's
   * nextLogDirs). Throws KAFKA_STORAGE_ERROR when no log dir is usable, and, as Kafka, when the partition is not
   * new (`isNew` false: a LeaderAndIsr for a replica that should exist) while some dir is offline: its log may be
   * in that dir, and an empty one elsewhere would hide it. Default `isNew` true (tools, tests, new partitions).
   */
  getOrCreateLog(tp: TopicPartition, config?: LogConfig, options: { isNew?: boolean; isFuture?: boolean } = {}): Log {
    const isFuture = options.isFuture === true;
    const existing = this.getLog(tp, isFuture);
    if (existing !== undefined) return existing;
    const offline = this.offlineLogDirs();
    if (options.isNew === false && offline.length > 0) {
      throw new KafkaError('KAFKA_STORAGE_ERROR', `Can not create log for ${tpString(tp)} because log directories ${offline.join(',')} are offline`);
    }
    if (config !== undefined) this.topicConfigs.set(tp.topic, config);
    const effective = this.configForTopic(tp.topic);
    const preferred = this.preferredLogDirs.get(tpString(tp));
    if (isFuture) {
      // Kafka's checks: a move names its destination first, and never the dir the replica is in.
      if (preferred === undefined) throw new Error(`Can not create the future log for ${tpString(tp)} without having a preferred log directory`);
      if (this.getLog(tp)?.parentDir === preferred) throw new Error(`Can not create the future log for ${tpString(tp)} in the current log directory of this partition`);
    }
    for (const dir of preferred !== undefined ? [preferred] : this.nextLogDirs()) {
      const logDir = path.join(dir, isFuture ? logFutureDirName(tp) : logDirName(tp));
      const existed = fs.existsSync(logDir);
      try {
        const log = Log.open({ dir: logDir, config: effective, clock: this.p.clock, scheduler: this.p.scheduler, failureChannel: this.failureChannel, hadCleanShutdown: true, producerIdExpirationMs: this.p.config.producerIdExpirationMs, onSegmentFlush: this.p.onSegmentFlush });
        (isFuture ? this.futureLogs : this.logs).set(tpString(tp), log);
        this.logger.info(`Created log for partition ${tpString(tp)} in ${logDir} with properties {${this.describeOverrides(effective)}}`);
        // The preferred dir has been used.
        this.preferredLogDirs.delete(tpString(tp));
        return log;
      } catch (err) {
        if (isResourceError(err)) {
          // Not the dir's fault, and any other dir would fail alike: this request fails; no half-made log stays
          // behind to be found in a second dir later.
          if (!existed) fs.rmSync(logDir, { recursive: true, force: true });
          const message = `Error while creating log for ${tpString(tp)} in dir ${dir}`;
          this.logger.warn(`${message}: ${errnoOf(err)} is a shortage of this process or host, not a failure of the log dir, which stays online`, err);
          throw new TransientStorageError(message, err);
        }
        if (!isIoError(err)) throw err;
        this.failureChannel.maybeAddOfflineLogDir(dir, `Error while creating log for ${tpString(tp)} in dir ${dir}`, err);
      }
    }
    throw new KafkaError('KAFKA_STORAGE_ERROR', `Can not create log for ${tpString(tp)} because all log dirs have failed`);
  }

  /**
   * Removes a partition's log (StopReplica with delete / topic deletion): the directory is renamed to
   * `<topic>-<partition>.<uuid>-delete` at once and removed after file.delete.delay.ms.
   */
  async asyncDelete(tp: TopicPartition, isFuture = false): Promise<void> {
    const key = tpString(tp);
    const logs = isFuture ? this.futureLogs : this.logs;
    const log = logs.get(key);
    if (log === undefined) return;
    logs.delete(key);
    if (isFuture) this.resumeCleaning(tp);
    await log.close();
    const target = path.join(log.parentDir, logDeleteDirName(tp));
    try {
      fs.renameSync(log.dir, target);
    } catch (err) {
      if (isLogDirFailure(err)) this.failureChannel.maybeAddOfflineLogDir(log.parentDir, `Error while renaming dir for ${key} in log dir ${log.parentDir}`, err);
      throw err;
    }
    this.logger.info(`Log for partition ${key} is renamed to ${target} and is scheduled for deletion`);
    this.scheduleDirDeletion(target);
  }

  /**
   * Kafka's maybeUpdatePreferredLogDir: remembers where AlterReplicaLogDirs wants the partition, unless its current
   * or future log is there already.
   */
  maybeUpdatePreferredLogDir(tp: TopicPartition, dir: string): void {
    if (this.getLog(tp)?.parentDir === dir || this.getLog(tp, true)?.parentDir === dir) return;
    this.preferredLogDirs.set(tpString(tp), dir);
  }

  /** Where AlterReplicaLogDirs asked the partition to be created, if it has not been yet (for tests). */
  preferredLogDir(tp: TopicPartition): string | undefined {
    return this.preferredLogDirs.get(tpString(tp));
  }

  /** Kafka's abortAndPauseCleaning: no compaction of the partition while its replica moves (the cleaner skips it). */
  abortAndPauseCleaning(tp: TopicPartition): void {
    if (this.cleaningPaused.has(tpString(tp))) return;
    this.cleaningPaused.add(tpString(tp));
    this.cleanerManagerLogger.info(`The cleaning for partition ${tpString(tp)} is aborted and paused`);
  }

  resumeCleaning(tp: TopicPartition): void {
    if (!this.cleaningPaused.delete(tpString(tp))) return;
    this.cleanerManagerLogger.info(`Compaction for partition ${tpString(tp)} is resumed`);
  }

  isCleaningPaused(tp: TopicPartition): boolean {
    return this.cleaningPaused.has(tpString(tp));
  }

  /**
   * Kafka's replaceCurrentWithFutureLog, once the future log has everything the current one has and nothing can
   * append to either (the caller holds the partition's appends): the future log takes the partition's directory
   * name in its dir and becomes the current log (with the current one's high watermark); the old directory is
   * renamed `<tp>.<uuid>-delete`, its dir's checkpoints rewritten without it, and it is deleted after
   * file.delete.delay.ms. The future log is closed and opened again under its new name, because segment and index
   * files are addressed by path here (Kafka renames the open log). Returns the new current log.
   */
  async replaceCurrentWithFutureLog(tp: TopicPartition): Promise<Log> {
    const key = tpString(tp);
    const source = this.logs.get(key);
    const dest = this.futureLogs.get(key);
    this.logger.info(`Attempting to replace current log ${source?.toString() ?? 'null'} with ${dest?.toString() ?? 'null'} for ${key}`);
    if (source === undefined) throw new KafkaError('KAFKA_STORAGE_ERROR', `The current replica for ${key} is offline`);
    if (dest === undefined) throw new KafkaError('KAFKA_STORAGE_ERROR', `The future replica for ${key} is offline`);
    const highWatermark = source.highWatermark;
    const logStartOffset = Math.min(Math.max(source.logStartOffset, dest.logStartOffset), dest.logEndOffset);
    // Flushed first: no flush of it (a roll schedules one) may still be running when its files are renamed.
    await dest.flush();
    const recoveryPoint = dest.recoveryPoint;
    await dest.close();
    const target = path.join(dest.parentDir, logDirName(tp));
    let current: Log;
    try {
      fs.renameSync(dest.dir, target);
      current = Log.open({
        dir: target,
        config: this.configForTopic(tp.topic),
        clock: this.p.clock,
        scheduler: this.p.scheduler,
        failureChannel: this.failureChannel,
        producerIdExpirationMs: this.p.config.producerIdExpirationMs,
        onSegmentFlush: this.p.onSegmentFlush,
        hadCleanShutdown: true,
        recoveryPoint,
        logStartOffset,
        highWatermark,
      });
    } catch (err) {
      this.futureLogs.delete(key);
      if (isLogDirFailure(err)) this.failureChannel.maybeAddOfflineLogDir(dest.parentDir, `Error while renaming dir for ${key} in log dir ${dest.parentDir}`, err);
      throw err;
    }
    current.firstDirtyOffset = Math.max(current.logStartOffset, source.firstDirtyOffset);
    this.futureLogs.delete(key);
    this.logs.set(key, current);
    this.resumeCleaning(tp);
    await source.close();
    const deleteDir = path.join(source.parentDir, logDeleteDirName(tp));
    try {
      fs.renameSync(source.dir, deleteDir);
    } catch (err) {
      if (isLogDirFailure(err)) this.failureChannel.maybeAddOfflineLogDir(source.parentDir, `Error while renaming dir for ${key} in log dir ${source.parentDir}`, err);
      throw err;
    }
    this.writeCheckpointsOf(source.parentDir);
    this.scheduleDirDeletion(deleteDir);
    this.logger.info(`The current replica is successfully replaced with the future replica for ${key}`);
    return current;
  }

  /** Applies a topic's new config (topic overrides changed at run time) to its logs. */
  updateTopicConfig(topic: string, config: LogConfig): void {
    this.topicConfigs.set(topic, config);
    for (const log of this.allLogs()) if (log.topicPartition.topic === topic) log.updateConfig(config);
  }

  /** Applies new broker defaults to every log without a topic config. */
  updateDefaultConfig(config: LogConfig): void {
    this.defaultConfigValue = config;
    for (const log of this.allLogs()) if (!this.topicConfigs.has(log.topicPartition.topic)) log.updateConfig(config);
  }

  /** One retention pass over all live logs (the kafka-log-retention task). Returns the number of segments deleted. */
  async cleanupLogs(): Promise<number> {
    const start = this.p.clock.nowMs();
    let total = 0;
    this.logger.debug('Beginning log cleanup...');
    for (const log of this.currentLogs()) {
      if (log.isOffline) continue;
      try {
        total += await log.deleteOldSegments();
      } catch (err) {
        this.logger.error(`Error while deleting old segments of ${log.toString()}`, err);
      }
    }
    this.logger.debug(`Log cleanup completed. ${total} files deleted in ${(this.p.clock.nowMs() - start) / 1000} seconds`);
    return total;
  }

  /** Flushes logs whose flush.ms elapsed (the kafka-log-flusher task). */
  async flushDirtyLogs(): Promise<void> {
    const now = this.p.clock.nowMs();
    for (const log of this.allLogs()) {
      if (log.isOffline) continue;
      try {
        if (now - log.lastFlushTime >= log.config.flushMs) await log.flush();
      } catch (err) {
        this.logger.error(`Error flushing topic ${log.topicPartition.topic}`, err);
      }
    }
  }

  /**
   * One cleaner pass (the `kafka-log-cleaner` task): cleans the compacted log with the highest dirty ratio at or
   * above its min.cleanable.dirty.ratio, then saves the cleaner offsets. Returns the log cleaned, if any.
   */
  async cleanDirtiestLog(): Promise<Log | undefined> {
    let best: Log | undefined;
    let bestRatio = -1;
    for (const log of this.currentLogs()) {
      if (log.isOffline || !isCompactPolicy(log.config) || this.cleaningPaused.has(tpString(log.topicPartition))) continue;
      const ratio = this.cleaner.dirtyRatio(log);
      if (ratio >= log.config.minCleanableDirtyRatio && ratio > bestRatio && ratio > 0) {
        best = log;
        bestRatio = ratio;
      }
    }
    if (best === undefined) return undefined;
    try {
      await this.cleaner.clean(best);
    } catch (err) {
      this.logger.error(`Error while cleaning ${best.toString()}`, err);
      return undefined;
    }
    this.checkpointCleanerOffsets();
    return best;
  }

  checkpointCleanerOffsets(): void {
    this.writeCheckpoints(CLEANER_OFFSET_CHECKPOINT_FILE, (log) =>
      isCompactPolicy(log.config) && log.firstDirtyOffset > 0 ? { topicPartition: log.topicPartition, offset: log.firstDirtyOffset } : undefined,
    );
  }

  checkpointRecoveryOffsets(): void {
    this.writeCheckpoints(RECOVERY_POINT_CHECKPOINT_FILE, (log) => ({ topicPartition: log.topicPartition, offset: log.recoveryPoint }));
  }

  /** Only partitions whose start offset is above their first segment's base offset are written (Kafka 2.x). */
  checkpointLogStartOffsets(): void {
    this.writeCheckpoints(LOG_START_OFFSET_CHECKPOINT_FILE, (log) =>
      log.logStartOffset > log.firstSegmentBaseOffset() ? { topicPartition: log.topicPartition, offset: log.logStartOffset } : undefined,
    );
  }

  checkpointHighWatermarks(): void {
    this.writeCheckpoints(REPLICATION_OFFSET_CHECKPOINT_FILE, (log) => ({ topicPartition: log.topicPartition, offset: log.highWatermark }));
  }

  /** The high watermarks saved in a log dir's replication-offset-checkpoint (for the broker at startup). */
  readHighWatermarks(dir: string): Map<string, number> {
    return new OffsetCheckpointFile(path.join(path.resolve(dir), REPLICATION_OFFSET_CHECKPOINT_FILE)).read();
  }

  /**
   * Clean shutdown: stop the tasks, flush and close every log, write the checkpoints, then mark each live dir
   * with `.kafka_cleanshutdown` so the next startup skips recovery.
   */
  async shutdown(): Promise<void> {
    this.logger.info('Shutting down.');
    this.cleanerRunning = false;
    for (const t of this.tasks.splice(0)) t.cancel();
    for (const dir of this.liveLogDirs()) {
      const logs = this.logsByDir(dir);
      try {
        for (const log of logs) {
          await log.flush();
          await log.close();
        }
        if (this.failureChannel.isOffline(dir)) continue;
        this.writeDirCheckpoints(dir);
        fs.writeFileSync(path.join(dir, CLEAN_SHUTDOWN_FILE), '');
      } catch (err) {
        if (!isIoError(err) && !(err instanceof KafkaError)) throw err;
        this.logger.error(`Error while shutting down logs in dir ${dir}`, err);
      }
    }
    // Logs of failed dirs write nothing more: their descriptors are closed, nothing flushed.
    const usable = new Set(this.liveLogDirs());
    for (const log of this.allLogs()) if (!usable.has(log.parentDir)) log.closeHandlers();
    this.logs.clear();
    this.futureLogs.clear();
    this.logger.info('Shutdown complete.');
  }

  // ---- internals ----

  private async loadLogDir(dir: string): Promise<void> {
    const start = this.p.clock.nowMs();
    const cleanShutdownFile = path.join(dir, CLEAN_SHUTDOWN_FILE);
    const hadCleanShutdown = fs.existsSync(cleanShutdownFile);
    if (hadCleanShutdown) this.logger.info(`Skipping recovery for all logs in ${dir} since clean shutdown file was found`);
    else this.logger.info(`Attempting recovery for all logs in ${dir} since no clean shutdown file was found`);
    const recoveryPoints = this.readCheckpoint(dir, RECOVERY_POINT_CHECKPOINT_FILE);
    const logStartOffsets = this.readCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT_FILE);
    const highWatermarks = this.readCheckpoint(dir, REPLICATION_OFFSET_CHECKPOINT_FILE);
    const cleanerOffsets = this.readCheckpoint(dir, CLEANER_OFFSET_CHECKPOINT_FILE);
    const entries = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
    let loaded = 0;
    // Thousands of logs load in seconds, all synchronous file work: pause now and then so that the ZooKeeper
    // session (already open) and timers keep running.
    const pause = new LoopYield();
    for (const entry of entries) {
      await pause.maybeYield();
      const logDir = path.join(dir, entry.name);
      if (isDeleteDirName(entry.name)) {
        this.scheduleDirDeletion(logDir);
        continue;
      }
      // A replica a move was filling when the broker stopped: loaded as a future log, the move resumes once
      // LeaderAndIsr names the partition (Kafka's loadLog).
      const isFuture = isFutureDirName(entry.name);
      const tp = parseTopicPartitionName(entry.name);
      if (tp === undefined) continue;
      const key = tpString(tp);
      const logs = isFuture ? this.futureLogs : this.logs;
      if (logs.has(key)) {
        throw new Error(`Duplicate log directories for ${key} are found in both ${logs.get(key)?.dir} and ${logDir}. It is likely because log directory failure happened while broker was replacing current replica with future replica. Recover broker from this failure by manually deleting one of the two directories for this partition. It is recommended to delete the partition in the log directory that is known to have failed recently.`);
      }
      const log = Log.open({
        dir: logDir,
        config: this.configForTopic(tp.topic),
        clock: this.p.clock,
        scheduler: this.p.scheduler,
        failureChannel: this.failureChannel,
        producerIdExpirationMs: this.p.config.producerIdExpirationMs,
        onSegmentFlush: this.p.onSegmentFlush,
        hadCleanShutdown,
        recoveryPoint: recoveryPoints.get(key) ?? 0,
        logStartOffset: logStartOffsets.get(key) ?? 0,
        highWatermark: highWatermarks.get(key) ?? 0,
      });
      log.firstDirtyOffset = Math.max(log.logStartOffset, cleanerOffsets.get(key) ?? 0);
      logs.set(key, log);
      loaded++;
    }
    if (hadCleanShutdown) fs.rmSync(cleanShutdownFile, { force: true });
    this.logger.info(`Loaded ${loaded} logs in ${this.p.clock.nowMs() - start}ms. (dir ${dir})`);
  }

  private readCheckpoint(dir: string, name: string): Map<string, number> {
    try {
      return new OffsetCheckpointFile(path.join(dir, name)).read();
    } catch (err) {
      if (isIoError(err)) throw err;
      this.logger.warn(`Error occurred while reading ${name} file of directory ${dir}, resetting to the base offset of the first segment`, err);
      return new Map();
    }
  }

  private startCleaner(delayMs: number): void {
    if (!this.p.config.cleanerEnable) return;
    this.cleanerTask = this.p.scheduler.schedule('kafka-log-cleaner', () => this.cleanDirtiestLog().then(() => undefined), delayMs, this.cleanerBackoffMs);
    this.tasks.push(this.cleanerTask);
  }

  /**
   * The cleaner's dynamic keys changed (Kafka's LogCleaner.reconfigure: the cleaner threads are stopped and
   * started again with the new config). This cleaner uses log.cleaner.backoff.ms, its pause between passes;
   * the other keys (threads, dedupe buffer, I/O buffer and rate) size nothing here.
   */
  reconfigureCleaner(backoffMs: number): void {
    if (!this.p.config.cleanerEnable) return;
    this.cleanerBackoffMs = backoffMs;
    if (!this.cleanerRunning) return;
    this.logger.info('Shutting down the log cleaner.');
    const old = this.cleanerTask;
    if (old !== undefined) {
      old.cancel();
      this.tasks.splice(this.tasks.indexOf(old), 1);
    }
    this.logger.info('Starting the log cleaner');
    this.startCleaner(backoffMs);
  }

  private scheduleTasks(): void {
    const c = this.p.config;
    const s = this.p.scheduler;
    const delay = c.initialTaskDelayMs;
    this.logger.info(`Starting log cleanup with a period of ${c.retentionCheckIntervalMs} ms.`);
    this.tasks.push(s.schedule('kafka-log-retention', () => this.cleanupLogs().then(() => undefined), delay, c.retentionCheckIntervalMs));
    this.logger.info(`Starting log flusher with a default period of ${c.flushCheckIntervalMs} ms.`);
    this.tasks.push(s.schedule('kafka-log-flusher', () => this.flushDirtyLogs(), delay, c.flushCheckIntervalMs));
    this.tasks.push(s.schedule('kafka-recovery-point-checkpoint', () => this.checkpointRecoveryOffsets(), delay, c.flushRecoveryOffsetCheckpointIntervalMs));
    this.tasks.push(s.schedule('kafka-log-start-offset-checkpoint', () => this.checkpointLogStartOffsets(), delay, c.flushStartOffsetCheckpointIntervalMs));
    this.cleanerRunning = true;
    this.startCleaner(delay);
    this.tasks.push(s.schedule('highwatermark-checkpoint', () => this.checkpointHighWatermarks(), c.highWatermarkCheckpointIntervalMs, c.highWatermarkCheckpointIntervalMs));
    // Kafka 2.8 schedules one such check per log; one task over all logs does the same work.
    this.tasks.push(s.schedule('PeriodicProducerExpirationCheck', () => this.removeExpiredProducers(), PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS));
  }

  private async removeExpiredProducers(): Promise<void> {
    for (const log of [...this.logs.values(), ...this.futureLogs.values()]) {
      if (log.isOffline) continue;
      await log.removeExpiredProducers();
    }
  }

  private scheduleDirDeletion(dir: string): void {
    const remove = (): void => {
      try {
        fs.rmSync(dir, { recursive: true, force: true });
        this.logger.info(`Deleted log for partition ${path.basename(dir)} in ${dir}.`);
      } catch (err) {
        this.logger.error(`Exception while deleting ${dir}`, err);
      }
    };
    try {
      this.tasks.push(this.p.scheduler.schedule('kafka-delete-logs', remove, this.p.config.fileDeleteDelayMs));
    } catch {
      remove();
    }
  }

  /** Live log dirs ordered by how many partitions they hold, fewest first (stable for ties). */
  private nextLogDirs(): string[] {
    const live = this.liveLogDirs();
    // As Kafka: with one dir there is nothing to count (counting is a pass over every log, per new log).
    if (live.length <= 1) return live;
    const counts = new Map<string, number>();
    for (const dir of this.liveLogDirs()) counts.set(dir, 0);
    for (const log of this.logs.values()) if (counts.has(log.parentDir)) counts.set(log.parentDir, (counts.get(log.parentDir) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => a[1] - b[1]).map(([d]) => d);
  }

  private writeCheckpoints(name: string, entry: (log: Log) => PartitionOffset | undefined): void {
    for (const dir of this.liveLogDirs()) {
      const entries: PartitionOffset[] = [];
      for (const log of this.logsByDir(dir)) {
        const e = entry(log);
        if (e !== undefined) entries.push(e);
      }
      try {
        new OffsetCheckpointFile(path.join(dir, name)).write(entries);
      } catch (err) {
        if (isResourceError(err)) {
          this.logger.warn(`Error while writing to ${name} file in directory ${dir}: ${errnoOf(err)}, the dir stays online and the next run writes it again`, err);
          continue;
        }
        if (!isIoError(err)) throw err;
        this.failureChannel.maybeAddOfflineLogDir(dir, `Disk error while writing to ${name} file in directory ${dir}`, err);
      }
    }
  }

  /** The recovery points and log start offsets of one dir, rewritten now (a log left the dir). */
  private writeCheckpointsOf(dir: string): void {
    const logs = this.logsByDir(dir);
    try {
      new OffsetCheckpointFile(path.join(dir, RECOVERY_POINT_CHECKPOINT_FILE)).write(logs.map((l) => ({ topicPartition: l.topicPartition, offset: l.recoveryPoint })));
      new OffsetCheckpointFile(path.join(dir, LOG_START_OFFSET_CHECKPOINT_FILE)).write(
        logs.filter((l) => l.logStartOffset > l.firstSegmentBaseOffset()).map((l) => ({ topicPartition: l.topicPartition, offset: l.logStartOffset })),
      );
    } catch (err) {
      if (!isIoError(err)) throw err;
      if (isResourceError(err)) this.logger.warn(`Error while writing checkpoints in directory ${dir}: ${errnoOf(err)}, the next run writes them again`, err);
      else this.failureChannel.maybeAddOfflineLogDir(dir, `Disk error while writing checkpoints in directory ${dir}`, err);
    }
  }

  private writeDirCheckpoints(dir: string): void {
    const logs = this.logsByDir(dir);
    new OffsetCheckpointFile(path.join(dir, RECOVERY_POINT_CHECKPOINT_FILE)).write(logs.map((l) => ({ topicPartition: l.topicPartition, offset: l.recoveryPoint })));
    new OffsetCheckpointFile(path.join(dir, LOG_START_OFFSET_CHECKPOINT_FILE)).write(
      logs.filter((l) => l.logStartOffset > l.firstSegmentBaseOffset()).map((l) => ({ topicPartition: l.topicPartition, offset: l.logStartOffset })),
    );
    new OffsetCheckpointFile(path.join(dir, REPLICATION_OFFSET_CHECKPOINT_FILE)).write(logs.map((l) => ({ topicPartition: l.topicPartition, offset: l.highWatermark })));
    const cleaned = logs.filter((l) => isCompactPolicy(l.config) && l.firstDirtyOffset > 0);
    if (cleaned.length > 0 || fs.existsSync(path.join(dir, CLEANER_OFFSET_CHECKPOINT_FILE))) {
      new OffsetCheckpointFile(path.join(dir, CLEANER_OFFSET_CHECKPOINT_FILE)).write(cleaned.map((l) => ({ topicPartition: l.topicPartition, offset: l.firstDirtyOffset })));
    }
  }

  /** The failure channel's first word about a dir: none of its logs touches the disk again. */
  private markLogDirOffline(dir: string): void {
    for (const log of this.logsByDir(path.resolve(dir))) log.markOffline();
  }

  /**
   * Kafka's LogManager.handleLogDirFailure (called by the ReplicaManager once it stopped serving the dir's
   * replicas): the dir is no longer live; if it was the last one the broker halts ("Shutdown broker because all
   * log dirs in ... have failed", exit status 1), otherwise the dir's logs are dropped and their files closed.
   */
  handleLogDirFailure(dir: string): void {
    const resolved = path.resolve(dir);
    this.logger.warn(`Stopping serving logs in dir ${resolved}`);
    this.liveDirs.delete(resolved);
    if (this.liveDirs.size === 0) {
      this.logger.error(`Shutdown broker because all log dirs in ${this.configuredDirs().join(', ')} have failed`);
      this.p.halt?.(1);
      return;
    }
    const offline: string[] = [];
    const offlineFuture: string[] = [];
    for (const [logs, names] of [[this.logs, offline], [this.futureLogs, offlineFuture]] as const) {
      for (const [key, log] of [...logs]) {
        if (log.parentDir !== resolved) continue;
        logs.delete(key);
        log.closeHandlers();
        names.push(key);
      }
    }
    for (const key of offlineFuture) this.cleaningPaused.delete(key);
    this.logger.warn(`Logs for partitions ${offline.join(',')} are offline and logs for future partitions ${offlineFuture.join(',')} are offline due to failure on log directory ${resolved}`);
  }

  private describeOverrides(config: LogConfig): string {
    return config.overriddenKeys.map((k) => `${k}=${config.originals[k]}`).join(', ');
  }
}
