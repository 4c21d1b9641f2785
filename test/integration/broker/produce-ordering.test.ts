import { NetworkClient } from '../../../src/client/network-client';
import { ProduceApi, ProduceRequest } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records';
import { BrokerProcess } from '../../helpers/broker-process';
import { startZkStandalone, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { waitUntil } from '../../helpers/wait-until';

/**
 * Pipelined Produce requests on one connection (a producer with max.in.flight.requests.per.connection > 1) must
 * land in each partition in the order the requests were sent, as with Kafka, which handles one request of a
 * connection at a time. The broker here starts handling a request while an earlier one still writes.
 */
describe('produce requests pipelined on one connection', () => {
  let zk: ZkEnsemble;
  let broker: BrokerProcess;

  beforeAll(async () => {
    zk = await startZkStandalone();
    broker = await BrokerProcess.start({ brokerId: 0, zkConnect: zk.connectStringWithChroot(uniqueChroot('order')), props: { 'num.partitions': '2' } });
  }, 90000);

  afterAll(async () => {
    await broker?.child.stop();
    await zk?.close();
  });

  function batch(value: string, size = 16): Buffer {
    return new RecordBatchBuilder().append({ key: null, value: Buffer.from(value.padEnd(size, '.')), timestamp: Date.now() }).build();
  }

  function produce(partitionData: { index: number; records: Buffer }[]): ProduceRequest {
    return { transactionalId: null, acks: 1, timeoutMs: 10000, topicData: [{ name: 'ordered', partitionData }] };
  }

  it('appends every partition of a request before a later request appends to any of them', async () => {
    const client = new NetworkClient({ bootstrapServers: [`127.0.0.1:${broker.port}`], allowAutoTopicCreation: true });
    try {
      await waitUntil(async () => {
        const md = await client.refreshMetadata(['ordered']).then(() => client.metadata.topics.get('ordered'));
        return md?.errorCode === 0 && md.partitions.length === 2 && client.metadata.leaderFor('ordered', 1) === 0;
      }, { timeoutMs: 30000, message: 'topic ordered with two partitions led by broker 0' });
      const conn = await client.connectionTo(0);
      for (let round = 0; round < 20; round++) {
        // The first request's large partition-0 write is still in progress when the second request arrives.
        const first = conn.send(ProduceApi, produce([{ index: 0, records: batch(`a0-${round}`, 1 << 20) }, { index: 1, records: batch(`a1-${round}`) }]));
        const second = conn.send(ProduceApi, produce([{ index: 1, records: batch(`b1-${round}`) }]));
        const [r1, r2] = await Promise.all([first, second]);
        const p1 = (r: typeof r1): number => r.responses[0]?.partitionResponses.find((p) => p.index === 1)?.baseOffset ?? -1;
        expect(p1(r1)).toBe(2 * round);
        expect(p1(r2)).toBe(2 * round + 1);
      }
    } finally {
      client.close();
    }
  }, 60000);
});
