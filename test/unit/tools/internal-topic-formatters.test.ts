import { groupMetadataKey, offsetCommitKey, offsetCommitValue } from '../../../src/rebalance/offset-commit-record';
import { transactionLogKey, transactionLogValue } from '../../../src/transaction/transaction-log';
import { groupMetadataMessageFormatter, offsetsMessageFormatter, scalaHashOrder, transactionLogMessageFormatter } from '../../../src/tools/internal-topic-formatters';
import { formatterFor } from '../../../src/tools/console-consumer-loop';
import { CliError } from '../../../src/tools/cli';
import { javaStringHashCode } from '../../../src/common/java-string-hash-code';

function rec(key: Buffer | null, value: Buffer | null): { offset: number; timestamp: number; key: Buffer | null; value: Buffer | null; headers: [] } {
  return { offset: 0, timestamp: 0, key, value, headers: [] };
}
const i16 = (v: number): Buffer => Buffer.from([(v >> 8) & 0xff, v & 0xff]);
const i32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const i64 = (v: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(v));
  return b;
};
const str = (s: string | null): Buffer => (s === null ? i16(-1) : Buffer.concat([i16(Buffer.byteLength(s)), Buffer.from(s)]));
const bytes = (b: Buffer): Buffer => Buffer.concat([i32(b.length), b]);

