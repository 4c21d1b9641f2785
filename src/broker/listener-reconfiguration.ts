import { EndPoint } from '../common/config/end-point';
import { KafkaConfig } from '../common/config/kafka-config';
import { listenerChanges, listenerRegistrationsAltered } from '../common/config/dynamic-listener-config';
import { getLogger } from '../common/logging/logging';
import { SerialQueue } from '../common/serial-queue';
import { ListenerSasl } from '../security/sasl-server-config';
import { SaslServerFactory } from '../security/sasl-server';
import { ServerTlsOptions } from '../security/ssl-factory';
import { SocketServer } from './network/socket-server';
import { serverTlsFor } from './network/socket-server-config';

type SaslListener = { listener: ListenerSasl; createServer: SaslServerFactory };

export interface ListenerReconfigurationDeps {
  /** A SASL listener's mechanisms and servers from a config (throws when they do not resolve). */
  saslListener(config: KafkaConfig, listenerName: string): SaslListener;
  /** Rewrites `/brokers/ids/<id>` with the current advertised listeners (KafkaZkClient.updateBrokerInfo). */
  reregister(): Promise<void>;
}

/**
 * Kafka's DynamicListenerConfig.reconfigure for one broker: on a dynamic change of `listeners`,
 * `advertised.listeners` or `listener.security.protocol.map`, the listeners removed stop accepting (their
 * connections close), the listeners added start accepting with their `listener.name.<l>.*` TLS and SASL
 * settings, and when the advertised endpoints changed the broker's registration is rewritten in place, which
 * the controller sees as a BrokerModifications. Owned by KafkaServer; changes run one after another on its own
 * queue, in the order the config changed, so a quick add-then-remove cannot interleave. Never throws to the
 * config listener: a failure is logged, as Kafka logs a failed reconfiguration.
 */
export class ListenerReconfiguration {
  private readonly queue = new SerialQueue();
  private readonly log = getLogger('kafka.server.DynamicListenerConfig');

  constructor(
    private readonly socketServer: SocketServer,
    private readonly deps: ListenerReconfigurationDeps,
  ) {}

  /**
   * The reconfigurables' validation for listeners to add: each TLS listener's key material must make a
   * context, each SASL listener's mechanisms and JAAS entries must resolve (else the change is refused).
   */
  validate(added: readonly EndPoint[], next: KafkaConfig): void {
    for (const l of added) {
      if (usesTls(l.securityProtocol)) this.socketServer.validateListenerTls(l.listenerName, serverTlsFor(next, l.listenerName));
      if (l.securityProtocol.startsWith('SASL_')) this.deps.saslListener(next, l.listenerName);
    }
  }

  /** The config changed from `old` to `next`: applies the listener part of it (queued, asynchronous). */
  apply(old: KafkaConfig, next: KafkaConfig): void {
    const { added, removed } = listenerChanges(old, next);
    const reregister = listenerRegistrationsAltered(old, next);
    if (added.length === 0 && removed.length === 0 && !reregister) return;
    this.queue
      .run(async () => {
        if (removed.length > 0) await this.socketServer.removeListeners(removed);
        if (added.length > 0) {
          const tls = new Map<string, ServerTlsOptions>();
          const sasl = new Map<string, SaslListener>();
          for (const l of added) {
            if (usesTls(l.securityProtocol)) tls.set(l.listenerName, serverTlsFor(next, l.listenerName));
            if (l.securityProtocol.startsWith('SASL_')) sasl.set(l.listenerName, this.deps.saslListener(next, l.listenerName));
          }
          await this.socketServer.addListeners(added, { tls, sasl });
        }
        this.socketServer.updateAdvertisedListeners(next.advertisedListeners);
        if (reregister) await this.deps.reregister();
      })
      .catch((err: unknown) => this.log.error('Failed to reconfigure the listeners', err));
  }
}

function usesTls(securityProtocol: string): boolean {
  return securityProtocol === 'SSL' || securityProtocol === 'SASL_SSL';
}
