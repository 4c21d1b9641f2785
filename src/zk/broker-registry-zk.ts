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

  /**
   * KafkaZkClient.updateBrokerInfo: rewrites this broker's registration in place (its listeners changed at run
   * time); the node, and so the broker epoch, stays. The controller's BrokerModifications watch sees the change.
   */
  async updateBrokerInfo(info: BrokerInfo): Promise<void> {
    const path = ZkPaths.brokerId(info.id);
    await this.zk.setData(path, BrokerInfoZNode.encode(info), -1);
    const endPoints = info.endpoints.map((e) => `EndPoint(${e.host},${e.port},ListenerName(${e.listenerName}),${info.listenerSecurityProtocolMap[e.listenerName] ?? e.listenerName})`);
    log.info(`Updated broker ${info.id} at path ${path} with addresses: ArraySeq(${endPoints.join(', ')})`);
  }

  /** KafkaZkClient.getBroker: one broker's registration, null when it is not registered (or unreadable). */
  async getBroker(id: number): Promise<BrokerInfo | null> {
    const path = ZkPaths.brokerId(id);
    const node = await this.zk.getData(path);
    if (node === null) return null;
    try {
      return BrokerInfoZNode.decode(id, path, node.data);
    } catch (err) {
      log.warn(`Ignoring broker ${id}: failed to parse ZooKeeper registration at ${path} (${err instanceof Error ? err.message : String(err)})`);
      return null;
    }
  }

  async deregisterBroker(id: number): Promise<void> {
    try {
      await this.zk.delete(ZkPaths.brokerId(id));
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
    }
  }

  /**
   * The ids of the live brokers, sorted: those with a readable registration (what the controller counts as
   * brokers, and so what replica assignment may use).
   */
  async getBrokerIds(): Promise<number[]> {
    return [...(await this.getAllBrokersAndEpochs()).keys()];
  }

  /**
   * The children of /brokers/ids that are broker ids, sorted. A child that is not a broker id (Kafka's
   * getSortedBrokerList would fail on it with a NumberFormatException) is skipped and logged.
   */
  private async registeredIds(): Promise<number[]> {
    const ids: number[] = [];
    for (const child of (await this.zk.getChildren(ZkPaths.brokerIds)) ?? []) {
      const id = Number(child);
      if (/^\d{1,10}$/.test(child) && id <= 0x7fffffff) ids.push(id);
      else log.warn(`Ignoring ${ZkPaths.brokerIds}/${child}: not a broker id`);
    }
    return ids.sort((a, b) => a - b);
  }

  /**
   * Live brokers with their epochs, by id in ascending order. A broker whose node vanishes while reading is
   * skipped; so is one whose registration is unreadable (logged with its path): Kafka fails the whole read on
   * it (KafkaException "Failed to parse ZooKeeper registration for broker"), which would leave the controller
   * unable to handle any broker; here the others are handled and that one is not a live broker.
   */
  async getAllBrokersAndEpochs(): Promise<Map<number, { info: BrokerInfo; epoch: number }>> {
    const result = new Map<number, { info: BrokerInfo; epoch: number }>();
    for (const id of await this.registeredIds()) {
      const path = ZkPaths.brokerId(id);
      const node = await this.zk.getData(path);
      if (node === null) continue;
      try {
        result.set(id, { info: BrokerInfoZNode.decode(id, path, node.data), epoch: node.stat.czxid });
      } catch (err) {
        log.warn(`Ignoring broker ${id}: failed to parse ZooKeeper registration at ${path} (${err instanceof Error ? err.message : String(err)})`);
      }
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
