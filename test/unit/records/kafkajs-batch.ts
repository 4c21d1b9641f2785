/* Builds record batches with kafkajs 2.2.4's own encoder (the golden source for the byte-identity tests). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { RecordBatch: KafkajsRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (args: Record<string, unknown>) => Promise<{ buffer: Buffer }>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const KafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (args: Record<string, unknown>) => unknown;

export interface KafkajsMessage {
  key: string | null;
  value: string | null;
  timestamp: number;
  headers?: Record<string, string>;
}

export async function kafkajsBatch(messages: KafkajsMessage[], compression = 0): Promise<Buffer> {
  const first = messages[0]?.timestamp ?? 0;
  const max = Math.max(...messages.map((m) => m.timestamp));
  const records = messages.map((m, i) =>
    KafkajsRecord({
      offsetDelta: i,
      timestampDelta: m.timestamp - first,
      key: m.key === null ? null : Buffer.from(m.key),
      value: m.value === null ? null : Buffer.from(m.value),
      headers: m.headers ?? {},
    }),
  );
  const batch = await KafkajsRecordBatch({
    compression,
    firstTimestamp: first,
    maxTimestamp: max,
    lastOffsetDelta: messages.length - 1,
    records,
  });
  return Buffer.from(batch.buffer);
}
