/**
 * The Java client's default partitioning (org.apache.kafka.clients.producer.internals.DefaultPartitioner):
 * murmur2 of the serialized key, made positive, modulo the partition count, so a key lands on the same
 * partition as with Java clients, kafkajs' default and kafka-python. Records without a key are spread round
 * robin over the partitions.
 */
export class DefaultPartitioner {
  private counter = Math.floor(Math.random() * 0x7fffffff);

  partition(key: Buffer | null, numPartitions: number): number {
    if (numPartitions <= 0) throw new Error(`Cannot partition into ${numPartitions} partitions`);
    if (key === null) return this.counter++ % numPartitions;
    return toPositive(murmur2(key)) % numPartitions;
  }
}

/** Kafka's Utils.murmur2 (seed 0x9747b28c), on 32-bit integers. */
export function murmur2(data: Buffer): number {
  const length = data.length;
  const m = 0x5bd1e995;
  const r = 24;
  let h = (0x9747b28c ^ length) | 0;
  const length4 = length >> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = (data[i4] as number) | ((data[i4 + 1] as number) << 8) | ((data[i4 + 2] as number) << 16) | ((data[i4 + 3] as number) << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const tail = length4 * 4;
  const rest = length % 4;
  if (rest === 3) h ^= (data[tail + 2] as number) << 16;
  if (rest >= 2) h ^= (data[tail + 1] as number) << 8;
  if (rest >= 1) {
    h ^= data[tail] as number;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

function toPositive(n: number): number {
  return n & 0x7fffffff;
}
