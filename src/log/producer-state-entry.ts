/** RecordBatch.NO_PRODUCER_EPOCH, NO_SEQUENCE, NO_PRODUCER_ID. */
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PRODUCER_ID = -1;

const INT32_MAX = 0x7fffffff;

/** DefaultRecordBatch.incrementSequence: sequences wrap from Integer.MAX_VALUE to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

/** DefaultRecordBatch.decrementSequence. */
export function decrementSequence(sequence: number, decrement: number): number {
  return sequence < decrement ? INT32_MAX - (decrement - sequence) + 1 : sequence - decrement;
}

/** One appended batch of a producer (Kafka's BatchMetadata): its sequence range and offsets. */
export class BatchMetadata {
  constructor(
    readonly lastSeq: number,
    readonly lastOffset: number,
    readonly offsetDelta: number,
    readonly timestamp: number,
  ) {}

  get firstSeq(): number {
    return decrementSequence(this.lastSeq, this.offsetDelta);
  }

  get firstOffset(): number {
    return this.lastOffset - this.offsetDelta;
  }

  toString(): string {
    return `BatchMetadata(firstSeq=${this.firstSeq}, lastSeq=${this.lastSeq}, firstOffset=${this.firstOffset}, lastOffset=${this.lastOffset}, timestamp=${this.timestamp})`;
  }
}

/** How many of a producer's latest batches a partition keeps for duplicate detection (NumBatchesToRetain). */
export const NUM_BATCHES_TO_RETAIN = 5;

/**
 * What a partition knows of one producer (Kafka's ProducerStateEntry): its epoch, its last five batches (oldest
 * first), the epoch of the last coordinator that wrote a marker for it, the timestamp of its last write and the
 * first offset of its open transaction (-1 when none).
 */
export class ProducerStateEntry {
  constructor(
    readonly producerId: number,
    public producerEpoch: number = NO_PRODUCER_EPOCH,
    readonly batches: BatchMetadata[] = [],
    public coordinatorEpoch = -1,
    public lastTimestamp = -1,
    public currentTxnFirstOffset = -1,
  ) {}

  get isEmpty(): boolean {
    return this.batches.length === 0;
  }

  get firstSeq(): number {
    return this.batches[0]?.firstSeq ?? NO_SEQUENCE;
  }

  get lastSeq(): number {
    return this.batches[this.batches.length - 1]?.lastSeq ?? NO_SEQUENCE;
  }

  get lastDataOffset(): number {
    return this.batches[this.batches.length - 1]?.lastOffset ?? -1;
  }

  get lastOffsetDelta(): number {
    return this.batches[this.batches.length - 1]?.offsetDelta ?? 0;
  }

  /** A new epoch forgets the batches of the old one. */
  maybeUpdateProducerEpoch(producerEpoch: number): boolean {
    if (this.producerEpoch === producerEpoch) return false;
    this.batches.length = 0;
    this.producerEpoch = producerEpoch;
    return true;
  }

  addBatch(producerEpoch: number, lastSeq: number, lastOffset: number, offsetDelta: number, timestamp: number): void {
    this.maybeUpdateProducerEpoch(producerEpoch);
    if (this.batches.length === NUM_BATCHES_TO_RETAIN) this.batches.shift();
    this.batches.push(new BatchMetadata(lastSeq, lastOffset, offsetDelta, timestamp));
    this.lastTimestamp = timestamp;
  }

  /** The retained batch with exactly this epoch and sequence range: a retry of a batch already written. */
  findDuplicateBatch(producerEpoch: number, firstSeq: number, lastSeq: number): BatchMetadata | undefined {
    if (producerEpoch !== this.producerEpoch) return undefined;
    for (const b of this.batches) if (b.lastSeq === lastSeq && b.firstSeq === firstSeq) return b;
    return undefined;
  }

  toString(): string {
    const txn = this.currentTxnFirstOffset >= 0 ? `Some(${this.currentTxnFirstOffset})` : 'None';
    return `ProducerStateEntry(producerId=${this.producerId}, producerEpoch=${this.producerEpoch}, currentTxnFirstOffset=${txn}, coordinatorEpoch=${this.coordinatorEpoch}, lastTimestamp=${this.lastTimestamp}, batchMetadata=Queue(${this.batches.map((b) => b.toString()).join(', ')}))`;
  }
}
