import { getLogger } from '../common/logging/logging';
import { formatStat, ZkClient, ZkStat } from './zk-client';
import { ZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { BrokerInfo, BrokerInfoZNode } from './znodes/broker-info';

const log = getLogger('kafka.zk.KafkaZkClient');

/** The broker id is already held by another live session: Kafka aborts start-up on this. */
export class BrokerIdInUseError extends Error {}

/**
 * `/brokers/ids`: registration of this broker (an ephemeral node whose czxid is the broker epoch) and the
 * reading of live brokers. Kafka 2.2+ registers with multi(create, setData); the binding has no multi, so this
 * creates the node with its data in one create, as Kafka 0.9-2.1 did.
 */
export class BrokerRegistryZk {
  constructor(private readonly zk: ZkClient) {}

  /** Registers and returns the broker epoch (the node's czxid). */
  async registerBroker(info: BrokerInfo): Promise<number> {
    const path = ZkPaths.brokerId(info.id);
    log.info(`Creating ${path} (is it secure? false)`);
    const data = BrokerInfoZNode.encode(info);
    let stat: ZkStat;
    try {
      await this.zk.create(path, data, 'EPHEMERAL');
      stat = await this.ownStat(path);
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NODEEXISTS')) throw err;
      stat = await this.ownStat(path);
    }
    log.info(`Stat of the created znode at ${path} is: ${formatStat(stat)}`);
    const addresses = BrokerInfoZNode.decode(info.id, path, data).endpoints.map((e) => `${e.listenerName}://${e.host}:${e.port}`);
    log.info(`Registered broker ${info.id} at path ${path} with addresses: ${addresses.join(',')}, czxid (broker epoch): ${stat.czxid}`);
    return stat.czxid;
  }

  /** The stat of our own ephemeral node; a node owned by another session means the id is taken. */
  private async ownStat(path: string): Promise<ZkStat> {
    const stat = await this.zk.exists(path);
    if (stat === null) throw new ZkError(-101, path);
    if (stat.ephemeralOwner !== this.zk.sessionId) {
      throw new BrokerIdInUseError(
        `Error while creating ephemeral at ${path}, node already exists and owner '${stat.ephemeralOwner}' does not match current session '${this.zk.sessionId}'`,
      );
    }
    return stat;
  }

  async deregisterBroker(id: number): Promise<void> {
    try {
      await this.zk.delete(ZkPaths.brokerId(id));
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
    }
  }

  async getBrokerIds(): Promise<number[]> {
    return ((await this.zk.getChildren(ZkPaths.brokerIds)) ?? []).map(Number).sort((a, b) => a - b);
  }

  /** Live brokers with their epochs; a broker whose node vanishes while reading is skipped. */
  async getAllBrokersAndEpochs(): Promise<Map<number, { info: BrokerInfo; epoch: number }>> {
    const result = new Map<number, { info: BrokerInfo; epoch: number }>();
    for (const id of await this.getBrokerIds()) {
      const node = await this.zk.getData(ZkPaths.brokerId(id));
      if (node === null) continue;
      result.set(id, { info: BrokerInfoZNode.decode(id, ZkPaths.brokerId(id), node.data), epoch: node.stat.czxid });
    }
    return result;
  }

  /**
   * Kafka's broker id generation: bump /brokers/seqid's dataVersion and add reserved.broker.max.id, so the
   * first generated id is 1001.
   */
  async generateBrokerId(reservedBrokerMaxId: number): Promise<number> {
    await this.zk.ensurePath(ZkPaths.brokerSeqId);
    const stat = await this.zk.setData(ZkPaths.brokerSeqId, null, -1);
    return stat.version + reservedBrokerMaxId;
  }
}
