import { ErrorCode } from '../../../src/common/error-codes';
import { SYSTEM_CLOCK } from '../../../src/common/time';
import { NetworkClient } from '../../../src/client/network-client';
import { Producer, ProducerConfigError } from '../../../src/client/producer';
import { TransactionManager } from '../../../src/client/transaction-manager';
import { isTransitionValid, TransactionState } from '../../../src/client/transaction-state';

const STATES: TransactionState[] = ['UNINITIALIZED', 'INITIALIZING', 'READY', 'IN_TRANSACTION', 'COMMITTING_TRANSACTION', 'ABORTING_TRANSACTION', 'ABORTABLE_ERROR', 'FATAL_ERROR'];

describe("producer transaction states (Kafka's TransactionManager.State)", () => {
  it('allows exactly the transitions Kafka allows', () => {
    const allowed = STATES.flatMap((from) => STATES.filter((to) => isTransitionValid(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.filter((t) => !t.endsWith('FATAL_ERROR')).sort()).toEqual(
      [
        'UNINITIALIZED->INITIALIZING',
        'ABORTING_TRANSACTION->INITIALIZING',
        'INITIALIZING->READY',
        'COMMITTING_TRANSACTION->READY',
        'ABORTING_TRANSACTION->READY',
        'READY->UNINITIALIZED',
        'READY->IN_TRANSACTION',
        'IN_TRANSACTION->COMMITTING_TRANSACTION',
        'IN_TRANSACTION->ABORTING_TRANSACTION',
        'ABORTABLE_ERROR->ABORTING_TRANSACTION',
        'IN_TRANSACTION->ABORTABLE_ERROR',
        'COMMITTING_TRANSACTION->ABORTABLE_ERROR',
        'ABORTABLE_ERROR->ABORTABLE_ERROR',
      ].sort(),
    );
    for (const s of STATES) expect(isTransitionValid(s, 'FATAL_ERROR')).toBe(true);
  });
});

/** A NetworkClient stand-in answering by API name, recording what was asked. */
function fakeClient(answer: (api: string, body: Record<string, unknown>) => Record<string, unknown>): { client: NetworkClient; calls: Array<{ api: string; target: unknown; body: Record<string, unknown> }> } {
  const calls: Array<{ api: string; target: unknown; body: Record<string, unknown> }> = [];
  const client = {
    metadata: { brokers: new Map([[1, {}], [2, {}]]) },
    refreshMetadata: () => Promise.resolve(),
    request: (target: unknown, api: { name: string }, body: Record<string, unknown>) => {
      calls.push({ api: api.name, target, body });
      return Promise.resolve({ throttleTimeMs: 0, ...answer(api.name, body) });
    },
  } as unknown as NetworkClient;
  return { client, calls };
}

const ok = { errorCode: ErrorCode.NONE.code };
const manager = (client: NetworkClient): TransactionManager => new TransactionManager('txn-1', 30000, client, SYSTEM_CLOCK, 1, 2000);

describe('TransactionManager', () => {
  it('finds the coordinator, inits, adds each partition once, and ends the transaction there', async () => {
    const { client, calls } = fakeClient((api) => {
      if (api === 'FIND_COORDINATOR') return { ...ok, errorMessage: null, nodeId: 2, host: 'h', port: 1 };
      if (api === 'INIT_PRODUCER_ID') return { ...ok, producerId: 7, producerEpoch: 3 };
      if (api === 'ADD_PARTITIONS_TO_TXN') return { results: [{ name: 't', results: [{ partitionIndex: 0, ...ok }] }] };
      return ok;
    });
    const txn = manager(client);
    expect(txn.failIfNotReadyForSend()?.message).toBe("Cannot perform a 'send' before completing a call to initTransactions when transactions are enabled.");
    const pe = await txn.initTransactions();
    expect(pe).toEqual({ producerId: 7, producerEpoch: 3 });
    expect(txn.state).toBe('READY');
    expect(txn.failIfNotReadyForSend()?.message).toBe('Cannot call send in state READY');
    txn.beginTransaction();
    expect(txn.failIfNotReadyForSend()).toBeUndefined();
    await txn.addPartitions(pe, [{ topic: 't', partition: 0 }, { topic: 't', partition: 0 }]);
    await txn.addPartitions(pe, [{ topic: 't', partition: 0 }]);
    expect(txn.isPartitionAdded('t', 0)).toBe(true);
    txn.beginCommit();
    await txn.endTransaction(pe, true);
    expect(txn.state).toBe('READY');
    expect(calls.map((c) => `${c.api}@${String(c.target)}`)).toEqual(['FIND_COORDINATOR@any', 'INIT_PRODUCER_ID@2', 'ADD_PARTITIONS_TO_TXN@2', 'END_TXN@2']);
    expect(calls[2]?.body).toMatchObject({ transactionalId: 'txn-1', producerId: 7, producerEpoch: 3, topics: [{ name: 't', partitions: [0] }] });
    expect(calls[3]?.body).toMatchObject({ committed: true });
  });

  it('sends no EndTxn for a transaction nothing joined, and refuses to begin twice', async () => {
    const { client, calls } = fakeClient((api) => (api === 'FIND_COORDINATOR' ? { ...ok, errorMessage: null, nodeId: 1, host: 'h', port: 1 } : { ...ok, producerId: 1, producerEpoch: 0 }));
    const txn = manager(client);
    const pe = await txn.initTransactions();
    txn.beginTransaction();
    expect(() => txn.beginTransaction()).toThrow('TransactionalId txn-1: Invalid transition attempted from state IN_TRANSACTION to state IN_TRANSACTION');
    txn.beginAbort();
    await txn.endTransaction(pe, false);
    expect(calls.map((c) => c.api)).toEqual(['FIND_COORDINATOR', 'INIT_PRODUCER_ID']);
  });

  it('looks the coordinator up again after NOT_COORDINATOR and retries CONCURRENT_TRANSACTIONS', async () => {
    let inits = 0;
    let finds = 0;
    const { client, calls } = fakeClient((api) => {
      if (api === 'FIND_COORDINATOR') return { ...ok, errorMessage: null, nodeId: ++finds, host: 'h', port: 1 };
      inits++;
      if (inits === 1) return { errorCode: ErrorCode.NOT_COORDINATOR.code, producerId: -1, producerEpoch: -1 };
      if (inits === 2) return { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS.code, producerId: -1, producerEpoch: -1 };
      return { ...ok, producerId: 5, producerEpoch: 0 };
    });
    await manager(client).initTransactions();
    expect(calls.map((c) => `${c.api}@${String(c.target)}`)).toEqual(['FIND_COORDINATOR@any', 'INIT_PRODUCER_ID@1', 'FIND_COORDINATOR@any', 'INIT_PRODUCER_ID@2', 'INIT_PRODUCER_ID@2']);
  });

  it('turns a failed batch into an abortable error, fencing into a fatal one', async () => {
    const { client } = fakeClient((api) => (api === 'FIND_COORDINATOR' ? { ...ok, errorMessage: null, nodeId: 1, host: 'h', port: 1 } : { ...ok, producerId: 1, producerEpoch: 0 }));
    const txn = manager(client);
    const pe = await txn.initTransactions();
    txn.beginTransaction();
    txn.abortableError(new Error('boom'));
    expect(txn.state).toBe('ABORTABLE_ERROR');
    expect(() => txn.beginCommit()).toThrow('Cannot execute transactional method because we are in an error state: boom');
    txn.beginAbort();
    await txn.endTransaction(pe, false);
    expect(txn.state).toBe('READY');
    txn.beginTransaction();
    const { KafkaError } = await import('../../../src/common/kafka-error');
    txn.abortableError(new KafkaError('PRODUCER_FENCED'));
    expect(txn.state).toBe('FATAL_ERROR');
    expect(() => txn.beginAbort()).toThrow('Cannot execute transactional method because we are in an error state');
  });

  it('sends offsets: AddOffsetsToTxn at the transaction coordinator, TxnOffsetCommit at the group coordinator', async () => {
    const { client, calls } = fakeClient((api, body) => {
      if (api === 'FIND_COORDINATOR') return { ...ok, errorMessage: null, nodeId: body.keyType === 1 ? 1 : 2, host: 'h', port: 1 };
      if (api === 'INIT_PRODUCER_ID') return { ...ok, producerId: 9, producerEpoch: 1 };
      if (api === 'TXN_OFFSET_COMMIT') return { topics: [{ name: 'in', partitions: [{ partitionIndex: 0, ...ok }] }] };
      return ok;
    });
    const txn = manager(client);
    const pe = await txn.initTransactions();
    txn.beginTransaction();
    await txn.sendOffsets(pe, [{ topic: 'in', partition: 0, offset: 42 }], 'g');
    txn.beginCommit();
    await txn.endTransaction(pe, true);
    expect(calls.map((c) => `${c.api}@${String(c.target)}`)).toEqual(['FIND_COORDINATOR@any', 'INIT_PRODUCER_ID@1', 'ADD_OFFSETS_TO_TXN@1', 'FIND_COORDINATOR@any', 'TXN_OFFSET_COMMIT@2', 'END_TXN@1']);
    expect(calls[4]?.body).toMatchObject({ groupId: 'g', producerId: 9, topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 42 }] }] });
  });
});

describe('Producer transactional.id settings', () => {
  it('turns idempotence on, refuses it switched off, and refuses sends before initTransactions', async () => {
    expect(() => new Producer({ bootstrapServers: ['127.0.0.1:1'], transactionalId: 'x', enableIdempotence: false })).toThrow(new ProducerConfigError('Cannot set a transactional.id without also enabling idempotence.'));
    const p = new Producer({ bootstrapServers: ['127.0.0.1:1'], transactionalId: 'x' });
    expect((p as unknown as { o: { acks: number; enableIdempotence: boolean } }).o).toMatchObject({ acks: -1, enableIdempotence: true });
    expect(p.transactionState).toBe('UNINITIALIZED');
    await expect(p.send('t', null, Buffer.from('v'))).rejects.toThrow("Cannot perform a 'send' before completing a call to initTransactions when transactions are enabled.");
    await p.close();
    const plain = new Producer({ bootstrapServers: ['127.0.0.1:1'] });
    expect(() => plain.beginTransaction()).toThrow('Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property');
    await plain.close();
  });
});
