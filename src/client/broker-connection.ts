import { ErrorCode } from '../common/error-codes';
import { Clock, SYSTEM_CLOCK, TimerHandle } from '../common/time';
import { Socket, connect, isIP } from 'node:net';
import { SecureContext, connect as tlsConnect, createSecureContext } from 'node:tls';
import { KafkaError } from '../common/kafka-error';
import { getLogger } from '../common/logging/logging';
import { ApiDefinition } from '../protocol/api-definition';
import { ApiVersionsApi, ApiVersionsResponse } from '../protocol/apis/api-versions';
import { FrameDecoder } from '../protocol/framing';
import { writeRequestHeader } from '../protocol/headers';
import { ByteReader } from '../protocol/primitives/byte-reader';
import { ByteWriter } from '../protocol/primitives/byte-writer';
import { ClientSecurity, PLAINTEXT_SECURITY } from '../security/client-security';
import { ClientTlsOptions, secureContextError } from '../security/ssl-factory';
import { ClientSasl, authenticateSasl } from './sasl-client-authenticator';

export interface BrokerConnectionOptions {
  host: string;
  port: number;
  /** The node id this connection talks to (-1 for a bootstrap address), for log lines. */
  nodeId?: number;
  clientId?: string;
  /** request.timeout.ms: a request without a response by then fails and the connection is closed (as Kafka's NetworkClient does). */
  requestTimeoutMs?: number;
  /** socket.connection.setup.timeout.ms. */
  connectTimeoutMs?: number;
  /** max.in.flight.requests.per.connection: further requests queue until a response frees a slot. */
  maxInFlightRequests?: number;
  /** Largest response frame accepted (a bigger size prefix is a protocol error and closes the connection). */
  maxResponseBytes?: number;
  /** security.protocol and its material (default PLAINTEXT): the one place a connection is secured. */
  security?: ClientSecurity;
  clock?: Clock;
  /** SASL_* security protocols: authenticate right after connecting, before any other request. */
  sasl?: ClientSasl;
}

/** One secure context per TLS configuration, shared by every connection made with it. */
const CONTEXTS = new WeakMap<ClientTlsOptions, SecureContext>();

function clientContext(tls: ClientTlsOptions): SecureContext {
  let context = CONTEXTS.get(tls);
  if (context === undefined) {
    try {
      context = createSecureContext(tls.context);
    } catch (e) {
      throw secureContextError(e, 'the client', tls.context);
    }
    CONTEXTS.set(tls, context);
  }
  return context;
}

export interface SendOptions {
  /** API version to use; default: the highest both sides support (after negotiate()), else the API's max. */
  version?: number;
  /** false for requests that get no response (Produce acks=0): resolves once written. */
  expectResponse?: boolean;
  /** Overrides requestTimeoutMs for this request (e.g. a long-polling Fetch). */
  timeoutMs?: number;
  /** The SASL exchange itself: written once the socket is open, without waiting for authentication. */
  duringAuthentication?: boolean;
}

interface InFlight {
  api: ApiDefinition;
  version: number;
  resolve: (body: unknown) => void;
  reject: (e: Error) => void;
  timer: TimerHandle;
}

interface Queued {
  start: () => void;
  reject: (e: Error) => void;
}

/**
 * One TCP connection to one broker (the piece of Kafka's NetworkClient/Selector that owns a KafkaChannel).
 * Correlation ids are per connection, starting at 0 and wrapping at 2^31-1; responses are matched by id. At most
 * `maxInFlightRequests` are outstanding; others wait in FIFO order. Each request has a timeout; a timeout, a
 * malformed response or a socket error fails every outstanding request and closes the connection, after which the
 * owner opens a new one. Record batches travel as Buffers in both directions (never parsed here).
 */
export class BrokerConnection {
  private socket: Socket | undefined;
  private connecting: Promise<void> | undefined;
  private readonly inFlight = new Map<number, InFlight>();
  private readonly queue: Queued[] = [];
  private nextCorrelationId = 0;
  /** Requests started and not yet answered (or written, when no response is expected). */
  private active = 0;
  private closedError: Error | undefined;
  private brokerVersions: Map<number, { min: number; max: number }> | undefined;
  private readonly logger;
  readonly options: Required<Omit<BrokerConnectionOptions, 'sasl'>> & Pick<BrokerConnectionOptions, 'sasl'>;

