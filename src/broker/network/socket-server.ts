import { lookup } from 'node:dns/promises';
import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { Server as TlsServer, TLSSocket, createServer as createTlsServer } from 'node:tls';
import { hostname } from 'node:os';
import { EndPoint } from '../../common/config/end-point';
import { getLogger } from '../../common/logging/logging';
import { Clock, SYSTEM_CLOCK, TimerHandle } from '../../common/time';
import { DEFAULT_MAX_REQUEST_BYTES } from '../../protocol/framing';
import { RequestDispatcher } from '../request-dispatcher';
import { Connection, ConnectionLimits } from './connection';
import { ConnectionQuotas, ConnectionRefusal, ListenerLimits } from './connection-quotas';
import { DescriptorHeadroom } from './descriptor-headroom';
import { MemoryPool } from './memory-pool';
import { RequestChannel } from './request-channel';
import { ANONYMOUS, KafkaPrincipal, USER_TYPE } from '../../security/kafka-principal';
import { ServerTlsOptions, secureContextError } from '../../security/ssl-factory';
import { rfc2253Name } from '../../security/distinguished-name';
import { ListenerSasl } from '../../security/sasl-server-config';
import { SaslServerFactory } from '../../security/sasl-server';
import { AuthenticationFailureLog } from './authentication-failure-log';
import { SaslServerAuthenticator } from './sasl-server-authenticator';
import { DelayedCloseQueue } from './delayed-close-queue';

const INT_MAX = 2147483647;

export interface SocketServerOptions {
  brokerId: number;
  /** `listeners` (parsed EndPoints). Port 0 binds an ephemeral port; boundEndPoints() reports the real one. */
  listeners: readonly EndPoint[];
  /** `advertised.listeners`; defaults to `listeners`. Port 0 / empty host are filled from the bound listener. */
  advertisedListeners?: readonly EndPoint[];
  /** socket.request.max.bytes (default 104857600). */
  socketRequestMaxBytes?: number;
  /** connections.max.idle.ms (default 600000). */
  connectionsMaxIdleMs?: number;
  /** connection.failed.authentication.delay.ms (default 100): failed authentications are answered and closed this late. */
  failedAuthenticationDelayMs?: number;
  /** queued.max.requests (default 500): requests read and waiting to be handled, over the broker. */
  queuedMaxRequests?: number;
  /** queued.max.request.bytes (default -1, unbounded): bytes of requests being received, queued or handled. */
  queuedMaxRequestBytes?: number;
  /** max.connections (default unbounded). */
  maxConnections?: number;
  /** max.connections.per.ip (default unbounded). */
  maxConnectionsPerIp?: number;
  /** max.connections.per.ip.overrides: host or address -> limit. */
  maxConnectionsPerIpOverrides?: ReadonlyMap<string, number>;
  /** max.connection.creation.rate: new connections per second (default unbounded). */
  maxConnectionCreationRate?: number;
  /** `listener.name.<l>.max.connections` / `.max.connection.creation.rate`, by listener name. */
  listenerLimits?: ReadonlyMap<string, ListenerLimits>;
  /** inter.broker.listener.name: exempt from the broker-wide limits when there are other listeners. */
  interBrokerListenerName?: string;
  /** quota.window.num / quota.window.size.seconds, for the ips' connection_creation_rate quotas. */
  quotaWindow?: { numQuotaSamples: number; quotaWindowSizeSeconds: number };
  /** Each SSL / SASL_SSL listener's TLS (key material already loaded), by listener name. */
  tls?: ReadonlyMap<string, ServerTlsOptions>;
  clock?: Clock;
  /** The SASL settings and mechanism servers of each SASL_* listener, by listener name. */
  saslListeners?: ReadonlyMap<string, { listener: ListenerSasl; createServer: SaslServerFactory }>;
  /** socket.receive.buffer.bytes / socket.send.buffer.bytes are OS-managed in Node and not applied. */
}

