import { ClientSasl } from '../client/sasl-client-authenticator';
import { ErrorCode } from '../common/error-codes';
import { tpKey } from '../common/topic-partition';
import { Clock } from '../common/time';
import { BrokerConnection } from '../client/broker-connection';
import { ClientSecurity } from '../security/client-security';
import { errorName } from '../common/error-codes';
import { Logger } from '../common/logging/logging';
import { ControlledShutdownApi } from '../protocol/apis/controlled-shutdown';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ControllerZk } from '../zk/controller-zk';
import { ZkClient } from '../zk/zk-client';

export interface ControlledShutdownOptions {
  brokerId: number;
  brokerEpoch: number;
  listenerName: string;
  maxRetries: number;
  retryBackoffMs: number;
  requestTimeoutMs: number;
  /** The inter-broker listener's security. */
  security?: ClientSecurity;
  /** The broker's SASL identity when the inter-broker listener is a SASL one. */
  sasl?: ClientSasl;
  clock: Clock;
}

/**
 * The broker side of controlled shutdown (KafkaServer.controlledShutdown): asks the current controller, found
 * through /controller, to move this broker's leaderships away, retrying per controlled.shutdown.max.retries, so
 * clients see only retriable errors while the broker stops. Returns whether it succeeded.
 */
export async function controlledShutdown(zk: ZkClient, o: ControlledShutdownOptions, log: Logger): Promise<boolean> {
  log.info('Starting controlled shutdown');
  const controllerZk = new ControllerZk(zk);
  const registry = new BrokerRegistryZk(zk);
  for (let attempt = 0; attempt < o.maxRetries; attempt++) {
    if (attempt > 0) {
      log.info('Retrying controlled shutdown after the previous attempt failed...');
      await o.clock.sleep(o.retryBackoffMs);
    }
    let connection: BrokerConnection | undefined;
    try {
      const controllerId = await controllerZk.getControllerId();
      if (controllerId === null) continue;
      const controller = (await registry.getAllBrokersAndEpochs()).get(controllerId)?.info;
      const endpoint = controller?.endpoints.find((e) => e.listenerName === o.listenerName) ?? controller?.endpoints[0];
      if (endpoint === undefined) continue;
      connection = new BrokerConnection({
        host: endpoint.host,
        port: endpoint.port,
        nodeId: controllerId,
        clientId: `broker-${o.brokerId}-controlled-shutdown`,
        requestTimeoutMs: o.requestTimeoutMs,
        ...(o.security === undefined ? {} : { security: o.security }),
        ...(o.sasl === undefined ? {} : { sasl: o.sasl }),
      });
      await connection.connect();
      await connection.negotiate();
      const response = await connection.send(ControlledShutdownApi, { brokerId: o.brokerId, brokerEpoch: o.brokerEpoch });
      if (response.errorCode === ErrorCode.NONE.code && response.remainingPartitions.length === 0) {
        log.info('Controlled shutdown succeeded');
        return true;
      }
      if (response.errorCode !== ErrorCode.NONE.code) log.warn(`Error from controller: ${errorName(response.errorCode)}`);
      if (response.remainingPartitions.length > 0) {
        log.info(`Remaining partitions to move: ${response.remainingPartitions.map((p) => tpKey(p.topicName, p.partitionIndex)).join(',')}`);
      }
    } catch (err) {
      log.warn('Error during controlled shutdown, possibly because leader movement took longer than the configured controller.socket.timeout.ms and/or request.timeout.ms', err);
    } finally {
      connection?.close();
    }
  }
  log.warn('Proceeding to do an unclean shutdown as all the controlled shutdown attempts failed');
  return false;
}
