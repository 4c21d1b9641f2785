import { NetworkClient } from '../client/network-client';
import { PartitionConsumer } from '../client/partition-consumer';
import { TimestampType } from '../records';

/** Bytes as the page shows them: the UTF-8 text when the bytes are printable text, and always the hex. */
export interface ShownBytes {
  text: string | null;
  hex: string;
}

export interface BrowsedMessage {
  offset: number;
  timestamp: number;
  /** CreateTime or LogAppendTime, as kafka-console-consumer's print.timestamp names them. */
  timestampType: string;
  key: ShownBytes | null;
  value: ShownBytes | null;
  headers: { key: string; value: ShownBytes | null }[];
}

/** The text of the bytes when they are valid UTF-8 without control characters (tabs and newlines allowed). */
export function showBytes(b: Buffer | null): ShownBytes | null {
  if (b === null) return null;
  const text = b.toString('utf8');
  const printable = Buffer.from(text, 'utf8').equals(b) && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
  return { text: printable ? text : null, hex: b.toString('hex') };
}

/**
 * The page's message browser: up to `limit` records of one partition from `offset` (the log start offset when
 * negative), read with the tools' PartitionConsumer, one fetch round per call, decoded here at the edge.
 */
export async function browseMessages(client: NetworkClient, topic: string, partition: number, offset: number, limit: number): Promise<BrowsedMessage[]> {
  const consumer = new PartitionConsumer(client, { maxWaitMs: 100 });
  await consumer.assign([{ topic, partition }], offset < 0 ? 'earliest' : offset);
  const records = (await consumer.poll()).slice(0, limit);
  return records.map((r) => ({
    offset: r.offset,
    timestamp: r.timestamp,
    timestampType: r.timestampType === TimestampType.LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime',
    key: showBytes(r.key),
    value: showBytes(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: showBytes(h.value) })),
  }));
}
