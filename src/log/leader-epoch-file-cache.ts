import { CheckpointFile } from './checkpoint-file';

/** The first offset written under a leader epoch. */
export interface EpochEntry {
  readonly epoch: number;
  readonly startOffset: number;
}

export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

/**
 * Which leader epoch wrote which offsets (KIP-101), persisted to the partition's `leader-epoch-checkpoint` as
 * `epoch startOffset` lines in the checkpoint format. Entries have strictly increasing epochs and start
 * offsets. Followers use `endOffsetFor` (OffsetsForLeaderEpoch) to find where to truncate. Mutated only under
 * the log's append queue.
 *
 * Every change is written to the file (tmp, fsync, rename, fsync of the dir), by default at once. With
 * `writeBehind` the write runs off the event loop instead, one at a time, each writing the latest entries (changes
 * made during a write share the next): a leader change of thousands of partitions is thousands of fsyncs, which
 * Kafka spreads over its request handler threads and which here would hold the one event loop for seconds.
 * `flushed()` is the barrier: the log awaits it before it moves its recovery point, truncates or closes, so an
 * epoch the file lacks after a crash is one of data above the recovery point, which recovery reads again and
 * re-assigns (and an entry beyond the end, from a lost truncation, is cut at load).
 */
export class LeaderEpochFileCache {
  private epochs: EpochEntry[];
  private readonly checkpoint: CheckpointFile<EpochEntry>;
  private dirty = false;
  private writing: Promise<void> | undefined;
  private lastError: unknown;
  private closed = false;

  constructor(
    file: string,
    private readonly writeBehind?: { onError: (err: unknown) => void },
  ) {
    this.checkpoint = new CheckpointFile(file, {
      toLine: (e) => `${e.epoch} ${e.startOffset}`,
      fromLine: (f) => (f.length === 2 && /^\d+$/.test(f[0] as string) && /^\d+$/.test(f[1] as string) ? { epoch: Number(f[0]), startOffset: Number(f[1]) } : undefined),
    });
    this.epochs = this.checkpoint.read();
  }

  entries(): readonly EpochEntry[] {
    return this.epochs;
  }

  latestEntry(): EpochEntry | undefined {
    return this.epochs[this.epochs.length - 1];
  }

  latestEpoch(): number {
    return this.latestEntry()?.epoch ?? UNDEFINED_EPOCH;
  }

  /** Records that `epoch` starts at `startOffset`, dropping entries that would break monotonicity. */
  assign(epoch: number, startOffset: number): void {
    if (epoch < 0 || startOffset < 0) return;
    const last = this.latestEntry();
    if (last !== undefined && last.epoch === epoch && startOffset >= last.startOffset) return;
    this.epochs = this.epochs.filter((e) => e.epoch < epoch && e.startOffset < startOffset);
    this.epochs.push({ epoch, startOffset });
    this.flush();
  }

  /**
   * The largest epoch ≤ `requestedEpoch` and the offset where the next epoch starts (or the log end offset for
   * the latest epoch); (−1, −1) when unknown.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEntry {
    if (requestedEpoch === UNDEFINED_EPOCH) return { epoch: UNDEFINED_EPOCH, startOffset: UNDEFINED_EPOCH_OFFSET };
    if (requestedEpoch === this.latestEpoch()) return { epoch: requestedEpoch, startOffset: logEndOffset };
    const higher = this.epochs.find((e) => e.epoch > requestedEpoch);
    if (higher === undefined) return { epoch: UNDEFINED_EPOCH, startOffset: UNDEFINED_EPOCH_OFFSET };
    let floor: EpochEntry | undefined;
    for (const e of this.epochs) if (e.epoch <= requestedEpoch) floor = e;
    return { epoch: floor?.epoch ?? requestedEpoch, startOffset: higher.startOffset };
  }

  /** Drops entries starting at or after `endOffset` (the log was truncated to it). */
  truncateFromEnd(endOffset: number): void {
    const last = this.latestEntry();
    if (endOffset < 0 || last === undefined || last.startOffset < endOffset) return;
    this.epochs = this.epochs.filter((e) => e.startOffset < endOffset);
    this.flush();
  }

  /** The log start moved to `startOffset`: older entries go, the one covering it now starts there. */
  truncateFromStart(startOffset: number): void {
    const removed = this.epochs.filter((e) => e.startOffset <= startOffset);
    if (removed.length === 0) return;
    const covering = removed[removed.length - 1] as EpochEntry;
    if (removed.length === 1 && covering.startOffset === startOffset) return;
    this.epochs = [{ epoch: covering.epoch, startOffset }, ...this.epochs.filter((e) => e.startOffset > startOffset)];
    this.flush();
  }

  clearAndFlush(): void {
    this.epochs = [];
    this.flush();
  }

  /**
   * Resolves when every change so far is in the file (at once without writeBehind); rejects with the write's error
   * when the file could not be written (a later change tries again).
   */
  async flushed(): Promise<void> {
    if (this.writeBehind === undefined) return;
    if (this.dirty && this.writing === undefined) this.flush();
    await this.writing;
    if (this.dirty) throw this.lastError ?? new Error(`The leader epoch checkpoint ${this.checkpoint.file} is not written`);
  }

  /** No more writes (the log closed, or its dir failed); one in flight finishes, and its error is dropped. */
  close(): void {
    this.closed = true;
    this.dirty = false;
  }

  private flush(): void {
    if (this.closed) return;
    if (this.writeBehind === undefined) {
      this.checkpoint.write(this.epochs);
      return;
    }
    this.dirty = true;
    this.writing ??= this.writeLatest(this.writeBehind.onError).finally(() => {
      this.writing = undefined;
    });
  }

  private async writeLatest(onError: (err: unknown) => void): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      try {
        await this.checkpoint.writeAsync([...this.epochs]);
      } catch (err) {
        if (this.closed) return;
        // The log dir's failure handling takes it from here (the dir goes offline on an I/O error); the entries
        // stay dirty, for the next change or barrier to write.
        this.dirty = true;
        this.lastError = err;
        onError(err);
        return;
      }
    }
  }
}