  constructor(options: BrokerConnectionOptions) {
    this.options = {
      nodeId: -1,
      clientId: 'kafka-ts',
      requestTimeoutMs: 30000,
      connectTimeoutMs: 10000,
      maxInFlightRequests: 5,
      maxResponseBytes: 1 << 30,
      security: PLAINTEXT_SECURITY,
      clock: SYSTEM_CLOCK,
      ...options,
    };
    this.logger = getLogger('org.apache.kafka.clients.NetworkClient', `[Connection to node ${this.options.nodeId} (${options.host}:${options.port})] `);
  }

  get isConnected(): boolean {
    return this.socket !== undefined && this.closedError === undefined;
  }

  get isClosed(): boolean {
    return this.closedError !== undefined;
  }

  get inFlightCount(): number {
    return this.active;
  }

  private authenticated: Promise<void> | undefined;
  /** KIP-368: when the session the broker granted must be renewed (hiResClockMs; undefined: it never expires). */
  private reauthenticateAtMs: number | undefined;
  /** A re-authentication under way: requests wait for it. */
  private reauthenticating: Promise<void> | undefined;
  /** Resolved when the last in-flight response has arrived (a re-authentication waits for them). */
  private drainedWaiters: (() => void)[] = [];

  /** Opens the socket and, on a SASL connection, authenticates (idempotent). */
  connect(): Promise<void> {
    const sasl = this.options.sasl;
    if (sasl === undefined) return this.connectTransport();
    this.authenticated ??= this.connectTransport().then(() => this.authenticate(sasl));
    return this.authenticated;
  }

  private async authenticate(sasl: ClientSasl): Promise<void> {
    try {
      this.scheduleReauthentication(await authenticateSasl(this, sasl));
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      this.fail(err);
      throw err;
    }
  }

  /**
   * Kafka's SaslClientAuthenticator.ReauthInfo: with a session lifetime from the broker, re-authenticate after
   * 85 % of it plus up to 10 % jitter (so that many connections do not all renew at once), leaving the rest for
   * network latency and clock drift. The broker closes a connection whose session has ended.
   */
  private scheduleReauthentication(sessionLifetimeMs: number): void {
    this.reauthenticateAtMs = sessionLifetimeMs > 0 ? this.options.clock.hiResClockMs() + sessionLifetimeMs * (0.85 + 0.1 * Math.random()) : undefined;
  }

  /**
   * Before a request is written: once the session is due, SaslHandshake and SaslAuthenticate again on this
   * connection (KIP-368). Kafka's client starts it only between requests; here new requests wait and the
   * exchange starts when the responses in flight have arrived, so no request is answered mid-exchange.
   */
  private beforeRequest(): Promise<void> | undefined {
    if (this.reauthenticating !== undefined) return this.reauthenticating;
    const sasl = this.options.sasl;
    const due = this.reauthenticateAtMs;
    if (sasl === undefined || due === undefined || this.options.clock.hiResClockMs() < due) return undefined;
    this.reauthenticateAtMs = undefined;
    this.logger.debug(`Initiating re-authentication of the SASL session to node ${this.options.nodeId}`);
    this.reauthenticating = this.drained()
      .then(() => this.authenticate(sasl))
      .finally(() => {
        this.reauthenticating = undefined;
      });
    return this.reauthenticating;
  }

