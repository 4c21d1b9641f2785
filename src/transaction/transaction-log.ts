import { readInt64, writeInt64 } from '../common/int64';
import { TopicPartition } from '../common/topic-partition';
import { TxnTransitMetadata } from './transaction-metadata';
import { TransactionState, transactionStateByte, transactionStateFromByte } from './transaction-state';

/**
 * The records of `__transaction_state` in Kafka 2.8's format (TransactionLog.scala with TransactionLogKey.json and
 * TransactionLogValue.json, both version 0, not flexible):
 *
 *     key   = version int16 (0), transactional_id string
 *     value = version int16 (0), producer_id int64, producer_epoch int16, transaction_timeout_ms int32,
 *             transaction_status int8, transaction_partitions nullable array of [topic string,
 *             partition_ids array of int32], transaction_last_update_timestamp_ms int64,
 *             transaction_start_timestamp_ms int64
 *
 * An Empty transaction writes null partitions (Kafka does); a Dead one is a tombstone (null value).
 */
export const TXN_LOG_KEY_VERSION = 0;
export const TXN_LOG_VALUE_VERSION = 0;

/** What a `__transaction_state` value holds. */
export interface TxnLogValue {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TransactionState;
  readonly topicPartitions: readonly TopicPartition[];
  readonly txnLastUpdateTimestamp: number;
  readonly txnStartTimestamp: number;
}

export function transactionLogKey(transactionalId: string): Buffer {
  const id = Buffer.from(transactionalId, 'utf8');
  const out = Buffer.alloc(4 + id.length);
  out.writeInt16BE(TXN_LOG_KEY_VERSION, 0);
  out.writeInt16BE(id.length, 2);
  id.copy(out, 4);
  return out;
}

/** The transactional id of a key, or undefined for a key version this broker does not know (Kafka skips those). */
export function readTransactionLogKey(key: Buffer): string | undefined {
  const version = key.readInt16BE(0);
  if (version !== TXN_LOG_KEY_VERSION) return undefined;
  const length = key.readInt16BE(2);
  return key.toString('utf8', 4, 4 + length);
}

export function transactionLogValue(t: TxnTransitMetadata): Buffer {
  if (t.txnState === 'Empty' && t.topicPartitions.length > 0) throw new Error(`Transaction is not expected to have any partitions since its state is ${t.txnState}: ${JSON.stringify(t)}`);
  const byTopic = new Map<string, number[]>();
  for (const tp of t.topicPartitions) {
    const list = byTopic.get(tp.topic);
    if (list === undefined) byTopic.set(tp.topic, [tp.partition]);
    else list.push(tp.partition);
  }
  const topics = [...byTopic].map(([topic, ids]) => ({ name: Buffer.from(topic, 'utf8'), ids }));
  const partitionsSize = t.txnState === 'Empty' ? 4 : 4 + topics.reduce((n, x) => n + 2 + x.name.length + 4 + 4 * x.ids.length, 0);
  const out = Buffer.alloc(2 + 8 + 2 + 4 + 1 + partitionsSize + 8 + 8);
  let pos = out.writeInt16BE(TXN_LOG_VALUE_VERSION, 0);
  writeInt64(out, pos, t.producerId);
  pos += 8;
  pos = out.writeInt16BE(t.producerEpoch, pos);
  pos = out.writeInt32BE(t.txnTimeoutMs, pos);
  pos = out.writeInt8(transactionStateByte(t.txnState), pos);
  if (t.txnState === 'Empty') {
    pos = out.writeInt32BE(-1, pos);
  } else {
    pos = out.writeInt32BE(topics.length, pos);
    for (const x of topics) {
      pos = out.writeInt16BE(x.name.length, pos);
      pos += x.name.copy(out, pos);
      pos = out.writeInt32BE(x.ids.length, pos);
      for (const id of x.ids) pos = out.writeInt32BE(id, pos);
    }
  }
  writeInt64(out, pos, t.txnLastUpdateTimestamp);
  writeInt64(out, pos + 8, t.txnStartTimestamp);
  return out;
}

export function readTransactionLogValue(value: Buffer): TxnLogValue {
  const version = value.readInt16BE(0);
  if (version !== TXN_LOG_VALUE_VERSION) throw new Error(`Unknown version ${version} from the transaction log message value`);
  let pos = 2;
  const producerId = readInt64(value, pos);
  pos += 8;
  const producerEpoch = value.readInt16BE(pos);
  pos += 2;
  const txnTimeoutMs = value.readInt32BE(pos);
  pos += 4;
  const state = transactionStateFromByte(value.readInt8(pos));
  pos += 1;
  const topicPartitions: TopicPartition[] = [];
  const topicCount = value.readInt32BE(pos);
  pos += 4;
  for (let i = 0; i < topicCount; i++) {
    const nameLength = value.readInt16BE(pos);
    const topic = value.toString('utf8', pos + 2, pos + 2 + nameLength);
    pos += 2 + nameLength;
    const n = value.readInt32BE(pos);
    pos += 4;
    for (let j = 0; j < n; j++, pos += 4) topicPartitions.push({ topic, partition: value.readInt32BE(pos) });
  }
  const txnLastUpdateTimestamp = readInt64(value, pos);
  const txnStartTimestamp = readInt64(value, pos + 8);
  return { producerId, producerEpoch, txnTimeoutMs, state, topicPartitions, txnLastUpdateTimestamp, txnStartTimestamp };
}
