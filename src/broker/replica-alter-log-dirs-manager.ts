import { getLogger, Logger } from '../common/logging/logging';
import { LoopYield } from '../common/loop-yield';
import { SerialQueue } from '../common/serial-queue';
import { Clock } from '../common/time';
import { TopicPartition, tpString } from '../common/topic-partition';
import { Log } from '../log/log';
import { Partition } from './partition';
import { offsetTruncationState } from './replica-fetcher/offset-truncation';
import type { ReplicaQuota } from './replication-quota-manager';

/** What the mover needs from the ReplicaManager. */
export interface AlterLogDirsHost {
  partition(tp: TopicPartition): Partition | undefined;
  /**
   * Kafka's Partition.maybeReplaceCurrentWithFutureReplica: with the partition's appends held, copies what is
   * left and swaps the logs. True once the future log is the current one. `stillMoving` is asked first: a move
   * cancelled meanwhile (StopReplica, another destination) must not swap.
   */
  replaceCurrentWithFutureReplica(tp: TopicPartition, stillMoving: () => boolean): Promise<boolean>;
}

export interface AlterLogDirsSettings {
  readonly brokerId: number;
  /** Bytes copied per step (replica.fetch.max.bytes, as Kafka's ReplicaAlterLogDirsThread fetches). */
  readonly maxBytes: number;
  /** Pause after a failed step (replica.fetch.backoff.ms). */
  readonly backoffMs: number;
  readonly clock: Clock;
  /** replica.alter.log.dirs.io.max.bytes.per.second (Kafka's QuotaManagers.alterLogDirs); none when undefined. */
  readonly quota?: ReplicaQuota;
}

/** Where a move starts (Kafka's InitialFetchState for the future replica: the partition's epoch and its offset). */
export interface InitialMoveState {
  readonly tp: TopicPartition;
  readonly leaderEpoch: number;
  readonly initOffset: number;
}

type StepResult = 'copied' | 'caught-up' | 'idle' | 'gone';

interface Move {
  readonly tp: TopicPartition;
  stopped: boolean;
  /** The copy step in progress: removal waits for it, so a removed move never writes its future log again. */
  readonly processing: SerialQueue;
}

/**
 * One step of a move: the future log is brought to where it agrees with the current one (after the current log
 * was truncated, say as a follower after a leader change: the epochs decide, as a follower's truncation does; or
 * after its start moved past the future's end), then the current log's batches from the future's end are
 * appended as they are, offsets and epochs kept (a follower's append), at most `maxBytes` (the first batch whole),
 * and the future log's high watermark and start offset follow the current log's. Returns the bytes copied.
 */
export async function copyToFutureLog(current: Log, future: Log, maxBytes: number): Promise<number> {
  const latestEpoch = future.leaderEpochCache.latestEpoch();
  if (latestEpoch >= 0 && future.logEndOffset > future.logStartOffset) {
    const theirs = current.endOffsetForEpoch(latestEpoch);
    const state = offsetTruncationState(future, theirs.leaderEpoch, theirs.endOffset);
    if (state.offset < future.logEndOffset) await future.truncateTo(Math.max(state.offset, 0));
  }
  if (future.logEndOffset > current.logEndOffset) await future.truncateTo(current.logEndOffset);
  if (future.logEndOffset < current.logStartOffset) await future.truncateFullyAndStartAt(current.logStartOffset);
  let copied = 0;
  if (future.logEndOffset < current.logEndOffset) {
    const { records } = current.read(future.logEndOffset, maxBytes);
    if (records.length > 0) {
      await future.appendAsFollower(records);
      copied = records.length;
    }
  }
  future.updateHighWatermark(current.highWatermark);
  const start = Math.min(current.logStartOffset, future.highWatermark);
  if (start > future.logStartOffset) await future.maybeIncrementLogStartOffset(start, 'leader offset increment');
  return copied;
}

/**
 * Moves replicas between the log dirs of this broker (Kafka's ReplicaAlterLogDirsManager and its
 * ReplicaAlterLogDirsThread, with the current log as the "leader"): each moving partition's future log is filled
 * from the current log, batch by batch, until it has caught up; then the ReplicaManager swaps them with the
 * partition's appends held, and the move ends. One async loop per partition; every copy step is a
 * turn of the event loop at most 10 ms long, so produce and fetch go on meanwhile. The bytes copied count
 * towards replica.alter.log.dirs.io.max.bytes.per.second; over it, the moves pause a back-off at a time.
 */