interface BoundListener {
  endPoint: EndPoint;
  server: Server;
  port: number;
  /** Not listening for now: out of file descriptors, waiting for some to free up. */
  paused?: boolean;
  /** SSL / SASL_SSL listeners: the context new connections handshake with (swapped by a keystore reload). */
  tls?: { options: ServerTlsOptions; server: TlsServer };
}

/** How often a refused-connection line is repeated at most (with the count since the last one). */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/** How long accepting stays off after the process ran out of file descriptors, before trying again. */
const EMFILE_BACKOFF_MS = 1000;

/**
 * Kafka's SocketServer: one acceptor per listener, the connection quotas and the request channel. Node runs on
 * one event loop, so num.network.threads and num.io.threads do not apply: socket reads/writes are asynchronous in
 * libuv and request handling runs on the loop (both stay settable, dynamically too, and are only reported). Only
 * SSL listeners (and the TLS half of SASL_SSL) wrap each accepted socket in Node's TLS before the connection
 * exists: the handshake must succeed (and, with ssl.client.auth, the client certificate be trusted) before any
 * request is read, and the principal is the certificate's subject mapped by ssl.principal.mapping.rules. A
 * failed handshake closes only that socket. The connection limits can change at run time (reconfigureConnectionLimits),
 * and a listener's key material too (reconfigureListenerTls: new connections use it); listeners come and go
 * with a dynamic `listeners` (addListeners, removeListeners: Kafka's SocketServer methods of those names).
 * A SASL_PLAINTEXT or SASL_SSL connection authenticates first (SaslServerAuthenticator), after TLS for SASL_SSL.
 *
 * A new connection that breaks max.connections, max.connections.per.ip (or its override) or
 * max.connection.creation.rate is closed at accept, logged once per interval rather than once per connection.
 * When the process runs out of file descriptors (EMFILE/ENFILE) the listener stops accepting and tries again a
 * little later, while the connections it has keep working.
 */
export class SocketServer {
  private readonly logger = getLogger('kafka.network.SocketServer');
  private readonly acceptorLogger = getLogger('kafka.network.Acceptor');
  private readonly processorLogger = getLogger('kafka.network.Processor');
  private readonly selectorLogger = getLogger('org.apache.kafka.common.network.Selector');
  private readonly bound: BoundListener[] = [];
  private readonly connections = new Set<Connection>();
  private readonly sockets = new Set<Socket>();
  private connectionIndex = 0;
  private readonly limits: ConnectionLimits;
  private readonly clock: Clock;
  private readonly channel: RequestChannel;
  private quotas: ConnectionQuotas | undefined;
  private readonly refusals = new Map<string, { count: number; lastLogMs: number }>();
  private readonly retries = new Set<TimerHandle>();
  private stopped = false;
  private readonly headroom: DescriptorHeadroom;
  private readonly authFailures: AuthenticationFailureLog;
  /** Each SASL listener's settings, replaced by a dynamic change (reconfigureListenerSasl). */
  private readonly saslListeners: Map<string, { listener: ListenerSasl; createServer: SaslServerFactory }>;
  /** The listeners and advertised listeners, changed by a dynamic `listeners` (addListeners / removeListeners). */
  private listeners: readonly EndPoint[];
  private advertisedListeners: readonly EndPoint[] | undefined;

  /** Requests waiting in the request channel (RequestChannel's RequestQueueSize gauge). */
  get requestQueueSize(): number {
    return this.channel.queueSize;
  }

  constructor(
    private readonly options: SocketServerOptions,
    private readonly dispatcher: RequestDispatcher,
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.saslListeners = new Map(options.saslListeners ?? []);
    this.listeners = options.listeners;
    this.advertisedListeners = options.advertisedListeners;
    this.headroom = new DescriptorHeadroom(this.clock);
    this.authFailures = new AuthenticationFailureLog(this.clock);
    this.limits = {
      maxRequestBytes: options.socketRequestMaxBytes ?? DEFAULT_MAX_REQUEST_BYTES,
      idleTimeoutMs: options.connectionsMaxIdleMs ?? 600000,
      ...((options.failedAuthenticationDelayMs ?? 100) > 0 ? { delayedCloses: new DelayedCloseQueue(options.failedAuthenticationDelayMs ?? 100, this.clock) } : {}),
    };
    this.channel = new RequestChannel(options.queuedMaxRequests ?? 500, new MemoryPool(options.queuedMaxRequestBytes ?? -1));
    this.logger.info(`[SocketServer brokerId=${options.brokerId}] num.network.threads and num.io.threads do not apply: requests are handled on the Node event loop`);
  }

