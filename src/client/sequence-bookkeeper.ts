import { ErrorCode, isRetriable } from '../common/error-codes';

export interface ProducerIdAndEpoch {
  producerId: number;
  producerEpoch: number;
}

/** What the bookkeeper needs of a producer batch: its partition, record count and the producer fields of its header. */
export interface SequencedBatch {
  readonly tp: string;
  readonly recordCount: number;
  readonly header: { producerId?: number; producerEpoch?: number; baseSequence?: number };
  /** Kafka's ProducerBatch.sequenceHasBeenReset: its sequence was rewritten after it was first sent. */
  sequenceReset?: boolean;
}

interface PartitionEntry<B extends SequencedBatch> {
  /** The id and epoch this partition's sequences belong to: behind the producer's until its in-flight batches end. */
  producerIdAndEpoch: ProducerIdAndEpoch;
  nextSequence: number;
  lastAckedSequence: number;
  lastAckedOffset: number;
  /** Batches given a sequence and not yet acknowledged or failed (sent, or queued again for a retry), by sequence. */
  inFlight: B[];
}

const NO_LAST_ACKED_SEQUENCE = -1;
/** Short.MAX_VALUE: an idempotent producer at this epoch asks for a new producer id instead of a bump. */
const MAX_EPOCH = 0x7fff;

/** Sequences wrap at Integer.MAX_VALUE, as Kafka's DefaultRecordBatch.incrementSequence. */
function incrementSequence(sequence: number, increment: number): number {
  const next = sequence + increment;
  return next > 0x7fffffff ? next - 0x80000000 : next;
}

function lastSequenceOf(b: SequencedBatch): number {
  return incrementSequence(b.header.baseSequence as number, b.recordCount - 1);
}

/**
 * The sequence and epoch bookkeeping of Kafka 2.8's TransactionManager (its TopicPartitionBookkeeper and the
 * KIP-360 rules), without I/O so that it can be tested alone. Per partition: the next sequence, the last
 * acknowledged one and the batches in flight. An idempotent producer that meets a sequence it cannot resolve
 * (OUT_OF_ORDER_SEQUENCE_NUMBER for the next batch in line, UNKNOWN_PRODUCER_ID, a sent batch that expired) bumps
 * its epoch locally, as Java's does for a producer without transactional id: the broker takes a new epoch at
 * sequence 0, so the affected partitions' in-flight batches are renumbered from 0 under the new epoch and
 * retried, and the other partitions start again at 0 once their in-flight batches are done. At epoch 32767 the
 * producer id is dropped instead and the producer asks InitProducerId for a new one.
 */
export class SequenceBookkeeper<B extends SequencedBatch> {
  private current: ProducerIdAndEpoch | undefined;
  private readonly partitions = new Map<string, PartitionEntry<B>>();
  /** Partitions with a sent batch that expired in the client: the next sequence the broker may expect. */
  private readonly unresolved = new Map<string, number>();
  private readonly toRewrite = new Set<string>();
  private epochBumpRequired = false;

  constructor(private readonly transactional: boolean) {}

  get producerIdAndEpoch(): ProducerIdAndEpoch | undefined {
    return this.current;
  }

  /** A producer id and epoch from InitProducerId: every partition starts again at sequence 0. */
  setProducerIdAndEpoch(pe: ProducerIdAndEpoch): void {
    this.current = { ...pe };
    this.partitions.clear();
    this.unresolved.clear();
    this.toRewrite.clear();
    this.epochBumpRequired = false;
  }

  /**
   * Kafka's RecordAccumulator.shouldStopDrainBatchesForPartition, negated: a new batch waits while the partition
   * still has batches in flight under an older epoch or an unresolved sequence; a retried one goes only when it is
   * the first in flight, so that a partition being retried has one request out at a time.
   */
  canDrain(batch: B): boolean {
    if (this.current === undefined) return false;
    const entry = this.partitions.get(batch.tp);
    if (batch.header.baseSequence === undefined) {
      if (entry !== undefined && entry.inFlight.length > 0 && !sameIdAndEpoch(entry.producerIdAndEpoch, this.current)) return false;
      return !this.unresolved.has(batch.tp);
    }
    const first = entry?.inFlight[0];
    return first === undefined || first.header.baseSequence === batch.header.baseSequence;
  }