/** Kafka 2.8's console-consumer formatters for its internal topics, on records from the project's own encoders. */
describe('internal topic formatters (kafka-console-consumer --formatter)', () => {
  it('OffsetsMessageFormatter prints [group,topic,partition]::OffsetAndMetadata(...) with the committed leader epoch', () => {
    const key = offsetCommitKey('g', 't', 1);
    expect(offsetsMessageFormatter(rec(key, offsetCommitValue({ offset: 42, leaderEpoch: 3, metadata: '', commitTimestamp: 1700000000000 })))).toBe(
      '[g,t,1]::OffsetAndMetadata(offset=42, leaderEpoch=Optional[3], metadata=, commitTimestamp=1700000000000, expireTimestamp=None)\n',
    );
    expect(offsetsMessageFormatter(rec(key, offsetCommitValue({ offset: 7, leaderEpoch: -1, metadata: 'm', commitTimestamp: 5 })))).toBe(
      '[g,t,1]::OffsetAndMetadata(offset=7, leaderEpoch=Optional.empty, metadata=m, commitTimestamp=5, expireTimestamp=None)\n',
    );
    expect(offsetsMessageFormatter(rec(key, null))).toBe('[g,t,1]::NULL\n');
    // A group metadata record is not an offset: nothing printed.
    expect(offsetsMessageFormatter(rec(groupMetadataKey('g'), null))).toBe('');
    expect(offsetsMessageFormatter(rec(null, null))).toBe('');
  });

  it('reads the older offset values: v1 with an expire timestamp, v0 and v2 without a leader epoch', () => {
    const key = offsetCommitKey('g', 't', 0);
    expect(offsetsMessageFormatter(rec(key, Buffer.concat([i16(1), i64(9), str(''), i64(100), i64(200)])))).toBe(
      '[g,t,0]::OffsetAndMetadata(offset=9, leaderEpoch=Optional.empty, metadata=, commitTimestamp=100, expireTimestamp=Some(200))\n',
    );
    expect(offsetsMessageFormatter(rec(key, Buffer.concat([i16(1), i64(9), str(''), i64(100), i64(-1)])))).toContain('expireTimestamp=None)');
    expect(offsetsMessageFormatter(rec(key, Buffer.concat([i16(0), i64(9), str('x'), i64(100)])))).toBe(
      '[g,t,0]::OffsetAndMetadata(offset=9, leaderEpoch=Optional.empty, metadata=x, commitTimestamp=100, expireTimestamp=None)\n',
    );
  });

  it('GroupMetadataMessageFormatter prints group::GroupMetadata(...) and NULL for the tombstones the project writes', () => {
    expect(groupMetadataMessageFormatter(rec(groupMetadataKey('g'), null))).toBe('g::NULL\n');
    expect(groupMetadataMessageFormatter(rec(offsetCommitKey('g', 't', 0), null))).toBe('');
    const member = Buffer.concat([str('m-1'), str('inst'), str('c1'), str('/127.0.0.1'), i32(300000), i32(10000), bytes(Buffer.alloc(0)), bytes(Buffer.alloc(0))]);
    const value = Buffer.concat([i16(3), str('consumer'), i32(4), str('range'), str('m-1'), i64(1000), i32(1), member]);
    expect(groupMetadataMessageFormatter(rec(groupMetadataKey('g'), value))).toBe(
      'g::GroupMetadata(groupId=g, generation=4, protocolType=Some(consumer), currentState=Stable, members=HashMap(m-1 -> MemberMetadata(memberId=m-1, groupInstanceId=Some(inst), clientId=c1, clientHost=/127.0.0.1, sessionTimeoutMs=10000, rebalanceTimeoutMs=300000, supportedProtocols=List(range))))\n',
    );
    const empty = Buffer.concat([i16(2), str('consumer'), i32(5), str(null), str(null), i64(-1), i32(0)]);
    expect(groupMetadataMessageFormatter(rec(groupMetadataKey('g'), empty))).toBe('g::GroupMetadata(groupId=g, generation=5, protocolType=Some(consumer), currentState=Empty, members=HashMap())\n');
  });

  it('TransactionLogMessageFormatter prints id::TransactionMetadata(...) with the partitions in Scala HashSet order', () => {
    const key = transactionLogKey('tx');
    const value = transactionLogValue({
      producerId: 1000,
      lastProducerId: -1,
      producerEpoch: 2,
      lastProducerEpoch: -1,
      txnTimeoutMs: 60000,
      txnState: 'Ongoing',
      topicPartitions: [
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ],
      txnStartTimestamp: 111,
      txnLastUpdateTimestamp: 222,
    });
    // TopicPartition hashes: t-0 = 31 * 31 + 116 = 1077 (bucket 5 of 16), t-1 = 31 * 32 + 116 = 1108 (bucket 4).
    expect(transactionLogMessageFormatter(rec(key, value))).toBe(
      'tx::TransactionMetadata(transactionalId=tx, producerId=1000, producerEpoch=2, txnTimeoutMs=60000, state=Ongoing, pendingState=None, topicPartitions=HashSet(t-1, t-0), txnStartTimestamp=111, txnLastUpdateTimestamp=222)\n',
    );
    expect(transactionLogMessageFormatter(rec(key, null))).toBe('tx::NULL\n');
  });

  it('orders like Scala 2.13 mutable hash collections: bucket of the improved hash, the table doubling at 0.75', () => {
    expect(scalaHashOrder([1077, 1108, 16], (x) => x)).toEqual([16, 1108, 1077]);
    // 11 entries fit a 16-entry table: 0 and 16 share bucket 0 (ascending hash); 12 need 32, where 16 has its own.
    const others = (n: number): number[] => Array.from({ length: n }, (_, i) => 102 + i);
    expect(scalaHashOrder([16, 0, ...others(9)], (x) => x)).toEqual([0, 16, ...others(9)]);
    expect(scalaHashOrder([16, 0, ...others(10)], (x) => x)).toEqual([0, ...others(10), 16]);
    expect(scalaHashOrder(['b', 'a'], javaStringHashCode)).toEqual(['a', 'b']);
  });

  it('--formatter takes Kafka’s class names; an unknown one is its ClassNotFoundException', () => {
    const props = new Map<string, string>();
    const r = { ...rec(offsetCommitKey('g', 't', 0), null), topic: '__consumer_offsets', partition: 0, timestampType: 0 };
    expect(formatterFor('kafka.coordinator.group.GroupMetadataManager$OffsetsMessageFormatter', props).format(r as never)).toBe('[g,t,0]::NULL\n');
    expect(formatterFor('kafka.coordinator.group.GroupMetadataManager$GroupMetadataMessageFormatter', props).format(r as never)).toBe('');
    expect(formatterFor('kafka.coordinator.transaction.TransactionLog$TransactionLogMessageFormatter', props)).toBeDefined();
    expect(formatterFor(undefined, props).format({ ...r, value: Buffer.from('v') } as never)).toBe('v\n');
    expect(formatterFor('kafka.tools.DefaultMessageFormatter', props).format({ ...r, value: Buffer.from('v') } as never)).toBe('v\n');
    expect(() => formatterFor('OffsetsMessageFormatter', props)).toThrow(new CliError('java.lang.ClassNotFoundException: OffsetsMessageFormatter'));
  });
});
