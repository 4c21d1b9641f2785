import { ZkClient } from './zk-client';
import { isZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { ProducerIdBlockZNode } from './znodes/cluster-znodes';

/** Kafka's ProducerIdManager.PidBlockSize: ids a broker takes from ZooKeeper at a time. */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

export interface ProducerIdBlock {
  readonly brokerId: number;
  readonly blockStartProducerId: number;
  readonly blockEndProducerId: number;
}

export function producerIdBlockToString(b: ProducerIdBlock): string {
  return `ProducerIdBlock(brokerId=${b.brokerId},blockStartProducerId=${b.blockStartProducerId},blockEndProducerId=${b.blockEndProducerId})`;
}

/**
 * `/latest_producer_id_block` (Kafka 2.8's ZooKeeper-mode ProducerIdManager.getNewProducerIdBlock): read the last
 * block handed out and its znode version, write the next one with a conditional set on that version, and start
 * over when another broker won the race. Two brokers therefore never hold the same block.
 */
export class ProducerIdBlockZk {
  constructor(private readonly zk: ZkClient) {}

  /** Claims the next block for `brokerId`; resolves with it and the znode version written. */
  async claimNextBlock(brokerId: number, blockSize = PRODUCER_ID_BLOCK_SIZE): Promise<{ block: ProducerIdBlock; version: number }> {
    for (;;) {
      const current = await this.zk.getData(ZkPaths.latestProducerIdBlock);
      if (current === null) {
        // The path is one of the persistent paths every broker creates; it can only be missing before that.
        await this.zk.ensurePath(ZkPaths.latestProducerIdBlock);
        continue;
      }
      let start = 0;
      // The persistent path is created without data, which the ZooKeeper binding stores as the text "null".
      if (current.data !== null && current.data.length > 0 && current.data.toString('utf8') !== 'null') {
        const last = ProducerIdBlockZNode.decode(ZkPaths.latestProducerIdBlock, current.data);
        if (last.blockEnd > Number.MAX_SAFE_INTEGER - blockSize) throw new Error('Have exhausted all producerIds.');
        start = last.blockEnd + 1;
      }
      const block = { brokerId, blockStartProducerId: start, blockEndProducerId: start + blockSize - 1 };
      try {
        const stat = await this.zk.setData(ZkPaths.latestProducerIdBlock, ProducerIdBlockZNode.encode(brokerId, start, block.blockEndProducerId), current.stat.version);
        return { block, version: stat.version };
      } catch (e) {
        if (!isZkError(e, 'BADVERSION')) throw e;
      }
    }
  }
}
