/*
 * Why "leader cut from all ZooKeeper nodes (idempotent)" lost an acknowledged write in one `npm run chaos` run
 * (docs/reliability.md, run F): kafkajs 2.2.4's idempotent producer gives a failed request's sequence numbers back,
 * although the batch may have been written, so the next send reuses them and a broker that keeps Kafka's
 * duplicate check (same producer id, epoch and sequence: answer with the held batch's offset) acknowledges it
 * without writing it. kafkajs' own sendMessages and eosManager run here against two fake brokers.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const createSendMessages = require('kafkajs/src/producer/sendMessages') as (o: unknown) => (r: unknown) => Promise<{ baseOffset: string }[]>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const createEosManager = require('kafkajs/src/producer/eosManager') as (o: unknown) => { initProducerId(): Promise<void> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const createRetry = require('kafkajs/src/retry') as (o: unknown) => unknown;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createErrorFromCode } = require('kafkajs/src/protocol/error') as { createErrorFromCode: (code: number) => Error };

const NOT_LEADER_OR_FOLLOWER = 6;
const TOPIC = 'chaos';

interface Entry {
  partition: number;
  firstSequence: number;
  messages: { value: string }[];
}
type ProduceRequest = { topicData: { topic: string; partitions: Entry[] }[] };

/** A partition log with Kafka's duplicate check on one-record batches: a held sequence gets the held offset. */
class KafkaLikeLog {
  readonly values: string[] = [];
  private readonly offsetBySequence = new Map<number, number>();

  append(seq: number, value: string): number {
    const held = this.offsetBySequence.get(seq);
    if (held !== undefined) return held;
    this.offsetBySequence.set(seq, this.values.length);
    this.values.push(value);
    return this.values.length - 1;
  }
}

describe('kafkajs 2.2.4 idempotent producer (the client behind the lost write of chaos run F)', () => {
  it('reuses the sequence of a request that failed after it was written, and the duplicate check acknowledges the next value without writing it', async () => {
    const logger: Record<string, unknown> = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    logger['namespace'] = () => logger;
    const log = new KafkaLikeLog();
    let leader = 2;
    let onOldLeaderFailure: (() => void) | undefined;
    const response = (baseOffset: number): unknown => ({ topics: [{ topicName: TOPIC, partitions: [{ partition: 0, errorCode: 0, baseOffset: String(baseOffset), logAppendTime: '-1', logStartOffset: '0' }] }] });
    const brokers = new Map<number, { nodeId: number; produce(r: ProduceRequest): Promise<unknown>; initProducerId(): Promise<unknown> }>();
    for (const nodeId of [2, 3]) {
      brokers.set(nodeId, {
        nodeId,
        initProducerId: async () => ({ producerId: 1000, producerEpoch: 0 }),
        produce: async ({ topicData }) => {
          const entry = (topicData[0] as { partitions: Entry[] }).partitions[0] as Entry;
          const value = (entry.messages[0] as { value: string }).value;
          if (nodeId === 2) {
            // The old leader wrote the batch and its followers copied it (the new leader holds it), but it answers
            // NOT_LEADER_OR_FOLLOWER: it has been replaced meanwhile.
            log.append(entry.firstSequence, value);
            leader = 3;
            setTimeout(() => onOldLeaderFailure?.(), 20);
            throw createErrorFromCode(NOT_LEADER_OR_FOLLOWER);
          }
          return response(log.append(entry.firstSequence, value));
        },
      });
    }
    const cluster = {
      retry: { retries: 5, initialRetryTime: 300, maxRetryTime: 300 },
      refreshMetadataIfNecessary: async () => undefined,
      refreshMetadata: async () => undefined,
      addMultipleTargetTopics: async () => undefined,
      isConnected: () => true,
      findControllerBroker: async () => brokers.get(2),
      findTopicPartitionMetadata: () => [{ partitionId: 0, leader, replicas: [2, 3], isr: [2, 3] }],
      findLeaderForPartitions: (_topic: string, partitions: number[]) => ({ [leader]: partitions.map(Number) }),
      findBroker: async ({ nodeId }: { nodeId: number }) => brokers.get(Number(nodeId)),
    };
    const eosManager = createEosManager({ logger, cluster, idempotent: true });
    await eosManager.initProducerId();
    const sendMessages = createSendMessages({ logger, cluster, partitioner: () => 0, eosManager, retrier: createRetry(cluster.retry) });
    const send = (value: string): Promise<{ baseOffset: string }[]> => sendMessages({ acks: -1, timeout: 30000, topicMessages: [{ topic: TOPIC, messages: [{ value, partition: 0 }] }] });

    // "a" is written at 0 but its request fails; "b", sent while "a" waits for its retry, gets a's sequence back.
    let b: Promise<{ baseOffset: string }[]> | undefined;
    const bSent = new Promise<void>((resolve) => (onOldLeaderFailure = () => ((b = send('b')), resolve())));
    const a = send('a');
    await bSent;
    const [bAck] = await (b as Promise<{ baseOffset: string }[]>);
    const [aAck] = await a;

    expect(bAck?.baseOffset).toBe('0'); // "b" acknowledged at offset 0 ...
    expect(log.values[0]).toBe('a'); // ... which holds "a"
    expect(log.values).not.toContain('b'); // "b" was never written: an acknowledged write lost
    expect(aAck?.baseOffset).toBe('1'); // and "a", retried with a fresh sequence, is written twice
    expect(log.values).toEqual(['a', 'a']);
  });
});