  /** Binds every listener (Kafka's startup of acceptors and processors). */
  async startup(): Promise<void> {
    const prefix = `[SocketServer brokerId=${this.options.brokerId}] `;
    this.logger.info(`${prefix}Starting socket server acceptors and processors`);
    this.quotas = new ConnectionQuotas(
      {
        maxConnections: this.options.maxConnections ?? INT_MAX,
        maxConnectionsPerIp: this.options.maxConnectionsPerIp ?? INT_MAX,
        maxConnectionsPerIpOverrides: await resolveOverrides(this.options.maxConnectionsPerIpOverrides ?? new Map()),
        maxConnectionCreationRate: this.options.maxConnectionCreationRate ?? INT_MAX,
        ...(this.options.listenerLimits === undefined ? {} : { listenerLimits: this.options.listenerLimits }),
        ...(this.options.quotaWindow === undefined ? {} : { quotaWindow: this.options.quotaWindow }),
        ...(this.options.listeners.length > 1 && this.options.interBrokerListenerName !== undefined ? { protectedListener: this.options.interBrokerListenerName } : {}),
      },
      this.clock,
    );
    for (const endPoint of this.listeners) await this.bindListener(endPoint, this.options.tls?.get(endPoint.listenerName));
    this.logger.info(`${prefix}Started data-plane acceptor and processor(s)`);
  }

  /** One listener's acceptor: its TLS context (SSL, SASL_SSL) made, its port bound. */
  private async bindListener(endPoint: EndPoint, tls: ServerTlsOptions | undefined): Promise<void> {
    if (endPoint.securityProtocol.startsWith('SASL_') && this.saslListeners.get(endPoint.listenerName) === undefined) {
      throw new Error(`Listener ${endPoint.listenerName} uses ${endPoint.securityProtocol} but has no SASL configuration`);
    }
    const listener: BoundListener = { endPoint, server: undefined as unknown as Server, port: endPoint.port };
    if (usesTls(endPoint.securityProtocol)) {
      if (tls === undefined) throw new Error(`Listener ${endPoint.listenerName} uses ${endPoint.securityProtocol} but has no SSL key material`);
      listener.tls = { options: tls, server: this.tlsServer(endPoint, tls) };
    }
    await this.listen(listener, endPoint.port);
    this.bound.push(listener);
    this.logger.info(`[SocketServer brokerId=${this.options.brokerId}] Created data-plane acceptor and processors for endpoint : ListenerName(${endPoint.listenerName})`);
    this.logger.info(`Awaiting socket connections on ${endPoint.host === '' ? '0.0.0.0' : endPoint.host}:${listener.port}.`);
  }

  /**
   * SocketServer.addListeners (a dynamic `listeners` added them): each new listener is bound and accepts at once,
   * with its TLS key material and SASL settings as given. A listener that cannot be bound is logged and left
   * out (the others are added).
   */
  async addListeners(
    added: readonly EndPoint[],
    settings: { tls: ReadonlyMap<string, ServerTlsOptions>; sasl: ReadonlyMap<string, { listener: ListenerSasl; createServer: SaslServerFactory }> },
  ): Promise<void> {
    this.logger.info(`[SocketServer brokerId=${this.options.brokerId}] Adding data-plane listeners for endpoints ${scalaEndPoints(added)}`);
    for (const [name, sasl] of settings.sasl) this.saslListeners.set(name, sasl);
    const bound: EndPoint[] = [];
    for (const endPoint of added) {
      try {
        await this.bindListener(endPoint, settings.tls.get(endPoint.listenerName));
        bound.push(endPoint);
      } catch (err) {
        this.logger.error(`[SocketServer brokerId=${this.options.brokerId}] Failed to add listener ${endPoint.listenerName}`, err);
      }
    }
    this.listeners = [...this.listeners, ...bound];
  }

