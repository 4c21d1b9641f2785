import { ErrorCode, ErrorName } from '../../../src/common/error-codes';
import { writeInt64 } from '../../../src/common/int64';
import { Scheduler } from '../../../src/common/scheduler';
import { TransactionCoordinator } from '../../../src/transaction/transaction-coordinator';
import { LeaderEndpointLookup, TransactionMarkerChannelManager } from '../../../src/transaction/transaction-marker-channel-manager';
import { TransactionLogAccess, TransactionStateManager } from '../../../src/transaction/transaction-state-manager';
import { MockClock } from '../../helpers/mock-clock';
import { waitUntil } from '../../helpers/wait-until';

/** `__transaction_state` partitions as lists of batches, offsets assigned on append. */
class MemoryTxnLog implements TransactionLogAccess {
  readonly logs = new Map<number, Buffer[]>();
  failWith: ErrorName | undefined;
  async append(partition: number, records: Buffer): Promise<ErrorName | undefined> {
    if (this.failWith !== undefined) return this.failWith;
    const log = this.logs.get(partition) ?? [];
    this.logs.set(partition, log);
    const copy = Buffer.from(records);
    writeInt64(copy, 0, log.length);
    log.push(copy);
    return undefined;
  }
  bounds(partition: number): { logStartOffset: number; logEndOffset: number } {
    return { logStartOffset: 0, logEndOffset: this.logs.get(partition)?.length ?? 0 };
  }
  read(partition: number, fromOffset: number): Buffer {
    return Buffer.concat((this.logs.get(partition) ?? []).slice(fromOffset));
  }
}

const NUM_PARTITIONS = 1;

function setup(log = new MemoryTxnLog(), clock = new MockClock(), leaderFor: LeaderEndpointLookup = () => undefined) {
  let nextId = 1000;
  const stateManager = new TransactionStateManager(
    { brokerId: 0, numPartitions: () => NUM_PARTITIONS, transactionMaxTimeoutMs: 900000, transactionalIdExpirationMs: 604800000, loadBufferSize: 1 << 20, requestTimeoutMs: 30000 },
    log,
    clock,
  );
  // By default no leader is ever known: markers stay pending, which is what most of these tests look at.
  const markers = new TransactionMarkerChannelManager({ brokerId: 0, requestTimeoutMs: 30000, retryBackoffMs: 100 }, leaderFor, stateManager, clock);
  const coordinator = new TransactionCoordinator(
    { brokerId: 0, abortTimedOutTransactionsIntervalMs: 10000, removeExpiredTransactionalIdsIntervalMs: 3600000 },
    stateManager,
    markers,
    { generateProducerId: async () => nextId++ },
    new Scheduler(clock),
    clock,
  );
  return { log, clock, stateManager, markers, coordinator };
}

const tp = { topic: 'orders', partition: 0 };

