import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { hostname } from 'node:os';
import { EndPoint } from '../../common/config/end-point';
import { getLogger } from '../../common/logging/logging';
import { DEFAULT_MAX_REQUEST_BYTES } from '../../protocol/framing';
import { RequestDispatcher } from '../request-dispatcher';
import { Connection, ConnectionLimits } from './connection';

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
  /** queued.max.request.bytes when positive, else 100 MiB: per-connection in-flight byte window before reads pause. */
  maxInFlightBytesPerConnection?: number;
  /** queued.max.requests (default 500), applied per connection. */
  maxInFlightRequestsPerConnection?: number;
  /** socket.receive.buffer.bytes / socket.send.buffer.bytes are OS-managed in Node and not applied. */
}

interface BoundListener {
  endPoint: EndPoint;
  server: Server;
  port: number;
}

/**
 * Kafka's SocketServer: one acceptor per listener and the connections it accepts. Node runs on one event loop, so
 * num.network.threads and num.io.threads do not apply: socket reads/writes are asynchronous in libuv and request
 * handling runs on the loop (handlers that need parallelism use async I/O). Only PLAINTEXT listeners exist.
 */
export class SocketServer {
  private readonly logger = getLogger('kafka.network.SocketServer');
  private readonly processorLogger = getLogger('kafka.network.Processor');
  private readonly bound: BoundListener[] = [];
  private readonly connections = new Set<Connection>();
  private readonly sockets = new Set<Socket>();
  private connectionIndex = 0;
  private readonly limits: ConnectionLimits;

  constructor(
    private readonly options: SocketServerOptions,
    private readonly dispatcher: RequestDispatcher,
  ) {
    this.limits = {
      maxRequestBytes: options.socketRequestMaxBytes ?? DEFAULT_MAX_REQUEST_BYTES,
      idleTimeoutMs: options.connectionsMaxIdleMs ?? 600000,
      maxInFlightBytes: options.maxInFlightBytesPerConnection ?? 100 * 1024 * 1024,
      maxInFlightRequests: options.maxInFlightRequestsPerConnection ?? 500,
    };
    this.logger.info(`[SocketServer brokerId=${options.brokerId}] num.network.threads and num.io.threads do not apply: requests are handled on the Node event loop`);
  }

  /** Binds every listener (Kafka's startup of acceptors and processors). */
  async startup(): Promise<void> {
    const prefix = `[SocketServer brokerId=${this.options.brokerId}] `;
    this.logger.info(`${prefix}Starting socket server acceptors and processors`);
    for (const endPoint of this.options.listeners) {
      if (endPoint.securityProtocol !== 'PLAINTEXT') {
        throw new Error(`Listener ${endPoint.listenerName} uses ${endPoint.securityProtocol}; only PLAINTEXT is supported`);
      }
      const server = createServer({ pauseOnConnect: false }, (socket) => this.accept(socket, endPoint));
      server.on('error', (e) => this.logger.error(`${prefix}Error on listener ${endPoint.listenerName}`, e));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        const host = endPoint.host === '' ? undefined : endPoint.host;
        server.listen({ host, port: endPoint.port, backlog: 511 }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const port = (server.address() as AddressInfo).port;
      this.bound.push({ endPoint, server, port });
      this.logger.info(`${prefix}Created data-plane acceptor and processors for endpoint : ListenerName(${endPoint.listenerName})`);
      this.logger.info(`Awaiting socket connections on ${endPoint.host === '' ? '0.0.0.0' : endPoint.host}:${port}.`);
    }
    this.logger.info(`${prefix}Started data-plane acceptor and processor(s)`);
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
    const advertised = this.options.advertisedListeners ?? this.options.listeners;
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
    const connectionId = `${socket.localAddress ?? ''}:${socket.localPort ?? 0}-${remote}:${socket.remotePort ?? 0}-${this.connectionIndex++}`;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    const context = {
      connectionId,
      listenerName: endPoint.listenerName,
      securityProtocol: endPoint.securityProtocol,
      clientAddress: `/${remote}`,
      clientPort: socket.remotePort ?? 0,
      clientSoftwareName: 'unknown',
      clientSoftwareVersion: 'unknown',
    };
    const connection = new Connection(socket, context, this.dispatcher, this.limits, this.processorLogger, (c) => this.connections.delete(c));
    this.connections.add(connection);
  }

  /** Stops accepting, closes every connection, resolves when the listeners are closed. */
  async shutdown(): Promise<void> {
    const prefix = `[SocketServer brokerId=${this.options.brokerId}] `;
    this.logger.info(`${prefix}Stopping socket server request processors`);
    const closing = this.bound.map((b) => new Promise<void>((resolve) => b.server.close(() => resolve())));
    for (const c of [...this.connections]) c.close('socket server shutdown');
    for (const s of [...this.sockets]) s.destroy();
    await Promise.all(closing);
    this.bound.length = 0;
    this.logger.info(`${prefix}Stopped socket server request processors`);
  }
}
