import { ClientSasl } from './sasl-client-authenticator';
import { KafkaError } from '../common/kafka-error';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { getLogger } from '../common/logging/logging';
import { ApiDefinition } from '../protocol/api-definition';
import { MetadataApi } from '../protocol/apis/metadata';
import { BrokerConnection, SendOptions } from './broker-connection';
import { ClientSecurity, PLAINTEXT_SECURITY } from '../security/client-security';
import { ClusterMetadata } from './cluster-metadata';
import { backoffMs } from './exponential-backoff';

export interface NetworkClientOptions {
  /** bootstrap.servers as `host:port` strings. */
  bootstrapServers: readonly string[];
  clientId?: string;
  /** request.timeout.ms (default 30000). */
  requestTimeoutMs?: number;
  /** max.in.flight.requests.per.connection (default 5). */
  maxInFlightRequestsPerConnection?: number;
  /** How many times a request failing with a network error or timeout is re-sent (default 3). */
  retries?: number;
  /** retry.backoff.ms (default 100), doubled per attempt up to retryBackoffMaxMs (default 1000). */
  retryBackoffMs?: number;
  retryBackoffMaxMs?: number;
  /** metadata.max.age.ms (default 300000): older metadata is refreshed before it is used. */
  metadataMaxAgeMs?: number;
  /**
   * Send ApiVersions on each new connection and use the highest common version (client tools, consumers).
   * Inter-broker users turn this off and pass explicit versions (Kafka derives them from
   * inter.broker.protocol.version instead of negotiating).
   */
  negotiateVersions?: boolean;
  /** Ask brokers to auto-create unknown topics named in Metadata requests (producers: true, as Java's). */
  allowAutoTopicCreation?: boolean;
  /** security.protocol and its TLS material, for every connection (default PLAINTEXT). */
  security?: ClientSecurity;
  clock?: Clock;
  /** security.protocol SASL_*: every connection authenticates first. */
  sasl?: ClientSasl;
}

/** Where a request goes: a broker id, any broker (least loaded), or the current controller. */
export type Target = number | 'any' | 'controller';

export interface RequestOptions extends SendOptions {
  /** Overrides NetworkClientOptions.retries for this request. */
  retries?: number;
}

function isNetworkFailure(e: unknown): boolean {
  return e instanceof KafkaError && (e.errorName === 'NETWORK_EXCEPTION' || e.errorName === 'REQUEST_TIMED_OUT');
}

/**
 * The client the tools and consumers use (Kafka's NetworkClient + ManualMetadataUpdater; brokers talk to each
 * other over single BrokerConnections): one BrokerConnection per node, metadata bootstrap from the configured
 * servers and refresh on age or demand, routing to a node id, any node or the controller, and retries with
 * exponential backoff on network failures.
 * Kafka error codes inside responses are returned, not thrown: what is retriable is the caller's business
 * (NOT_LEADER_OR_FOLLOWER means "refresh and retry" to a producer, "stop fetching" to a replica fetcher).
 */
export class NetworkClient {
  readonly metadata = new ClusterMetadata();
  private readonly connections = new Map<number, { conn: BrokerConnection; ready: Promise<BrokerConnection> }>();
  private readonly bootstrapAddresses: { host: string; port: number }[];
  private readonly logger = getLogger('org.apache.kafka.clients.NetworkClient');
  private readonly opts: Required<Omit<NetworkClientOptions, 'bootstrapServers' | 'sasl'>> & Pick<NetworkClientOptions, 'sasl'>;
  private refreshing: Promise<void> | undefined;
  private closed = false;
  private nextAny = 0;

  constructor(options: NetworkClientOptions) {
    this.bootstrapAddresses = options.bootstrapServers.map((s) => {
      const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(s.trim());
      if (!m) throw new Error(`Invalid url in bootstrap.servers: ${s}`);
      return { host: m[1] as string, port: Number(m[2]) };
    });
    if (this.bootstrapAddresses.length === 0) throw new Error('bootstrap.servers must list at least one host:port');
    this.opts = {
      clientId: 'kafka-ts',
      requestTimeoutMs: 30000,
      maxInFlightRequestsPerConnection: 5,
      retries: 3,
      retryBackoffMs: 100,
      retryBackoffMaxMs: 1000,
      metadataMaxAgeMs: 300000,
      negotiateVersions: true,
      allowAutoTopicCreation: false,
      security: PLAINTEXT_SECURITY,
      clock: SYSTEM_CLOCK,
      ...options,
    };
  }

