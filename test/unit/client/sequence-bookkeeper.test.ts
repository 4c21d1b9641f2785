import { SequenceBookkeeper, SequencedBatch } from '../../../src/client/sequence-bookkeeper';
import { ErrorCode } from '../../../src/common/error-codes';

interface TestBatch extends SequencedBatch {
  name: string;
}

const OUT_OF_ORDER = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code;
const UNKNOWN_PRODUCER_ID = ErrorCode.UNKNOWN_PRODUCER_ID.code;
const NOT_LEADER = ErrorCode.NOT_LEADER_OR_FOLLOWER.code;
const MESSAGE_TOO_LARGE = ErrorCode.MESSAGE_TOO_LARGE.code;

function batch(name: string, recordCount: number, tp = 't-0'): TestBatch {
  return { name, tp, recordCount, header: {} };
}

function seqs(...bs: TestBatch[]): [number | undefined, number | undefined][] {
  return bs.map((b) => [b.header.producerEpoch, b.header.baseSequence]);
}

/** Kafka 2.8's TransactionManager rules for sequences and KIP-360 epoch bumps, on the bookkeeping alone. */
describe('SequenceBookkeeper (idempotent producer)', () => {
  function idempotent(): SequenceBookkeeper<TestBatch> {
    const books = new SequenceBookkeeper<TestBatch>(false);
    books.setProducerIdAndEpoch({ producerId: 7, producerEpoch: 0 });
    return books;
  }

  it('gives each partition consecutive sequences and tracks the last acknowledged one', () => {
    const books = idempotent();
    const a = batch('a', 3);
    const b = batch('b', 2);
    const other = batch('o', 4, 't-1');
    for (const x of [a, b, other]) books.assign(x);
    expect(seqs(a, b, other)).toEqual([[0, 0], [0, 3], [0, 0]]);
    expect(a.header.producerId).toBe(7);
    books.completed(a, 100);
    expect(books.lastAckedSequence('t-0')).toBe(2);
    expect(books.nextSequence('t-0')).toBe(5);
  });

  it('wraps sequences at Integer.MAX_VALUE', () => {
    const books = idempotent();
    const big = batch('big', 0x7fffffff);
    books.assign(big);
    const next = batch('next', 2);
    books.assign(next);
    expect(next.header.baseSequence).toBe(0x7fffffff);
    expect(books.nextSequence('t-0')).toBe(1);
  });

  it('retries OUT_OF_ORDER_SEQUENCE_NUMBER for a batch behind a failed one without bumping', () => {
    const books = idempotent();
    const a = batch('a', 1);
    const b = batch('b', 1);
    books.assign(a);
    books.assign(b);
    expect(books.canRetry(b, OUT_OF_ORDER, 0)).toBe(true);
    expect(books.bumpEpochIfNeeded()).toBeUndefined();
  });

  it('on OUT_OF_ORDER_SEQUENCE_NUMBER for the next batch in line bumps the epoch and renumbers the partition from 0', () => {
    const books = idempotent();
    const acked = batch('acked', 2);
    const a = batch('a', 3);
    const b = batch('b', 1);
    const other = batch('o', 1, 't-1');
    for (const x of [acked, a, b, other]) books.assign(x);
    books.completed(acked, 0);
    expect(books.canRetry(a, OUT_OF_ORDER, 0)).toBe(true);
    expect(books.bumpEpochIfNeeded()).toBe('bumped');
    expect(books.producerIdAndEpoch).toEqual({ producerId: 7, producerEpoch: 1 });
    // The partition that asked: its in-flight batches from 0 under epoch 1, marked as reset.
    expect(seqs(a, b)).toEqual([[1, 0], [1, 3]]);
    expect(a.sequenceReset).toBe(true);
    expect(books.lastAckedSequence('t-0')).toBe(-1);
    expect(books.nextSequence('t-0')).toBe(4);
    // Another partition keeps its epoch while its batch is in flight ...
    expect(seqs(other)).toEqual([[0, 0]]);
    const waiting = batch('w', 1, 't-1');
    expect(books.canDrain(waiting)).toBe(false);
    books.completed(other, 0);
    // ... and starts at 0 under the new epoch once it has nothing in flight.
    expect(books.canDrain(waiting)).toBe(true);
    books.assign(waiting);
    expect(seqs(waiting)).toEqual([[1, 0]]);
    // A reset batch answered OUT_OF_ORDER again (its predecessor not yet in) is retried without another bump.
    expect(books.canRetry(b, OUT_OF_ORDER, 0)).toBe(true);
    expect(books.bumpEpochIfNeeded()).toBeUndefined();
  });

  it('a retried batch is drained only when it is the first in flight of its partition', () => {
    const books = idempotent();
    const a = batch('a', 1);
    const b = batch('b', 1);
    books.assign(a);
    books.assign(b);
    expect(books.canDrain(b)).toBe(false);
    expect(books.canDrain(a)).toBe(true);
    books.completed(a, 0);
    expect(books.canDrain(b)).toBe(true);
  });

  it('on UNKNOWN_PRODUCER_ID retries; bumps when the log start offset passed the last acknowledged offset or always for idempotence', () => {
    const books = idempotent();
    const acked = batch('acked', 2);
    const a = batch('a', 1);
    books.assign(acked);
    books.assign(a);
    books.completed(acked, 10);
    // No log start offset known: retried as it is.
    expect(books.canRetry(a, UNKNOWN_PRODUCER_ID, -1)).toBe(true);
    expect(books.bumpEpochIfNeeded()).toBeUndefined();
    expect(books.canRetry(a, UNKNOWN_PRODUCER_ID, 50)).toBe(true);
    expect(books.bumpEpochIfNeeded()).toBe('bumped');
    expect(seqs(a)).toEqual([[1, 0]]);
    // Its reset retry answered UNKNOWN_PRODUCER_ID again: retried, no second bump.
    expect(books.canRetry(a, UNKNOWN_PRODUCER_ID, 50)).toBe(true);
    expect(books.bumpEpochIfNeeded()).toBeUndefined();
  });

  it('a batch refused for good while retries remained asks for a bump (the broker may hold the sequences after it)', () => {
    const books = idempotent();
    const a = batch('a', 2);
    const b = batch('b', 1);
    books.assign(a);
    books.assign(b);
    books.failed(a, MESSAGE_TOO_LARGE, true);
    expect(books.bumpEpochIfNeeded()).toBe('bumped');
    expect(seqs(b)).toEqual([[1, 0]]);
  });

  it('other errors are retried as retriable or not', () => {
    const books = idempotent();
    const a = batch('a', 1);
    books.assign(a);
    expect(books.canRetry(a, NOT_LEADER, 0)).toBe(true);
    expect(books.canRetry(a, MESSAGE_TOO_LARGE, 0)).toBe(false);
  });

  it('an expired sent batch leaves its partition unresolved until it drains: a gap bumps, acknowledged successors resolve it', () => {
    const books = idempotent();
    const a = batch('a', 2);
    const b = batch('b', 1);
    books.assign(a);
    books.assign(b);
    books.expired(a);
    // New batches wait while the sequence is unresolved.
    const fresh = batch('fresh', 1);
    expect(books.canDrain(fresh)).toBe(false);
    // b in flight: nothing decided yet.
    expect(books.maybeResolveSequences()).toEqual([]);
    expect(books.bumpEpochIfNeeded()).toBeUndefined();
    // b answered OUT_OF_ORDER and it is the batch right after the unresolved one: a gap, bump.
    expect(books.canRetry(b, OUT_OF_ORDER, 0)).toBe(true);
    expect(books.bumpEpochIfNeeded()).toBe('bumped');
    expect(seqs(b)).toEqual([[1, 0]]);
    expect(books.canDrain(fresh)).toBe(true);

    const resolved = idempotent();
    const c = batch('c', 1);
    const d = batch('d', 1);
    resolved.assign(c);
    resolved.assign(d);
    resolved.expired(c);
    resolved.completed(d, 5);
    // d acknowledged: the broker had c after all.
    resolved.maybeResolveSequences();
    expect(resolved.bumpEpochIfNeeded()).toBeUndefined();

    const gap = idempotent();
    const e = batch('e', 1);
    gap.assign(e);
    gap.expired(e);
    gap.maybeResolveSequences();
    expect(gap.bumpEpochIfNeeded()).toBe('bumped');
    const after = batch('after', 1);
    gap.assign(after);
    expect(seqs(after)).toEqual([[1, 0]]);
  });

  it('at epoch 32767 drops the producer id instead of bumping', () => {
    const books = new SequenceBookkeeper<TestBatch>(false);
    books.setProducerIdAndEpoch({ producerId: 7, producerEpoch: 32767 });
    const a = batch('a', 1);
    books.assign(a);
    books.failed(a, OUT_OF_ORDER, false);
    expect(books.bumpEpochIfNeeded()).toBe('reset');
    expect(books.producerIdAndEpoch).toBeUndefined();
    expect(books.canDrain(batch('b', 1))).toBe(false);
  });

  it('a retry under another producer id is recognised', () => {
    const books = idempotent();
    const a = batch('a', 1);
    books.assign(a);
    expect(books.isCurrentProducerId(a)).toBe(true);
    books.setProducerIdAndEpoch({ producerId: 8, producerEpoch: 0 });
    expect(books.isCurrentProducerId(a)).toBe(false);
  });
});

