/*
 * The transactional produce case of `npm run bench` (issue 16): the project's producer with a transactional.id,
 * one transaction per 1,000 records (begin, 1,000 sends, commit), as fast as the broker takes them. Each commit
 * is a round trip to the transaction coordinator plus a marker per partition, which is what this case prices
 * against the plain and idempotent ones.
 */
import { Producer } from '../src/client/producer';
import { SYSTEM_CLOCK } from '../src/common/time';

export interface TransactionalProduceResult {
  recordsPerSec: number;
  mbPerSec: number;
  transactions: number;
}

export async function transactionalProduce(bootstrap: string, topic: string, records: number, recordSize: number, recordsPerTransaction = 1000): Promise<TransactionalProduceResult> {
  const producer = new Producer({ bootstrapServers: bootstrap.split(','), clientId: 'bench-transactional', transactionalId: `bench-${topic}`, batchSize: 65536, lingerMs: 5 });
  const value = Buffer.alloc(recordSize, 65);
  let failed: Error | undefined;
  const onAck = (err: Error | null): void => {
    if (err !== null) failed ??= err;
  };
  try {
    await producer.partitionsFor(topic);
    await producer.initTransactions();
    const start = SYSTEM_CLOCK.nowMs();
    let transactions = 0;
    for (let sent = 0; sent < records && failed === undefined; ) {
      producer.beginTransaction();
      const n = Math.min(recordsPerTransaction, records - sent);
      for (let i = 0; i < n; i++) producer.sendWithCallback(topic, null, value, onAck);
      sent += n;
      await producer.commitTransaction();
      transactions++;
    }
    if (failed !== undefined) throw failed;
    const seconds = Math.max(1, SYSTEM_CLOCK.nowMs() - start) / 1000;
    return { recordsPerSec: records / seconds, mbPerSec: (records * recordSize) / seconds / 1048576, transactions };
  } finally {
    await producer.close().catch(() => undefined);
  }
}
