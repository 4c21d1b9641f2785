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
 * offsets. Followers use `endOffsetFor` (OffsetsForLeaderEpoch) to find where to truncate. Every change is
 * written through to the file. Mutated only under the log's append queue.
 */
export class LeaderEpochFileCache {
  private epochs: EpochEntry[];
  private readonly checkpoint: CheckpointFile<EpochEntry>;

  constructor(file: string) {
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

  private flush(): void {
    this.checkpoint.write(this.epochs);
  }
}