  /** Gives a batch at its first send the producer id, epoch and its partition's next sequence. */
  assign(batch: B): void {
    const pe = this.current;
    if (pe === undefined) throw new Error('No producer id to give the batch');
    const entry = this.entry(batch.tp);
    // Kafka's maybeUpdateProducerIdAndEpoch: after a bump, a partition whose in-flight batches have all ended
    // starts again at sequence 0 under the new epoch.
    if (!sameIdAndEpoch(entry.producerIdAndEpoch, pe) && entry.inFlight.length === 0) this.startSequencesAtBeginning(batch.tp, entry);
    batch.header.producerId = entry.producerIdAndEpoch.producerId;
    batch.header.producerEpoch = entry.producerIdAndEpoch.producerEpoch;
    batch.header.baseSequence = entry.nextSequence;
    entry.nextSequence = incrementSequence(entry.nextSequence, batch.recordCount);
    insertBySequence(entry.inFlight, batch);
  }

  /** Kafka's handleCompletedBatch: the last acknowledged sequence and offset move on. */
  completed(batch: B, baseOffset: number): void {
    const entry = this.partitions.get(batch.tp);
    if (entry === undefined || batch.header.baseSequence === undefined) return;
    const last = lastSequenceOf(batch);
    if (last > entry.lastAckedSequence) entry.lastAckedSequence = last;
    if (baseOffset >= 0) entry.lastAckedOffset = Math.max(entry.lastAckedOffset, baseOffset + batch.recordCount - 1);
    removeBatch(entry.inFlight, batch);
  }

  /**
   * Kafka's TransactionManager.canRetry for a batch answered with an error: the sequence errors follow KIP-360
   * (and may ask for an epoch bump), every other error is retried when retriable.
   */
  canRetry(batch: B, errorCode: number, logStartOffset: number): boolean {
    const tp = batch.tp;
    if (errorCode === ErrorCode.UNKNOWN_PRODUCER_ID.code) {
      // No log start offset: the partition moved while the error was answered; retry until one comes.
      if (logStartOffset === -1) return true;
      if (batch.sequenceReset === true) return true;
      const entry = this.partitions.get(tp);
      if ((entry?.lastAckedOffset ?? -1) < logStartOffset) {
        // The head of the log was removed (retention, DeleteRecords) and the producer's state with it.
        if (this.transactional) {
          if (entry !== undefined) this.startSequencesAtBeginning(tp, entry);
        } else this.requestEpochBump(tp);
        return true;
      }
      if (!this.transactional) {
        this.requestEpochBump(tp);
        return true;
      }
    } else if (errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code) {
      const unresolved = this.unresolved.get(tp);
      // Not the next batch after the last acknowledged one: refused only because one ahead of it failed.
      if (unresolved === undefined && (batch.sequenceReset === true || !this.isNextSequence(tp, batch.header.baseSequence ?? -1))) return true;
      if (!this.transactional) {
        // A real gap (or the batch right after an unresolved one): bump; otherwise wait for the sequence to resolve.
        if (unresolved === undefined || unresolved === batch.header.baseSequence) this.requestEpochBump(tp);
        return true;
      }
    }
    return isRetriable(errorCode);
  }

  /**
   * Kafka's handleFailedBatch: the batch leaves the books; for an idempotent producer a batch the broker may
   * have written a gap after (OUT_OF_ORDER_SEQUENCE_NUMBER, or `adjustSequences`: refused for good while retries
   * remained) asks for an epoch bump; a transactional one renumbers the batches behind it instead.
   */
  failed(batch: B, errorCode: number, adjustSequences: boolean): void {
    const entry = this.partitions.get(batch.tp);
    if (entry !== undefined) removeBatch(entry.inFlight, batch);
    if (batch.header.baseSequence === undefined) return;
    if (errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code && !this.transactional) this.requestEpochBump(batch.tp);
    else if (errorCode === ErrorCode.UNKNOWN_PRODUCER_ID.code) {
      // The broker has no state for the producer: it takes the partition's next batch at sequence 0.
      this.partitions.delete(batch.tp);
      this.unresolved.delete(batch.tp);
    } else if (adjustSequences) {
      if (!this.transactional) this.requestEpochBump(batch.tp);
      else if (entry !== undefined) this.adjustSequencesAfterFailedBatch(entry, batch);
    }
  }

  /** A sent batch that expired in the client: whether the broker has it is unknown until the partition drains. */
  expired(batch: B): void {
    const entry = this.partitions.get(batch.tp);
    if (entry !== undefined) removeBatch(entry.inFlight, batch);
    if (batch.header.baseSequence === undefined) return;
    const next = incrementSequence(lastSequenceOf(batch), 1);
    this.unresolved.set(batch.tp, Math.max(this.unresolved.get(batch.tp) ?? 0, next));
  }

  /**
   * Kafka's maybeResolveSequences: once an unresolved partition has nothing in flight, either the batches after
   * the expired one were acknowledged (resolved) or there is a gap, which an idempotent producer closes by
   * bumping its epoch. A transactional producer is told (the result) that only an abort can continue.
   */
  maybeResolveSequences(): string[] {
    const gaps: string[] = [];
    for (const [tp] of [...this.unresolved]) {
      const entry = this.partitions.get(tp);
      if (entry !== undefined && entry.inFlight.length > 0) continue;
      this.unresolved.delete(tp);
      if (entry === undefined || this.isNextSequence(tp, entry.nextSequence)) continue;
      if (this.transactional) gaps.push(tp);
      else this.requestEpochBump(tp);
    }
    return gaps;
  }