export class ReplicaAlterLogDirsManager {
  private readonly moves = new Map<string, Move>();
  private readonly logger: Logger;
  private readonly threadLogger: Logger;
  private stopped = false;

  constructor(
    private readonly host: AlterLogDirsHost,
    private readonly settings: AlterLogDirsSettings,
  ) {
    this.logger = getLogger('kafka.server.ReplicaAlterLogDirsManager', `[ReplicaAlterLogDirsManager on broker ${settings.brokerId}] `);
    this.threadLogger = getLogger('kafka.server.ReplicaAlterLogDirsThread', '[ReplicaAlterLogDirsThread-0]: ');
  }

  isMoving(tp: TopicPartition): boolean {
    return this.moves.has(tpString(tp));
  }

  /** Starts (or keeps) moving `states`' partitions. */
  addPartitions(states: readonly InitialMoveState[]): void {
    if (this.stopped) return;
    const added = states.filter((s) => !this.moves.has(tpString(s.tp)));
    if (added.length === 0) return;
    for (const s of added) {
      const move: Move = { tp: s.tp, stopped: false, processing: new SerialQueue() };
      this.moves.set(tpString(s.tp), move);
      void this.run(move);
    }
    const b = this.settings.brokerId;
    this.logger.info(
      `Added fetcher to broker ${b} for partitions Map(${added.map((s) => `${tpString(s.tp)} -> InitialFetchState(BrokerEndPoint(id=${b}, host=localhost:-1),${s.leaderEpoch},${s.initOffset})`).join(', ')})`,
    );
  }

  /** Stops moving `tps`; resolves once no copy step of theirs is in progress. */
  async removePartitions(tps: readonly TopicPartition[]): Promise<void> {
    const removed: Move[] = [];
    for (const tp of tps) {
      const move = this.moves.get(tpString(tp));
      if (move === undefined) continue;
      move.stopped = true;
      this.moves.delete(tpString(tp));
      removed.push(move);
    }
    await Promise.all(removed.map((m) => m.processing.whenIdle()));
    if (removed.length > 0) this.logger.info(`Removed fetcher for partitions Set(${removed.map((m) => tpString(m.tp)).join(', ')})`);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.removePartitions([...this.moves.values()].map((m) => m.tp));
  }

  private async run(move: Move): Promise<void> {
    const pause = new LoopYield();
    while (!move.stopped && !this.stopped) {
      await pause.maybeYield();
      // Kafka's ReplicaAlterLogDirsThread.buildFetch: nothing is copied while the mover's rate is over its bound.
      if (this.settings.quota?.isQuotaExceeded() === true) {
        await this.settings.clock.sleep(this.settings.backoffMs);
        continue;
      }
      let result: StepResult;
      try {
        result = await move.processing.run(() => (move.stopped ? 'gone' : this.step(move.tp)));
      } catch (err) {
        this.threadLogger.error(`Error due to copying ${tpString(move.tp)} to its future replica`, err);
        await this.settings.clock.sleep(this.settings.backoffMs);
        continue;
      }
      if (result === 'gone') break;
      if (result === 'idle') await this.settings.clock.sleep(this.settings.backoffMs);
      if (result !== 'caught-up') continue;
      let replaced = false;
      try {
        replaced = await this.host.replaceCurrentWithFutureReplica(move.tp, () => !move.stopped);
      } catch (err) {
        this.threadLogger.error(`Error while replacing the current replica of ${tpString(move.tp)} with its future replica`, err);
        await this.settings.clock.sleep(this.settings.backoffMs);
      }
      if (replaced) {
        await this.removePartitions([move.tp]);
        return;
      }
    }
    // The partition or one of its logs is gone (stopped, failed dir): the move ends without a swap.
    if (this.moves.get(tpString(move.tp)) === move) await this.removePartitions([move.tp]);
  }

  private async step(tp: TopicPartition): Promise<StepResult> {
    const p = this.host.partition(tp);
    const current = p?.log;
    const future = p?.futureLog;
    if (current === undefined || future === undefined || current.isOffline || future.isOffline) return 'gone';
    const copied = await copyToFutureLog(current, future, this.settings.maxBytes);
    if (copied > 0) this.settings.quota?.record(copied);
    // Within one step of the current log's end, the swap (which holds appends) copies the rest. Waiting for the
    // ends to be equal between two appends (Kafka's own test, cheap for its fast mover) could starve here under a
    // steady produce on a loaded host.
    if (future.logEndOffset === current.logEndOffset || (copied > 0 && current.size - future.size <= this.settings.maxBytes)) return 'caught-up';
    return copied > 0 ? 'copied' : 'idle';
  }
}
