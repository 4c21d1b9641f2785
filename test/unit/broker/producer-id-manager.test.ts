import { ProducerIdManager } from '../../../src/broker/producer-id-manager';
import { ProducerIdBlockZk } from '../../../src/zk/producer-id-block-zk';
import { FakeZk } from '../../helpers/fake-zk';

describe('ProducerIdManager', () => {
  it('claims blocks of 1,000 through /latest_producer_id_block, never the same block twice', async () => {
    const zk = new FakeZk();
    await zk.client.create('/latest_producer_id_block', null);
    const a = new ProducerIdManager(0, new ProducerIdBlockZk(zk.client));
    const b = new ProducerIdManager(1, new ProducerIdBlockZk(zk.client));
    // Concurrent claims: the conditional write makes one of them retry on the next block.
    const first = await Promise.all([a.generateProducerId(), b.generateProducerId(), a.generateProducerId()]);
    expect(first.slice().sort((x, y) => x - y)).toEqual([0, 1, 1000]);
    expect(first[0]! + 1).toBe(first[2]);
    const stored = JSON.parse(String((await zk.client.getData('/latest_producer_id_block'))?.data));
    expect(stored).toEqual({ version: 1, broker: expect.any(Number), block_start: '1000', block_end: '1999' });
    const ids = new Set<number>();
    for (let i = 0; i < 2500; i++) ids.add(await a.generateProducerId());
    expect(ids.size).toBe(2500);
    const b2 = await b.generateProducerId();
    expect(ids.has(b2)).toBe(false);
    expect(JSON.parse(String((await zk.client.getData('/latest_producer_id_block'))?.data)).block_end).toBe('3999');
  });
});