  private drained(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainedWaiters.push(resolve));
  }

  private notifyIfDrained(): void {
    if (this.inFlight.size > 0 || this.drainedWaiters.length === 0) return;
    for (const w of this.drainedWaiters.splice(0)) w();
  }

  /** Opens the socket (idempotent). */
  private connectTransport(): Promise<void> {
    if (this.closedError !== undefined) return Promise.reject(this.closedError);
    if (this.socket !== undefined) return Promise.resolve();
    if (this.connecting !== undefined) return this.connecting;
    this.connecting = new Promise<void>((resolve, reject) => {
      let socket: Socket;
      try {
        socket = this.openSocket();
      } catch (e) {
        const err = new KafkaError('NETWORK_EXCEPTION', `Connection to ${this.options.host}:${this.options.port} failed: ${(e as Error).message}`, { cause: e });
        this.fail(err);
        reject(err);
        return;
      }
      socket.setNoDelay(true);
      const timer = this.options.clock.setTimer(() => {
        socket.destroy();
        reject(new KafkaError('NETWORK_EXCEPTION', `Connection to ${this.options.host}:${this.options.port} timed out after ${this.options.connectTimeoutMs} ms`));
      }, this.options.connectTimeoutMs);
      // A TLS socket is usable once its handshake (and the server's certificate check) succeeded.
      socket.once(this.options.security.tls === undefined ? 'connect' : 'secureConnect', () => {
        timer.cancel();
        this.attach(socket);
        resolve();
      });
      socket.once('error', (e) => {
        timer.cancel();
        const err = new KafkaError('NETWORK_EXCEPTION', `Connection to ${this.options.host}:${this.options.port} failed: ${e.message}`, { cause: e });
        this.fail(err);
        reject(err);
      });
    });
    return this.connecting;
  }

  /**
   * PLAINTEXT: a TCP socket. SSL: Node's TLS with the configured trust (the broker's certificate must chain to
   * it) and, with ssl.endpoint.identification.algorithm=https, the host name checked against the certificate.
   */
  private openSocket(): Socket {
    const { host, port, security } = this.options;
    const tls = security.tls;
    if (tls === undefined) return connect({ host, port });
    return tlsConnect({
      host,
      port,
      secureContext: clientContext(tls),
      ...(isIP(host) === 0 ? { servername: host } : {}),
      rejectUnauthorized: true,
      ...(tls.verifyHostname ? {} : { checkServerIdentity: () => undefined }),
    });
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    const decoder = new FrameDecoder(this.options.maxResponseBytes);
    socket.on('data', (chunk: Buffer) => {
      try {
        decoder.push(chunk, (frame) => this.onResponse(frame));
      } catch (e) {
        this.fail(new KafkaError('NETWORK_EXCEPTION', `Invalid response from node ${this.options.nodeId}: ${(e as Error).message}`, { cause: e }));
      }
    });
    socket.on('error', (e) => this.fail(new KafkaError('NETWORK_EXCEPTION', `Connection to node ${this.options.nodeId} failed: ${e.message}`, { cause: e })));
    socket.on('close', () => this.fail(new KafkaError('NETWORK_EXCEPTION', `Connection to node ${this.options.nodeId} was disconnected before the response was read`)));
  }

  /**
   * ApiVersions handshake: v3 first, then v0 if the broker answers UNSUPPORTED_VERSION (KIP-511's fallback).
   * Afterwards send() picks, per API, the highest version both sides support.
   */
  async negotiate(): Promise<ApiVersionsResponse> {
    let response = await this.send(ApiVersionsApi, { clientSoftwareName: 'kafka-ts', clientSoftwareVersion: '0.1.0' }, { version: 3 });
    if (response.errorCode === ErrorCode.UNSUPPORTED_VERSION.code) response = await this.send(ApiVersionsApi, { clientSoftwareName: '', clientSoftwareVersion: '' }, { version: 0 });
    if (response.errorCode !== ErrorCode.NONE.code) throw new KafkaError('UNSUPPORTED_VERSION', `ApiVersions failed with error code ${response.errorCode}`);
    this.brokerVersions = new Map(response.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
    return response;
  }

  /** Highest version of `api` usable with this broker (after negotiate()), or the API's own max. */
  versionFor(api: ApiDefinition): number {
    const broker = this.brokerVersions?.get(api.key);
    if (this.brokerVersions === undefined) return api.maxVersion;
    if (broker === undefined || broker.max < api.minVersion || broker.min > api.maxVersion) {
      throw new KafkaError('UNSUPPORTED_VERSION', `Node ${this.options.nodeId} does not support ${api.name} ${api.minVersion}-${api.maxVersion}`);
    }
    return Math.min(broker.max, api.maxVersion);
  }

  send<Req, Res>(api: ApiDefinition<Req, Res>, body: Req, options: SendOptions = {}): Promise<Res> {
    const def = api as unknown as ApiDefinition;
    return new Promise<Res>((resolve, reject) => {
      const start = (): void => {
        this.active++;
        const done = (): void => {
          this.active--;
          this.startQueued();
        };
        this.write(
          def,
          body,
          options,
          (b) => {
            done();
            (resolve as (b: unknown) => void)(b);
          },
          (e) => {
            done();
            reject(e);
          },
        );
      };
      if (this.closedError !== undefined) {
        reject(this.closedError);
        return;
      }
      // The SASL exchange never queues: a re-authentication runs while the requests that wait for it hold the slots.
      if (this.active >= this.options.maxInFlightRequests && options.duringAuthentication !== true) this.queue.push({ start, reject });
      else start();
    });
  }

  private write(api: ApiDefinition, body: unknown, options: SendOptions, resolve: (b: unknown) => void, reject: (e: Error) => void): void {
    (options.duringAuthentication === true ? this.connectTransport() : this.connect().then(() => this.beforeRequest())).then(
      () => {
        if (this.closedError !== undefined) {
          reject(this.closedError);
          return;
        }
        let version: number;
        try {
          version = options.version ?? this.versionFor(api);
        } catch (e) {
          reject(e as Error);
          return;
        }
        const correlationId = this.nextCorrelationId;
        this.nextCorrelationId = this.nextCorrelationId === 0x7fffffff ? 0 : this.nextCorrelationId + 1;
        const w = new ByteWriter(256);
        w.int32(0);
        writeRequestHeader(w, { apiKey: api.key, apiVersion: version, correlationId, clientId: this.options.clientId }, api.requestHeaderVersion(version));
        try {
          api.encodeRequest(version, w, body);
        } catch (e) {
          reject(e as Error);
          return;
        }
        w.patchInt32(0, w.length - 4);
        const socket = this.socket as Socket;
        const chunks = w.toChunks();
        const expectResponse = options.expectResponse ?? true;
        if (expectResponse) {
          const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
          const timer = this.options.clock.setTimer(() => {
            this.fail(new KafkaError('REQUEST_TIMED_OUT', `${api.name} request (correlation id ${correlationId}) to node ${this.options.nodeId} timed out after ${timeoutMs} ms`));
          }, timeoutMs);
          this.inFlight.set(correlationId, { api, version, resolve, reject, timer });
        }
        if (chunks.length > 1) socket.cork();
        for (const c of chunks) socket.write(c);
        if (chunks.length > 1) socket.uncork();
        if (!expectResponse) resolve(undefined);
      },
      (e: Error) => reject(e),
    );
  }

  private onResponse(frame: Buffer): void {
    const r = new ByteReader(frame);
    const correlationId = r.int32();
    const pending = this.inFlight.get(correlationId);
    if (pending === undefined) {
      this.fail(new KafkaError('NETWORK_EXCEPTION', `Response with unknown correlation id ${correlationId} from node ${this.options.nodeId}`));
      return;
    }
    this.inFlight.delete(correlationId);
    pending.timer.cancel();
    this.notifyIfDrained();
    try {
      // The correlation id is already read; flexible response headers (v1) carry a tag section after it.
      if (pending.api.responseHeaderVersion(pending.version) >= 1) r.skipTaggedFields();
      pending.resolve(pending.api.decodeResponse(pending.version, r));
    } catch (e) {
      pending.reject(new KafkaError('NETWORK_EXCEPTION', `Malformed ${pending.api.name} response: ${(e as Error).message}`, { cause: e }));
    }
  }

  private startQueued(): void {
    while (this.queue.length > 0 && this.active < this.options.maxInFlightRequests && this.closedError === undefined) {
      (this.queue.shift() as Queued).start();
    }
  }

  private fail(error: Error): void {
    if (this.closedError !== undefined) return;
    this.closedError = error;
    this.logger.debug(`Closing connection: ${error.message}`);
    this.socket?.destroy();
    for (const p of this.inFlight.values()) {
      p.timer.cancel();
      p.reject(error);
    }
    this.inFlight.clear();
    this.notifyIfDrained();
    for (const q of this.queue.splice(0)) q.reject(error);
  }

  close(): void {
    this.fail(new KafkaError('NETWORK_EXCEPTION', `Connection to node ${this.options.nodeId} closed by the client`));
  }
}
