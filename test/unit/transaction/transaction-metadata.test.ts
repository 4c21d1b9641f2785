import { IllegalTransactionStateError, TransactionMetadata } from '../../../src/transaction/transaction-metadata';
import { isValidPreviousState, TRANSACTION_STATES, transactionStateByte } from '../../../src/transaction/transaction-state';

function metadata(overrides: Partial<ConstructorParameters<typeof TransactionMetadata>[0]> = {}): TransactionMetadata {
  return new TransactionMetadata({
    transactionalId: 'txn',
    producerId: 1000,
    lastProducerId: -1,
    producerEpoch: 0,
    lastProducerEpoch: -1,
    txnTimeoutMs: 60000,
    state: 'Empty',
    txnLastUpdateTimestamp: 100,
    ...overrides,
  });
}

const tp0 = { topic: 'orders', partition: 0 };
const tp1 = { topic: 'orders', partition: 1 };

describe('TransactionState', () => {
  it("has Kafka 2.8's status bytes", () => {
    expect(TRANSACTION_STATES.map((s) => [s, transactionStateByte(s)])).toEqual([
      ['Empty', 0], ['Ongoing', 1], ['PrepareCommit', 2], ['PrepareAbort', 3], ['CompleteCommit', 4], ['CompleteAbort', 5], ['Dead', 6], ['PrepareEpochFence', 7],
    ]);
  });

  it("allows only Kafka's previous states", () => {
    expect(isValidPreviousState('PrepareCommit', 'Ongoing')).toBe(true);
    expect(isValidPreviousState('PrepareCommit', 'Empty')).toBe(false);
    expect(isValidPreviousState('PrepareAbort', 'PrepareEpochFence')).toBe(true);
    expect(isValidPreviousState('CompleteCommit', 'PrepareAbort')).toBe(false);
    expect(isValidPreviousState('Dead', 'Ongoing')).toBe(false);
    expect(isValidPreviousState('Ongoing', 'CompleteAbort')).toBe(true);
  });
});

describe('TransactionMetadata', () => {
  it('runs a whole transaction: Empty -> Ongoing -> PrepareCommit -> CompleteCommit', () => {
    const m = metadata();
    const add = m.prepareAddPartitions([tp0], 200);
    expect(m.pendingState).toBe('Ongoing');
    expect(add).toMatchObject({ txnState: 'Ongoing', txnStartTimestamp: 200, txnLastUpdateTimestamp: 200, topicPartitions: [tp0] });
    m.completeTransitionTo(add);
    expect(m.state).toBe('Ongoing');
    expect(m.pendingState).toBeUndefined();
    // A second add keeps the start time and takes the union.
    m.completeTransitionTo(m.prepareAddPartitions([tp1, tp0], 300));
    expect(m.partitions()).toEqual([tp0, tp1]);
    expect(m.txnStartTimestamp).toBe(200);
    m.completeTransitionTo(m.prepareAbortOrCommit('PrepareCommit', 400));
    expect(m.state).toBe('PrepareCommit');
    const complete = m.prepareComplete(500);
    expect(complete).toMatchObject({ txnState: 'CompleteCommit', topicPartitions: [] });
    m.removePartition(tp0);
    m.removePartition(tp1);
    m.completeTransitionTo(complete);
    expect(m.state).toBe('CompleteCommit');
    expect(m.partitions()).toEqual([]);
  });

  it('refuses a second transition while one is pending, and an invalid target state', () => {
    const m = metadata();
    m.prepareAddPartitions([tp0], 200);
    expect(() => m.prepareAddPartitions([tp1], 201)).toThrow('Preparing transaction state transition to Ongoing while it already a pending state Ongoing');
    const fresh = metadata();
    expect(() => fresh.prepareAbortOrCommit('PrepareCommit', 200)).toThrow(IllegalTransactionStateError);
    expect(() => fresh.prepareAbortOrCommit('PrepareCommit', 200)).toThrow('target state PrepareCommit is not a valid previous state of the current state Empty');
  });

  it('bumps the epoch on InitProducerId, recognises a retry by the previous epoch and fences any other', () => {
    const m = metadata({ producerEpoch: 3, lastProducerEpoch: 2 });
    expect(m.prepareIncrementProducerEpoch(1000, undefined, 200)).toMatchObject({ producerEpoch: 4, lastProducerEpoch: -1, txnTimeoutMs: 1000, txnState: 'Empty', txnStartTimestamp: -1 });
    m.pendingState = undefined;
    expect(m.prepareIncrementProducerEpoch(1000, 3, 200)).toMatchObject({ producerEpoch: 4, lastProducerEpoch: 3 });
    m.pendingState = undefined;
    expect(m.prepareIncrementProducerEpoch(1000, 2, 200)).toMatchObject({ producerEpoch: 3, lastProducerEpoch: 2 });
    m.pendingState = undefined;
    expect(m.prepareIncrementProducerEpoch(1000, 1, 200)).toBe('PRODUCER_FENCED');
  });

  it('fences an ongoing transaction with a bumped epoch, reused after a failed fence', () => {
    const m = metadata({ state: 'Ongoing', producerEpoch: 5, topicPartitions: [tp0], txnStartTimestamp: 150 });
    expect(m.prepareFenceProducerEpoch()).toMatchObject({ txnState: 'PrepareEpochFence', producerEpoch: 6, lastProducerEpoch: -1 });
    m.pendingState = undefined;
    m.hasFailedEpochFence = true;
    expect(m.prepareFenceProducerEpoch().producerEpoch).toBe(5);
  });

  it('rotates the producer id once the epoch is exhausted', () => {
    const m = metadata({ producerEpoch: 32766 });
    expect(m.isProducerEpochExhausted).toBe(true);
    expect(() => m.prepareIncrementProducerEpoch(1000, undefined, 200)).toThrow('Cannot allocate any more producer epochs for producerId 1000');
    const t = m.prepareProducerIdRotation(2000, 1000, 200, true);
    expect(t).toMatchObject({ producerId: 2000, lastProducerId: 1000, producerEpoch: 0, lastProducerEpoch: 32766 });
    m.completeTransitionTo(t);
    expect([m.producerId, m.lastProducerId, m.producerEpoch]).toEqual([2000, 1000, 0]);
  });

  it('refuses to apply a transition other than the one prepared', () => {
    const m = metadata({ state: 'Ongoing', topicPartitions: [tp0], txnStartTimestamp: 150 });
    const t = m.prepareAbortOrCommit('PrepareAbort', 300);
    expect(() => m.completeTransitionTo({ ...t, txnState: 'PrepareCommit' })).toThrow('failed transition');
    expect(() => m.completeTransitionTo({ ...t, producerEpoch: 9 })).toThrow('failed transition');
    m.completeTransitionTo(t);
    expect(m.state).toBe('PrepareAbort');
  });

  it('only removes partitions whose markers were sent while preparing', () => {
    const m = metadata({ state: 'Ongoing', topicPartitions: [tp0], txnStartTimestamp: 150 });
    expect(() => m.removePartition(tp0)).toThrow("Transaction metadata's current state is Ongoing");
  });
});
