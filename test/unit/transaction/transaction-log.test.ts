import { hashPartitionFor } from '../../../src/common/java-string-hash-code';
import { readTransactionLogKey, readTransactionLogValue, transactionLogKey, transactionLogValue } from '../../../src/transaction/transaction-log';
import { TxnTransitMetadata } from '../../../src/transaction/transaction-metadata';
import { transactionLogMessageParser } from '../../../src/tools/dump-log-decoders';
import { RecordBatch } from '../../../src/records';
import { endTransactionMarkerBatch } from '../../../src/broker/handlers/write-txn-markers';

function transit(overrides: Partial<TxnTransitMetadata> = {}): TxnTransitMetadata {
  return {
    producerId: 4001,
    lastProducerId: -1,
    producerEpoch: 2,
    lastProducerEpoch: -1,
    txnTimeoutMs: 60000,
    txnState: 'Ongoing',
    topicPartitions: [{ topic: 'ab', partition: 0 }, { topic: 'ab', partition: 3 }, { topic: 'c', partition: 1 }],
    txnStartTimestamp: 1700000000000,
    txnLastUpdateTimestamp: 1700000000123,
    ...overrides,
  };
}

describe('TransactionLog key and value (TransactionLogKey.json / TransactionLogValue.json v0)', () => {
  it('writes the key as version 0 and the transactional id string', () => {
    expect(transactionLogKey('tx-1').toString('hex')).toBe('0000' + '0004' + Buffer.from('tx-1').toString('hex'));
    expect(readTransactionLogKey(transactionLogKey('tx-1'))).toBe('tx-1');
    expect(readTransactionLogKey(Buffer.from('00010000', 'hex'))).toBeUndefined();
  });

  it("writes the value field by field in the schema's order", () => {
    const hex = [
      '0000', // version 0
      '0000000000000fa1', // producer_id 4001
      '0002', // producer_epoch
      '0000ea60', // transaction_timeout_ms 60000
      '01', // transaction_status Ongoing
      '00000002', // two topics
      '0002' + Buffer.from('ab').toString('hex') + '00000002' + '00000000' + '00000003',
      '0001' + Buffer.from('c').toString('hex') + '00000001' + '00000001',
      (1700000000123).toString(16).padStart(16, '0'), // transaction_last_update_timestamp_ms
      (1700000000000).toString(16).padStart(16, '0'), // transaction_start_timestamp_ms
    ].join('');
    const value = transactionLogValue(transit());
    expect(value.toString('hex')).toBe(hex);
    expect(readTransactionLogValue(value)).toEqual({
      producerId: 4001,
      producerEpoch: 2,
      txnTimeoutMs: 60000,
      state: 'Ongoing',
      topicPartitions: transit().topicPartitions,
      txnLastUpdateTimestamp: 1700000000123,
      txnStartTimestamp: 1700000000000,
    });
  });

  it('writes null partitions for an Empty transaction, as Kafka does', () => {
    const value = transactionLogValue(transit({ txnState: 'Empty', topicPartitions: [], txnStartTimestamp: -1 }));
    expect(value.subarray(17, 21).toString('hex')).toBe('ffffffff');
    expect(readTransactionLogValue(value)).toMatchObject({ state: 'Empty', topicPartitions: [], txnStartTimestamp: -1 });
    expect(() => transactionLogValue(transit({ txnState: 'Empty' }))).toThrow('Transaction is not expected to have any partitions since its state is Empty');
  });

  it('is what kafka-dump-log --transaction-log-decoder reads', () => {
    const out = transactionLogMessageParser({ offset: 0, timestamp: 0, headers: [], key: transactionLogKey('tx-1'), value: transactionLogValue(transit({ txnState: 'PrepareCommit' })) });
    expect(out).toEqual({
      key: 'transaction_metadata::transactionalId=tx-1',
      payload: 'producerId:4001,producerEpoch:2,state=PrepareCommit,partitions=[ab-0,ab-3,c-1],txnLastUpdateTimestamp=1700000000123,txnTimeoutMs=60000',
    });
  });
});

describe('transaction coordinator placement', () => {
  it("is Utils.abs(transactionalId.hashCode) % transaction.state.log.num.partitions", () => {
    // "abc".hashCode = 96354; "polygenelubricants".hashCode = Integer.MIN_VALUE, which Utils.abs maps to 0.
    expect(hashPartitionFor('abc', 50)).toBe(96354 % 50);
    expect(hashPartitionFor('polygenelubricants', 50)).toBe(0);
    // A negative hash: Java's "my-transactional-id".hashCode() is -959806496, so partition 959806496 % 50 = 46.
    expect(hashPartitionFor('my-transactional-id', 50)).toBe(46);
  });
});

describe('end transaction marker (MemoryRecords.withEndTransactionMarker)', () => {
  it('is one transactional control batch with the producer, [0, type] key and [0, coordinator epoch] value', () => {
    const batch = new RecordBatch(endTransactionMarkerBatch(4001, 3, true, 7, 1700000000000));
    expect([batch.isTransactional, batch.isControlBatch, batch.producerId, batch.producerEpoch, batch.baseSequence, batch.recordsCount]).toEqual([true, true, 4001, 3, -1, 1]);
    expect(batch.isValid()).toBe(true);
    const [record] = batch.records();
    expect(record!.key!.toString('hex')).toBe('00000001');
    expect(record!.value!.toString('hex')).toBe('000000000007');
    expect(new RecordBatch(endTransactionMarkerBatch(4001, 3, false, 7, 0)).records()[0]!.key!.toString('hex')).toBe('00000000');
  });
});
