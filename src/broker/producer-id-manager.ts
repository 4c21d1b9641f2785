import { getLogger } from '../common/logging/logging';
import { SerialQueue } from '../common/serial-queue';
import { ProducerIdBlock, ProducerIdBlockZk, producerIdBlockToString } from '../zk/producer-id-block-zk';

/** Hands out producer ids (Kafka's ProducerIdManager; what InitProducerId and the transaction coordinator ask). */
export interface ProducerIdGenerator {
  generateProducerId(): Promise<number>;
}

/**
 * Kafka 2.8's ZooKeeper-mode ProducerIdManager: ids come from a block of 1,000 this broker claimed in
 * `/latest_producer_id_block`; the next block is claimed when this one is used up. Claims are serialised, so
 * concurrent InitProducerId requests never claim two blocks for one.
 */
export class ProducerIdManager implements ProducerIdGenerator {
  private readonly logger = getLogger('kafka.coordinator.transaction.ProducerIdManager');
  private readonly prefix: string;
  private readonly queue = new SerialQueue();
  private block: ProducerIdBlock | undefined;
  private next = 0;

  constructor(
    private readonly brokerId: number,
    private readonly zk: ProducerIdBlockZk,
  ) {
    this.prefix = `[ProducerId Manager ${brokerId}]: `;
  }

  /** Claims the first block at start-up, as Kafka does when the transaction coordinator starts. */
  async startup(): Promise<void> {
    await this.queue.run(() => this.claim());
  }

  generateProducerId(): Promise<number> {
    return this.queue.run(async () => {
      if (this.block === undefined || this.next > this.block.blockEndProducerId) await this.claim();
      return this.next++;
    });
  }

  private async claim(): Promise<void> {
    const { block, version } = await this.zk.claimNextBlock(this.brokerId);
    this.block = block;
    this.next = block.blockStartProducerId;
    this.logger.info(`${this.prefix}Acquired new producerId block ${producerIdBlockToString(block)} by writing to Zk with path version ${version}`);
  }
}