  /**
   * Kafka's bumpIdempotentEpochAndResetIdIfNeeded, before anything more is sent: the epoch goes up by one and the
   * partitions that asked for it have their in-flight batches renumbered from 0. Returns 'bumped', 'reset' (the
   * epoch was exhausted: the producer id is dropped and InitProducerId must give a new one) or undefined.
   */
  bumpEpochIfNeeded(): 'bumped' | 'reset' | undefined {
    if (this.transactional || !this.epochBumpRequired || this.current === undefined) return undefined;
    this.epochBumpRequired = false;
    if (this.current.producerEpoch >= MAX_EPOCH) {
      this.current = undefined;
      this.toRewrite.clear();
      return 'reset';
    }
    this.current = { producerId: this.current.producerId, producerEpoch: this.current.producerEpoch + 1 };
    for (const tp of this.toRewrite) {
      const entry = this.partitions.get(tp);
      if (entry !== undefined) this.startSequencesAtBeginning(tp, entry);
      this.unresolved.delete(tp);
    }
    this.toRewrite.clear();
    return 'bumped';
  }

  /** Whether a retry of this batch still belongs to the current producer id (Kafka drops it otherwise). */
  isCurrentProducerId(batch: B): boolean {
    return this.current !== undefined && batch.header.producerId === this.current.producerId;
  }

  nextSequence(tp: string): number {
    return this.partitions.get(tp)?.nextSequence ?? 0;
  }

  lastAckedSequence(tp: string): number {
    return this.partitions.get(tp)?.lastAckedSequence ?? NO_LAST_ACKED_SEQUENCE;
  }

  private requestEpochBump(tp: string): void {
    this.epochBumpRequired = true;
    this.toRewrite.add(tp);
  }

  private isNextSequence(tp: string, sequence: number): boolean {
    return sequence - this.lastAckedSequence(tp) === 1;
  }

  private entry(tp: string): PartitionEntry<B> {
    let entry = this.partitions.get(tp);
    if (entry === undefined) {
      const pe = this.current as ProducerIdAndEpoch;
      entry = { producerIdAndEpoch: { ...pe }, nextSequence: 0, lastAckedSequence: NO_LAST_ACKED_SEQUENCE, lastAckedOffset: -1, inFlight: [] };
      this.partitions.set(tp, entry);
    }
    return entry;
  }

  /** Kafka's startSequencesAtBeginning: the in-flight batches, in order, take sequences from 0 under the current epoch. */
  private startSequencesAtBeginning(tp: string, entry: PartitionEntry<B>): void {
    const pe = this.current as ProducerIdAndEpoch;
    let sequence = 0;
    for (const b of entry.inFlight) {
      b.header.producerId = pe.producerId;
      b.header.producerEpoch = pe.producerEpoch;
      b.header.baseSequence = sequence;
      b.sequenceReset = true;
      sequence = incrementSequence(sequence, b.recordCount);
    }
    entry.producerIdAndEpoch = { ...pe };
    entry.nextSequence = sequence;
    entry.lastAckedSequence = NO_LAST_ACKED_SEQUENCE;
    this.unresolved.delete(tp);
  }

  /** Kafka's adjustSequencesDueToFailedBatch: a batch refused for good leaves no hole for the ones behind it. */
  private adjustSequencesAfterFailedBatch(entry: PartitionEntry<B>, failed: B): void {
    const base = failed.header.baseSequence as number;
    entry.nextSequence = Math.max(0, entry.nextSequence - failed.recordCount);
    for (const b of entry.inFlight) {
      const seq = b.header.baseSequence as number;
      if (seq < base) continue;
      b.header.baseSequence = Math.max(0, seq - failed.recordCount);
      b.sequenceReset = true;
    }
  }
}

function sameIdAndEpoch(a: ProducerIdAndEpoch, b: ProducerIdAndEpoch): boolean {
  return a.producerId === b.producerId && a.producerEpoch === b.producerEpoch;
}

function insertBySequence<B extends SequencedBatch>(list: B[], batch: B): void {
  const seq = batch.header.baseSequence as number;
  let i = list.length;
  while (i > 0 && ((list[i - 1] as B).header.baseSequence as number) > seq) i--;
  list.splice(i, 0, batch);
}

function removeBatch<B extends SequencedBatch>(list: B[], batch: B): void {
  const i = list.indexOf(batch);
  if (i >= 0) list.splice(i, 1);
}