  /** Fetches cluster metadata (brokers, controller, and `topics`: null = all, [] = brokers only). */
  refreshMetadata(topics: string[] | null = []): Promise<void> {
    if (this.refreshing !== undefined && topics !== null && topics.length === 0) return this.refreshing;
    const run = async (): Promise<void> => {
      // 'any' with no brokers known yet rotates over the bootstrap addresses, so a retry after a refused
      // connection asks the next one (Kafka's leastLoadedNode), never the same dead address again.
      const target: Target = 'any';
      const body = { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation: this.opts.allowAutoTopicCreation };
      const response = await this.request(target, MetadataApi, body);
      this.metadata.update(response, this.opts.clock.nowMs());
    };
    const p = run().finally(() => {
      if (this.refreshing === p) this.refreshing = undefined;
    });
    this.refreshing = p;
    return p;
  }

  /** Refreshes metadata if it was never fetched or is older than metadata.max.age.ms. */
  async ensureMetadata(topics: string[] = []): Promise<ClusterMetadata> {
    const stale = this.opts.clock.nowMs() - this.metadata.updatedAtMs > this.opts.metadataMaxAgeMs;
    const missing = topics.some((t) => !this.metadata.topics.has(t));
    if (this.metadata.updatedAtMs === 0 || stale || missing) await this.refreshMetadata(topics);
    return this.metadata;
  }

  /**
   * Sends one request and resolves with its decoded response. Network failures and timeouts are retried (new
   * connection, backoff); routing to 'controller' re-reads metadata before each retry.
   */
  async request<Req, Res>(target: Target, api: ApiDefinition<Req, Res>, body: Req, options: RequestOptions = {}): Promise<Res> {
    const retries = options.retries ?? this.opts.retries;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new KafkaError('NETWORK_EXCEPTION', 'The client is closed');
      let nodeId: number | undefined;
      try {
        nodeId = await this.resolve(target);
        const conn = await this.connectionTo(nodeId);
        return await conn.send(api, body, options);
      } catch (e) {
        if (!isNetworkFailure(e) || attempt >= retries) throw e;
        const wait = backoffMs(attempt, this.opts.retryBackoffMs, this.opts.retryBackoffMaxMs);
        this.logger.debug(`${api.name} to ${String(target)} failed (${(e as Error).message}); retrying in ${wait} ms (attempt ${attempt + 1} of ${retries})`);
        await this.opts.clock.sleep(wait);
        if (target === 'controller') await this.refreshMetadata().catch(() => undefined);
      }
    }
  }

  /** Node id for a target; negative ids are bootstrap addresses (as in Kafka's NetworkClient). */
  private async resolve(target: Target): Promise<number> {
    if (typeof target === 'number') return target;
    if (target === 'controller') {
      if (this.metadata.controllerId < 0) await this.refreshMetadata();
      if (this.metadata.controllerId < 0) throw new KafkaError('NETWORK_EXCEPTION', 'No controller is known');
      return this.metadata.controllerId;
    }
    const ids = [...this.metadata.brokers.keys()];
    if (ids.length === 0) return -1 - (this.nextAny++ % this.bootstrapAddresses.length);
    // Least loaded: fewest requests in flight, ties broken round-robin.
    const start = this.nextAny++;
    let best = ids[start % ids.length] as number;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[(start + i) % ids.length] as number;
      if ((this.connections.get(id)?.conn.inFlightCount ?? 0) < (this.connections.get(best)?.conn.inFlightCount ?? 0)) best = id;
    }
    return best;
  }

  /** The clock every time-out and back-off of this client runs on (its connections', consumers', producers'). */
  get clientId(): string {
    return this.opts.clientId;
  }

  get clock(): Clock {
    return this.opts.clock;
  }

  /** The open connection to `nodeId`, or a new one (after an ApiVersions exchange when negotiating). */
  connectionTo(nodeId: number): Promise<BrokerConnection> {
    const existing = this.connections.get(nodeId);
    if (existing !== undefined && !existing.conn.isClosed) return existing.ready;
    const address = nodeId < 0 ? this.bootstrapAddresses[(-nodeId - 1) % this.bootstrapAddresses.length] : this.metadata.broker(nodeId);
    if (address === undefined) return Promise.reject(new KafkaError('NETWORK_EXCEPTION', `Node ${nodeId} is not in the cluster metadata`));
    const conn = new BrokerConnection({
      host: address.host,
      port: address.port,
      nodeId,
      clientId: this.opts.clientId,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      maxInFlightRequests: this.opts.maxInFlightRequestsPerConnection,
      security: this.opts.security,
      clock: this.opts.clock,
      ...(this.opts.sasl === undefined ? {} : { sasl: this.opts.sasl }),
    });
    // Concurrent callers share one connection and wait for the same handshake.
    const ready = (async (): Promise<BrokerConnection> => {
      await conn.connect();
      if (this.opts.negotiateVersions) await conn.negotiate();
      return conn;
    })();
    ready.catch(() => conn.close());
    this.connections.set(nodeId, { conn, ready });
    return ready;
  }

  close(): void {
    this.closed = true;
    for (const c of this.connections.values()) c.conn.close();
    this.connections.clear();
  }
}