  /** The advertised listeners changed (dynamic `advertised.listeners`, or `listeners` when it is not set). */
  updateAdvertisedListeners(advertised: readonly EndPoint[]): void {
    this.advertisedListeners = advertised;
  }

  /**
   * SocketServer.removeListeners: each removed listener stops accepting and its connections close (Kafka shuts
   * the listener's acceptor and processors down, which closes their channels).
   */
  async removeListeners(removed: readonly EndPoint[]): Promise<void> {
    this.logger.info(`[SocketServer brokerId=${this.options.brokerId}] Removing data-plane listeners for endpoints ${scalaEndPoints(removed)}`);
    const names = new Set(removed.map((e) => e.listenerName));
    this.listeners = this.listeners.filter((l) => !names.has(l.listenerName));
    const gone = this.bound.filter((b) => names.has(b.endPoint.listenerName));
    for (const b of gone) this.bound.splice(this.bound.indexOf(b), 1);
    const closing = gone.map((b) => new Promise<void>((resolve) => (b.server.listening ? b.server.close(() => resolve()) : resolve())));
    for (const c of [...this.connections]) if (names.has(c.context.listenerName)) c.close(`listener ${c.context.listenerName} removed`);
    // Sockets accepted but not yet connections (a TLS handshake under way, a throttled close) go too.
    for (const s of [...this.sockets]) if (gone.some((b) => b.port === s.localPort)) s.destroy();
    for (const name of names) this.saslListeners.delete(name);
    await Promise.all(closing);
  }