describe('TransactionCoordinator', () => {
  it('answers NOT_COORDINATOR before it leads the partition, then hands out an id and bumps the epoch', async () => {
    const { coordinator } = setup();
    expect((await coordinator.handleInitProducerId('t1', 60000)).errorCode).toBe(ErrorCode.NOT_COORDINATOR.code);
    await coordinator.onElection(0, 5);
    expect(await coordinator.handleInitProducerId('t1', 60000)).toEqual({ errorCode: 0, producerId: 1000, producerEpoch: 0 });
    expect(await coordinator.handleInitProducerId('t1', 60000)).toEqual({ errorCode: 0, producerId: 1000, producerEpoch: 1 });
    expect((await coordinator.handleInitProducerId('t1', 0)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT.code);
    expect((await coordinator.handleInitProducerId('t1', 900001)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT.code);
    expect((await coordinator.handleInitProducerId('', 60000)).errorCode).toBe(ErrorCode.INVALID_REQUEST.code);
  });

  it('checks producer id, epoch and state on AddPartitionsToTxn and EndTxn', async () => {
    const { coordinator } = setup();
    await coordinator.onElection(0, 1);
    expect(await coordinator.handleAddPartitionsToTransaction('nobody', 1, 0, [tp])).toBe('INVALID_PRODUCER_ID_MAPPING');
    const { producerId, producerEpoch } = await coordinator.handleInitProducerId('t1', 60000);
    expect(await coordinator.handleEndTransaction('t1', producerId, producerEpoch, 'COMMIT')).toBe('INVALID_TXN_STATE');
    expect(await coordinator.handleAddPartitionsToTransaction('t1', producerId + 1, producerEpoch, [tp])).toBe('INVALID_PRODUCER_ID_MAPPING');
    expect(await coordinator.handleAddPartitionsToTransaction('t1', producerId, producerEpoch + 1, [tp])).toBe('PRODUCER_FENCED');
    expect(await coordinator.handleAddPartitionsToTransaction('t1', producerId, producerEpoch, [tp])).toBe('NONE');
    expect(await coordinator.handleEndTransaction('t1', producerId, producerEpoch, 'COMMIT')).toBe('NONE');
    // Markers not written yet: PrepareCommit, so a retry is CONCURRENT_TRANSACTIONS and an abort INVALID_TXN_STATE.
    expect(coordinator.stateManager.getTransactionState('t1')).toMatchObject({ entry: { transactionMetadata: { state: 'PrepareCommit', pendingState: 'CompleteCommit' } } });
    expect(await coordinator.handleEndTransaction('t1', producerId, producerEpoch, 'COMMIT')).toBe('CONCURRENT_TRANSACTIONS');
    expect(await coordinator.handleAddPartitionsToTransaction('t1', producerId, producerEpoch, [tp])).toBe('CONCURRENT_TRANSACTIONS');
    expect((await coordinator.handleInitProducerId('t1', 60000)).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS.code);
    expect(coordinator.markerChannel.numPendingTransactions).toBe(1);
  });

  it('fences an older producer: its open transaction is aborted, the retry gets a higher epoch', async () => {
    const { coordinator } = setup();
    await coordinator.onElection(0, 1);
    const first = await coordinator.handleInitProducerId('t1', 60000);
    expect(await coordinator.handleAddPartitionsToTransaction('t1', first.producerId, first.producerEpoch, [tp])).toBe('NONE');
    expect((await coordinator.handleInitProducerId('t1', 60000)).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS.code);
    const m = (coordinator.stateManager.getTransactionState('t1') as { entry: { transactionMetadata: { state: string; producerEpoch: number } } }).entry.transactionMetadata;
    expect(m.state).toBe('PrepareAbort');
    expect(m.producerEpoch).toBe(first.producerEpoch + 1);
    // The zombie is fenced.
    expect(await coordinator.handleEndTransaction('t1', first.producerId, first.producerEpoch, 'COMMIT')).toBe('PRODUCER_FENCED');
  });

  it('aborts a transaction open past its timeout', async () => {
    const { coordinator, clock } = setup();
    await coordinator.onElection(0, 1);
    const p = await coordinator.handleInitProducerId('t1', 1000);
    await coordinator.handleAddPartitionsToTransaction('t1', p.producerId, p.producerEpoch, [tp]);
    await coordinator.abortTimedOutTransactions();
    expect(coordinator.stateManager.getTransactionState('t1')).toMatchObject({ entry: { transactionMetadata: { state: 'Ongoing' } } });
    clock.advance(1001);
    await coordinator.abortTimedOutTransactions();
    expect(coordinator.stateManager.getTransactionState('t1')).toMatchObject({ entry: { transactionMetadata: { state: 'PrepareAbort', producerEpoch: p.producerEpoch + 1 } } });
  });

  it('a failed write leaves the state as it was and answers the mapped error', async () => {
    const { coordinator, log } = setup();
    await coordinator.onElection(0, 1);
    const p = await coordinator.handleInitProducerId('t1', 60000);
    log.failWith = 'NOT_ENOUGH_REPLICAS';
    expect(await coordinator.handleAddPartitionsToTransaction('t1', p.producerId, p.producerEpoch, [tp])).toBe('COORDINATOR_NOT_AVAILABLE');
    log.failWith = 'NOT_LEADER_OR_FOLLOWER';
    expect(await coordinator.handleAddPartitionsToTransaction('t1', p.producerId, p.producerEpoch, [tp])).toBe('NOT_COORDINATOR');
    log.failWith = undefined;
    expect(await coordinator.handleAddPartitionsToTransaction('t1', p.producerId, p.producerEpoch, [tp])).toBe('NONE');
  });

  it('a new coordinator loads the log and resends the markers of a prepared commit', async () => {
    const old = setup();
    await old.coordinator.onElection(0, 1);
    const p = await old.coordinator.handleInitProducerId('t1', 60000);
    await old.coordinator.handleAddPartitionsToTransaction('t1', p.producerId, p.producerEpoch, [tp]);
    await old.coordinator.handleInitProducerId('t2', 60000);
    expect(await old.coordinator.handleEndTransaction('t1', p.producerId, p.producerEpoch, 'COMMIT')).toBe('NONE');
    old.coordinator.onResignation(0);
    expect(old.markers.numPendingTransactions).toBe(0);

    const next = setup(old.log);
    await next.coordinator.onElection(0, 2);
    expect(next.coordinator.stateManager.getTransactionState('t1')).toMatchObject({
      entry: { coordinatorEpoch: 2, transactionMetadata: { state: 'PrepareCommit', producerId: p.producerId, producerEpoch: p.producerEpoch } },
    });
    expect(next.coordinator.stateManager.getTransactionState('t2')).toMatchObject({ entry: { transactionMetadata: { state: 'Empty' } } });
    expect(next.markers.numPendingTransactions).toBe(1);
  });

  it('skips the markers of partitions the metadata no longer knows (deleted) and completes the transaction', async () => {
    const { coordinator, markers } = setup(new MemoryTxnLog(), new MockClock(), () => 'unknown');
    await coordinator.onElection(0, 1);
    const p = await coordinator.handleInitProducerId('t1', 60000);
    await coordinator.handleAddPartitionsToTransaction('t1', p.producerId, p.producerEpoch, [tp]);
    expect(await coordinator.handleEndTransaction('t1', p.producerId, p.producerEpoch, 'ABORT')).toBe('NONE');
    await waitUntil(() => markers.numPendingTransactions === 0, { timeoutMs: 5000, message: 'the transaction completed' });
    expect(coordinator.stateManager.getTransactionState('t1')).toMatchObject({ entry: { transactionMetadata: { state: 'CompleteAbort', pendingState: undefined } } });
  });

  it('expires an id idle for longer than transactional.id.expiration.ms with a tombstone', async () => {
    const { coordinator, clock, log } = setup();
    await coordinator.onElection(0, 1);
    await coordinator.handleInitProducerId('idle', 60000);
    await coordinator.stateManager.removeExpiredTransactionalIds();
    expect(coordinator.stateManager.getTransactionState('idle')).toMatchObject({ entry: { transactionMetadata: { state: 'Empty' } } });
    clock.advance(604800000 + 1);
    await coordinator.stateManager.removeExpiredTransactionalIds();
    expect(coordinator.stateManager.getTransactionState('idle')).toEqual({ entry: undefined });
    // The last record is the tombstone, so a reload does not bring the id back.
    const next = setup(log);
    await next.coordinator.onElection(0, 2);
    expect(next.coordinator.stateManager.getTransactionState('idle')).toEqual({ entry: undefined });
  });
});
