import { ErrorCode } from '../common/error-codes';
import { SYSTEM_CLOCK } from '../common/time';
import { getLogger, Logger } from '../common/logging/logging';
import { BrokerConnection } from '../client/broker-connection';
import { ClientSecurity, PLAINTEXT_SECURITY } from '../security/client-security';
import { ClientSasl } from '../client/sasl-client-authenticator';
import { ApiDefinition } from '../protocol/api-definition';
import { LeaderAndIsrApi, LeaderAndIsrRequest, LeaderAndIsrResponse } from '../protocol/apis/leader-and-isr';
import { StopReplicaApi, StopReplicaRequest, StopReplicaResponse } from '../protocol/apis/stop-replica';
import { UpdateMetadataApi, UpdateMetadataRequest, UpdateMetadataResponse } from '../protocol/apis/update-metadata';
import { errorName } from '../common/error-codes';
import { BrokerInfo } from '../zk/znodes/broker-info';
import { ControllerChannel } from './controller-channel';

interface QueueItem {
  api: ApiDefinition;
  request: unknown;
  onResponse?: (response: never) => void;
}

const RETRY_BACKOFF_MS = 100;

/**
 * One ordered send queue per broker (Kafka's ControllerChannelManager with a RequestSendThread per broker):
 * requests to a broker go one at a time, in order, and a failed send is retried after 100 ms on a new connection
 * until it succeeds or the broker is removed. The controller reaches its own broker the same way, over the wire.
 */
export class ControllerChannelManager implements ControllerChannel {
  private readonly brokers = new Map<number, BrokerSender>();
  private readonly log: Logger;

  constructor(
    private readonly controllerId: number,
    private readonly epoch: () => number,
    readonly listenerName: string,
    private readonly requestTimeoutMs: number,
    /** The listener's security (control.plane.listener.name's, else the inter-broker listener's). */
    private readonly security: ClientSecurity = PLAINTEXT_SECURITY,
    /** The broker's SASL identity when the inter-broker listener is a SASL one. */
    private readonly sasl: ClientSasl | undefined = undefined,
  ) {
    this.log = getLogger('kafka.controller.ControllerChannelManager', `[Channel manager on controller ${controllerId}]: `);
  }

  addBroker(broker: BrokerInfo): void {
    if (this.brokers.has(broker.id)) return;
    const endpoint = broker.endpoints.find((e) => e.listenerName === this.listenerName) ?? broker.endpoints[0];
    if (endpoint === undefined) return;
    this.log.debug(`Controller ${this.controllerId} trying to connect to broker ${broker.id}`);
    const sender = new BrokerSender(this.controllerId, broker, endpoint.host, endpoint.port, this.epoch, this.requestTimeoutMs, this.security, this.sasl);
    this.brokers.set(broker.id, sender);
    sender.start();
  }

  removeBroker(brokerId: number): void {
    const sender = this.brokers.get(brokerId);
    this.brokers.delete(brokerId);
    sender?.stop();
  }

  private enqueue(brokerId: number, item: QueueItem): void {
    const sender = this.brokers.get(brokerId);
    if (sender === undefined) {
      this.log.warn(`Not sending request ${item.api.name} to broker ${brokerId}, since it is offline.`);
      return;
    }
    sender.enqueue(item);
  }

  sendLeaderAndIsr(brokerId: number, request: LeaderAndIsrRequest, onResponse?: (response: LeaderAndIsrResponse) => void): void {
    this.enqueue(brokerId, { api: LeaderAndIsrApi, request, onResponse: onResponse as QueueItem['onResponse'] });
  }

  sendUpdateMetadata(brokerId: number, request: UpdateMetadataRequest, onResponse?: (response: UpdateMetadataResponse) => void): void {
    this.enqueue(brokerId, { api: UpdateMetadataApi, request, onResponse: onResponse as QueueItem['onResponse'] });
  }

  sendStopReplica(brokerId: number, request: StopReplicaRequest, onResponse?: (response: StopReplicaResponse) => void): void {
    this.enqueue(brokerId, { api: StopReplicaApi, request, onResponse: onResponse as QueueItem['onResponse'] });
  }

  async shutdown(): Promise<void> {
    for (const sender of this.brokers.values()) sender.stop();
    this.brokers.clear();
  }
}

/** Kafka's RequestSendThread for one broker. */
class BrokerSender {
  private readonly queue: QueueItem[] = [];
  private connection: BrokerConnection | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly log: Logger;
  private readonly stateChangeLog: Logger;

  constructor(
    private readonly controllerId: number,
    private readonly broker: BrokerInfo,
    private readonly host: string,
    private readonly port: number,
    private readonly epoch: () => number,
    private readonly requestTimeoutMs: number,
    private readonly security: ClientSecurity,
    private readonly sasl: ClientSasl | undefined = undefined,
  ) {
    this.log = getLogger('kafka.controller.RequestSendThread', `[RequestSendThread controllerId=${controllerId}] `);
    this.stateChangeLog = getLogger('state.change.logger');
  }

  private get node(): string {
    return `${this.host}:${this.port} (id: ${this.broker.id} rack: ${this.broker.rack ?? 'null'})`;
  }

  start(): void {
    this.log.info('Starting');
    void this.run();
  }

  enqueue(item: QueueItem): void {
    this.queue.push(item);
    this.wake?.();
  }

  stop(): void {
    if (this.stopped) return;
    this.log.info('Shutting down');
    this.stopped = true;
    this.wake?.();
    this.connection?.close();
    this.log.info('Stopped');
    this.log.info('Shutdown completed');
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const item = this.queue[0];
      if (item === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      try {
        const response = await this.send(item);
        this.queue.shift();
        this.stateChangeLog
          .withPrefix(`[Controller id=${this.controllerId} epoch=${this.epoch()}] `)
          .trace(`Received response ${JSON.stringify(response)} for request ${item.api.name} with correlation id 0 sent to broker ${this.node}`);
        const errorCode = (response as { errorCode?: number }).errorCode ?? 0;
        if (errorCode !== ErrorCode.NONE.code) this.stateChangeLog.warn(`Received error ${errorName(errorCode)} in ${item.api.name} response from broker ${this.broker.id}`);
        try {
          item.onResponse?.(response as never);
        } catch (err) {
          this.log.error('Error handling a response', err);
        }
      } catch (err) {
        if (this.stopped) return;
        this.log.warn(`Controller ${this.controllerId} epoch ${this.epoch()} fails to send request ${item.api.name} to broker ${this.node}. Reconnecting to broker.`, err);
        this.connection?.close();
        this.connection = undefined;
        await SYSTEM_CLOCK.sleep(RETRY_BACKOFF_MS);
      }
    }
  }

  private async send(item: QueueItem): Promise<unknown> {
    if (this.connection === undefined || this.connection.isClosed) {
      const connection = new BrokerConnection({
        host: this.host,
        port: this.port,
        nodeId: this.broker.id,
        clientId: `controller-${this.controllerId}`,
        requestTimeoutMs: this.requestTimeoutMs,
        security: this.security,
        ...(this.sasl === undefined ? {} : { sasl: this.sasl }),
      });
      this.connection = connection;
      await connection.connect();
      await connection.negotiate();
      this.log.info(`Controller ${this.controllerId} connected to ${this.node} for sending state change requests`);
    }
    return this.connection.send(item.api, item.request);
  }
}