  private async listen(listener: BoundListener, port: number): Promise<void> {
    const { endPoint } = listener;
    const server = createServer({ pauseOnConnect: false }, (socket) => this.accept(socket, endPoint));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const host = endPoint.host === '' ? undefined : endPoint.host;
      server.listen({ host, port, backlog: 511 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (e: NodeJS.ErrnoException) => this.onListenerError(listener, e));
    listener.server = server;
    listener.port = (server.address() as AddressInfo).port;
  }

  /**
   * An accept failed. Out of file descriptors: stop accepting on this listener (existing connections keep
   * working), and listen again once some are free. Never anything to do with the log dirs.
   */
  private onListenerError(listener: BoundListener, e: NodeJS.ErrnoException): void {
    if (e.code !== 'EMFILE' && e.code !== 'ENFILE') {
      this.acceptorLogger.error(`Error occurred while accepting connections on ${listener.endPoint.listenerName}`, e);
      return;
    }
    this.stopAccepting(listener, `Too many open files (${e.code}): not accepting new connections on ${listener.endPoint.listenerName} for now`);
  }

  private stopAccepting(listener: BoundListener, why: string): void {
    this.logRefusal('fds', () => why);
    if (listener.paused) return;
    listener.paused = true;
    const server = listener.server;
    server.removeAllListeners('error');
    server.on('error', () => undefined);
    server.close();
    this.retryListen(listener);
  }

  private retryListen(listener: BoundListener): void {
    const timer = this.clock.setTimer(() => {
      this.retries.delete(timer);
      if (this.stopped) return;
      if (!this.headroom.recovered()) {
        this.retryListen(listener);
        return;
      }
      this.listen(listener, listener.port).then(
        () => {
          listener.paused = false;
          this.acceptorLogger.info(`Accepting connections on ${listener.endPoint.listenerName} again`);
        },
        () => this.retryListen(listener),
      );
    }, EMFILE_BACKOFF_MS);
    this.retries.add(timer);
  }

  /**
   * The connection limits changed (dynamic max.connections, max.connections.per.ip or its overrides): they apply
   * to the connections accepted from now on; Kafka does not close the ones already open.
   */
  async reconfigureConnectionLimits(limits: {
    maxConnections: number;
    maxConnectionsPerIp: number;
    maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
    maxConnectionCreationRate: number;
    listenerLimits: ReadonlyMap<string, ListenerLimits>;
  }): Promise<void> {
    const overrides = await resolveOverrides(limits.maxConnectionsPerIpOverrides);
    this.quotas?.updateLimits({ ...limits, maxConnectionsPerIpOverrides: overrides });
    const own = [...limits.listenerLimits].map(([l, v]) => `${l}(max.connections=${v.maxConnections ?? '-'}, max.connection.creation.rate=${v.maxConnectionCreationRate ?? '-'})`).join(', ');
    this.logger.info(
      `[SocketServer brokerId=${this.options.brokerId}] Updated connection limits: max.connections=${limits.maxConnections}, max.connections.per.ip=${limits.maxConnectionsPerIp}, max.connections.per.ip.overrides=${[...limits.maxConnectionsPerIpOverrides].map(([h, n]) => `${h}:${n}`).join(',')}, max.connection.creation.rate=${limits.maxConnectionCreationRate}${own === '' ? '' : `, listeners: ${own}`}`,
    );
  }

  /**
   * A SASL listener's mechanisms or JAAS entries changed (dynamic `listener.name.<l>.sasl.enabled.mechanisms`,
   * `listener.name.<l>.<mechanism>.sasl.jaas.config`): connections accepted from now on authenticate with them;
   * open ones keep the session they authenticated (Kafka's SaslChannelBuilder reconfigure).
   */
  reconfigureListenerSasl(listenerName: string, sasl: { listener: ListenerSasl; createServer: SaslServerFactory }): void {
    if (!this.listeners.some((l) => l.listenerName === listenerName && l.securityProtocol.startsWith('SASL_'))) throw new Error(`Listener ${listenerName} does not use SASL`);
    this.saslListeners.set(listenerName, sasl);
    this.logger.info(`[SocketServer brokerId=${this.options.brokerId}] Reconfigured SASL of listener ${listenerName}: mechanisms ${sasl.listener.enabledMechanisms.join(',')}`);
  }

  /** A connection_creation_rate quota of an ip, or of every ip (`ip` undefined) without its own (KIP-612). */
  updateIpConnectionRateQuota(ip: string | undefined, rate: number | undefined): void {
    this.quotas?.updateIpConnectionRateQuota(ip, rate);
  }

  /**
   * A listener's key material changed (a dynamic ssl.keystore.* / ssl.truststore.* update): connections accepted
   * from now on handshake with it; open ones keep theirs (as Kafka's SslFactory.reconfigure). Throws (and
   * changes nothing) when the material does not make a context.
   */
  /** Checks that `options` make a TLS context (a dynamic keystore change is refused otherwise). */
  validateListenerTls(listenerName: string, options: ServerTlsOptions): void {
    tlsServerFor(listenerName.toUpperCase(), options, this.limits.idleTimeoutMs);
  }

  /** The TLS options a listener's new connections use. */
  listenerTls(listenerName: string): ServerTlsOptions | undefined {
    return this.bound.find((b) => b.endPoint.listenerName === listenerName.toUpperCase())?.tls?.options;
  }

  reconfigureListenerTls(listenerName: string, options: ServerTlsOptions): void {
    const listener = this.bound.find((b) => b.endPoint.listenerName === listenerName.toUpperCase());
    if (listener?.tls === undefined) throw new Error(`Listener ${listenerName} does not use TLS`);
    listener.tls = { options, server: this.tlsServer(listener.endPoint, options) };
    this.logger.info(`[SocketServer brokerId=${this.options.brokerId}] Reconfigured SSL key material of listener ${listener.endPoint.listenerName}`);
  }

  /** The listeners with their real ports (port 0 replaced by the ephemeral port). */
  boundEndPoints(): EndPoint[] {
    return this.bound.map((b) => ({ ...b.endPoint, port: b.port }));
  }

  boundPort(listenerName: string): number {
    const b = this.bound.find((x) => x.endPoint.listenerName === listenerName.toUpperCase());
    if (b === undefined) throw new Error(`No listener named ${listenerName}`);
    return b.port;
  }

  /**
   * advertised.listeners with bound ports filled in (port 0 -> the ephemeral port) and an empty host replaced by the
   * machine's hostname (Kafka advertises the canonical host name when the listener host is empty).
   */
  advertisedEndPoints(): EndPoint[] {
    // A listener added at run time whose port could not be bound is not served, so it is not advertised either.
    const served = new Set(this.listeners.map((l) => l.listenerName));
    const advertised = (this.advertisedListeners ?? this.listeners).filter((e) => served.has(e.listenerName));
    return advertised.map((e) => {
      const b = this.bound.find((x) => x.endPoint.listenerName === e.listenerName);
      const port = e.port === 0 && b !== undefined ? b.port : e.port;
      return { ...e, host: e.host === '' ? hostname() : e.host, port };
    });
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  private accept(socket: Socket, endPoint: EndPoint): void {
    const remote = socket.remoteAddress ?? 'unknown';
    const fds = this.headroom.exhausted();
    if (fds !== undefined) {
      socket.destroy();
      const listener = this.bound.find((b) => b.endPoint === endPoint);
      const why = `Too many open files (${fds.open} of ${fds.limit} descriptors in use, ${this.headroom.reserve} kept for the log): not accepting new connections on ${endPoint.listenerName} for now`;
      if (listener === undefined) this.logRefusal('fds', () => why);
      else this.stopAccepting(listener, why);
      return;
    }
    const refusal = this.quotas?.tryAccept(remote, endPoint.listenerName);
    if (refusal?.reason === 'ip-rate') {
      // Kafka's Acceptor keeps a throttled socket unread until the throttle ends and then closes it, so that a
      // client reconnecting in a loop waits instead of hammering the acceptor.
      socket.pause();
      this.sockets.add(socket);
      const timer = this.clock.setTimer(() => {
        socket.destroy();
      }, refusal.throttleMs);
      socket.once('close', () => {
        timer.cancel();
        this.sockets.delete(socket);
      });
      socket.on('error', () => undefined);
      this.logRefusal(refusal.reason, () => refusalMessage(remote, refusal));
      return;
    }
    if (refusal !== undefined) {
      socket.destroy();
      this.logRefusal(refusal.reason, () => refusalMessage(remote, refusal));
      return;
    }
    const connectionId = `${socket.localAddress ?? ''}:${socket.localPort ?? 0}-${remote}:${socket.remotePort ?? 0}-${this.connectionIndex++}`;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    const tls = this.bound.find((b) => b.endPoint === endPoint)?.tls;
    if (tls === undefined) {
      this.open(socket, endPoint, connectionId, remote, ANONYMOUS, true);
      return;
    }
    // The quota slot is the TCP socket's, whether or not its handshake succeeds.
    socket.once('close', () => this.quotas?.release(remote, endPoint.listenerName));
    tls.server.emit('connection', socket);
  }

  /**
   * A listener's TLS: a tls.Server that never listens, handed each accepted socket, so that Node does the
   * handshake and the certificate checks as for its own servers. The client certificate is requested for
   * ssl.client.auth=requested and required, and judged here: required needs a trusted one, requested refuses only
   * an untrusted one (Java's wantClientAuth). A failure closes that socket and is logged as Kafka's Selector
   * logs it (rate-limited); the principal is the certificate's subject mapped by ssl.principal.mapping.rules.
   */
  private tlsServer(endPoint: EndPoint, options: ServerTlsOptions): TlsServer {
    const server = tlsServerFor(endPoint.listenerName, options, this.limits.idleTimeoutMs);
    const fail = (secure: TLSSocket, why: string): void => {
      const remote = secure.remoteAddress ?? 'unknown';
      secure.destroy();
      this.logRefusal('ssl-handshake', () => `[SocketServer brokerId=${this.options.brokerId}] Failed authentication with /${remote} (${why})`, this.selectorLogger);
    };
    server.on('tlsClientError', (e: Error, secure: TLSSocket) => {
      if (!isTlsFailure(e)) {
        // The peer went away or never finished (a client's own timeout, a reset): Kafka's Selector calls that a
        // disconnection, not a failed authentication, and logs it at DEBUG.
        secure.destroy();
        this.selectorLogger.debug(`[SocketServer brokerId=${this.options.brokerId}] Connection with /${secure.remoteAddress ?? 'unknown'} disconnected during the SSL handshake: ${e.message}`);
        return;
      }
      fail(secure, `SSL handshake failed: ${e.message}`);
    });
    server.on('secureConnection', (secure: TLSSocket) => {
      const cert = options.clientAuth === 'none' ? undefined : secure.getPeerX509Certificate();
      if (options.clientAuth === 'required' && cert === undefined) return fail(secure, 'SSL handshake failed: no client certificate');
      let principal: KafkaPrincipal = ANONYMOUS;
      if (cert !== undefined) {
        if (!secure.authorized) return fail(secure, `SSL handshake failed: ${String(secure.authorizationError)}`);
        try {
          principal = { principalType: USER_TYPE, name: options.principalMapper.getName(rfc2253Name(cert.subject)) };
        } catch (e) {
          return fail(secure, `SSL principal mapping failed: ${(e as Error).message}`);
        }
      }
      const remote = secure.remoteAddress ?? 'unknown';
      const connectionId = `${secure.localAddress ?? ''}:${secure.localPort ?? 0}-${remote}:${secure.remotePort ?? 0}-${this.connectionIndex++}`;
      this.open(secure, endPoint, connectionId, remote, principal, false);
    });
    return server;
  }

  private open(socket: Socket, endPoint: EndPoint, connectionId: string, remote: string, principal: KafkaPrincipal, releaseQuota: boolean): void {
    const context = {
      connectionId,
      listenerName: endPoint.listenerName,
      securityProtocol: endPoint.securityProtocol,
      clientAddress: `/${remote}`,
      clientPort: socket.remotePort ?? 0,
      clientSoftwareName: 'unknown',
      clientSoftwareVersion: 'unknown',
      principal,
    };
    const sasl = endPoint.securityProtocol.startsWith('SASL_') ? this.saslListeners.get(endPoint.listenerName) : undefined;
    const authenticator =
      sasl === undefined ? undefined : new SaslServerAuthenticator({ ...sasl, dispatcher: this.dispatcher, clock: this.clock, failures: this.authFailures }, context);
    const connection = new Connection(
      socket,
      context,
      this.dispatcher,
      this.channel,
      this.limits,
      this.clock,
      this.processorLogger,
      (c) => {
        this.connections.delete(c);
        if (releaseQuota) this.quotas?.release(remote, endPoint.listenerName);
      },
      authenticator,
    );
    this.connections.add(connection);
  }

  /** The first refusal of a kind is logged at once; later ones at most once per interval, with their count. */
  private logRefusal(kind: string, message: () => string, logger = this.acceptorLogger): void {
    const now = this.clock.nowMs();
    const r = this.refusals.get(kind) ?? { count: 0, lastLogMs: -Infinity };
    r.count++;
    this.refusals.set(kind, r);
    if (now - r.lastLogMs < REFUSAL_LOG_INTERVAL_MS) return;
    const more = r.count > 1 ? ` (${r.count - 1} more since the last such line)` : '';
    logger.info(`${message()}${more}`);
    r.count = 0;
    r.lastLogMs = now;
  }

  /** Stops accepting, closes every connection, resolves when the listeners are closed. */
  async shutdown(): Promise<void> {
    const prefix = `[SocketServer brokerId=${this.options.brokerId}] `;
    this.logger.info(`${prefix}Stopping socket server request processors`);
    this.stopped = true;
    for (const t of this.retries) t.cancel();
    this.retries.clear();
    const closing = this.bound.map((b) => new Promise<void>((resolve) => (b.server.listening ? b.server.close(() => resolve()) : resolve())));
    // Failed authentications still waiting get their answer first (Kafka closes them with the selector).
    this.limits.delayedCloses?.flush();
    for (const c of [...this.connections]) c.close('socket server shutdown');
    for (const s of [...this.sockets]) s.destroy();
    await Promise.all(closing);
    this.bound.length = 0;
    this.logger.info(`${prefix}Stopped socket server request processors`);
  }
}

/** Kafka's messages for a refused connection (Acceptor's TooManyConnectionsException line for the per-IP case). */
function refusalMessage(remote: string, r: ConnectionRefusal): string {
  switch (r.reason) {
    case 'per-ip':
      return `Rejected connection from /${remote}, address already has the configured maximum of ${r.limit} connections.`;
    case 'broker':
      return `Rejected connection from /${remote}, the broker already has the configured maximum of ${r.limit} connections (max.connections).`;
    case 'rate':
      return `Rejected connection from /${remote}, more than max.connection.creation.rate=${r.limit} new connections in the last second.`;
    case 'listener':
      return `Rejected connection from /${remote}, listener ${r.listener} already has the configured maximum of ${r.limit} connections (listener.name.${r.listener.toLowerCase()}.max.connections).`;
    case 'listener-rate':
      return `Rejected connection from /${remote}, more than listener.name.${r.listener.toLowerCase()}.max.connection.creation.rate=${r.limit} new connections in the last second on listener ${r.listener}.`;
    case 'ip-rate':
      return `Delaying closing of connection from /${remote} for ${r.throttleMs} ms (over its connection_creation_rate quota of ${r.limit} per second)`;
  }
}

/** Overrides name hosts or addresses; connections are counted by address, so host names are resolved once here. */
async function resolveOverrides(overrides: ReadonlyMap<string, number>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [host, limit] of overrides) {
    out.set(host, limit);
    try {
      for (const a of await lookup(host, { all: true })) out.set(a.address, limit);
      // Node reports IPv4 peers of a dual-stack socket as ::ffff:a.b.c.d.
      for (const a of await lookup(host, { all: true, family: 4 })) out.set(`::ffff:${a.address}`, limit);
    } catch {
      // An unresolvable name can still match literally.
    }
  }
  return out;
}

/** A Seq[EndPoint] as Kafka's SocketServer prints it (Scala 2.13's ArraySeq of the EndPoint case class). */
function scalaEndPoints(endPoints: readonly EndPoint[]): string {
  return `ArraySeq(${endPoints.map((e) => `EndPoint(${e.host === '' ? 'null' : e.host},${e.port},ListenerName(${e.listenerName}),${e.securityProtocol})`).join(', ')})`;
}

/** SSL and SASL_SSL listeners speak TLS (SASL_SSL's SASL exchange runs inside it). */
function usesTls(securityProtocol: string): boolean {
  return securityProtocol === 'SSL' || securityProtocol === 'SASL_SSL';
}

/**
 * Whether a handshake error is TLS's own verdict (an alert, a bad record, a refused certificate) rather than the
 * connection ending under it: OpenSSL's errors carry its library and reason, socket errors a system code.
 */
function isTlsFailure(e: Error): boolean {
  const { code, library } = e as Error & { code?: string; library?: string };
  return library !== undefined || (code?.startsWith('ERR_SSL_') ?? false);
}

function tlsServerFor(listenerName: string, options: ServerTlsOptions, idleTimeoutMs: number): TlsServer {
  try {
    return createTlsServer({
      ...options.context,
      requestCert: options.clientAuth !== 'none',
      // Judged in secureConnection, so that a refused certificate is logged like any failed handshake.
      rejectUnauthorized: false,
      // A client that never finishes its handshake holds a socket no longer than an idle one would.
      handshakeTimeout: idleTimeoutMs > 0 ? idleTimeoutMs : 600000,
    });
  } catch (e) {
    throw secureContextError(e, `listener ${listenerName}`, options.context);
  }
}