describe('SequenceBookkeeper (transactional producer)', () => {
  function transactional(): SequenceBookkeeper<TestBatch> {
    const books = new SequenceBookkeeper<TestBatch>(true);
    books.setProducerIdAndEpoch({ producerId: 9, producerEpoch: 3 });
    return books;
  }

  it('never bumps by itself: OUT_OF_ORDER for the next batch fails it, a gap after expiry is reported', () => {
    const books = transactional();
    const a = batch('a', 1);
    books.assign(a);
    expect(books.canRetry(a, OUT_OF_ORDER, 0)).toBe(false);
    books.failed(a, OUT_OF_ORDER, true);
    expect(books.bumpEpochIfNeeded()).toBeUndefined();
    const b = batch('b', 1);
    books.assign(b);
    books.expired(b);
    expect(books.maybeResolveSequences()).toEqual(['t-0']);
  });

  it('UNKNOWN_PRODUCER_ID after the log start offset moved restarts the sequences at 0 under the same epoch', () => {
    const books = transactional();
    const a = batch('a', 2);
    const b = batch('b', 1);
    books.assign(a);
    books.assign(b);
    expect(books.canRetry(a, UNKNOWN_PRODUCER_ID, 0)).toBe(true);
    expect(seqs(a, b)).toEqual([[3, 0], [3, 2]]);
    expect(books.producerIdAndEpoch?.producerEpoch).toBe(3);
  });

  it('a batch refused for good moves the sequences after it down', () => {
    const books = transactional();
    const a = batch('a', 1);
    const b = batch('b', 2);
    const c = batch('c', 1);
    for (const x of [a, b, c]) books.assign(x);
    books.failed(b, MESSAGE_TOO_LARGE, true);
    expect(seqs(a, c)).toEqual([[3, 0], [3, 1]]);
    expect(books.nextSequence('t-0')).toBe(2);
  });
});
