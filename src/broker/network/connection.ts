import { Socket } from 'node:net';
import { Clock, TimerHandle } from '../../common/time';
import { Logger } from '../../common/logging/logging';
import { FrameDecoder } from '../../protocol/framing';
import { ProtocolError } from '../../protocol/protocol-error';
import { DispatchOutcome, RequestDispatcher, RequestTiming } from '../request-dispatcher';
import type { RequestMetrics } from '../../metrics/request-metrics';
import { ConnectionContext } from './api-handler';
import { RequestChannel } from './request-channel';
import { principalToString } from '../../security/kafka-principal';
import { logCompletedRequest, nowMs, requestLogger } from './request-logger';
import { SaslServerAuthenticator } from './sasl-server-authenticator';
import { ApiKey } from '../../protocol/api-keys';
import { DelayedCloseQueue } from './delayed-close-queue';

export interface ConnectionLimits {
  /** socket.request.max.bytes: larger frames close the connection before anything is allocated. */
  readonly maxRequestBytes: number;
  /** connections.max.idle.ms; <= 0 disables idle closing. */
  readonly idleTimeoutMs: number;
  /** connection.failed.authentication.delay.ms > 0: failed authentications are answered and closed through it. */
  readonly delayedCloses?: DelayedCloseQueue;
}

const EMPTY = Buffer.alloc(0);

/**
 * One client connection (Kafka's KafkaChannel plus the Processor's per-connection duties).
 *
 * Kafka mutes a channel from the moment a request is read until its response has been sent: one request at a
 * time per connection, so responses leave in request order, and a client that pipelines or never reads its
 * responses costs the broker one request and one response, never a growing backlog. Here too: frames already
 * read wait their turn (the socket is paused meanwhile), the next one is handled once the previous response has
 * been handed to the socket and its write buffer is below the high-water mark. Reading also pauses while the
 * memory pool (queued.max.request.bytes) cannot hold the next frame, while the request queue
 * (queued.max.requests) is full, and while a quota throttle holds the channel muted (KIP-219). A protocol
 * violation closes only this connection.
 */
export class Connection {
  private readonly decoder: FrameDecoder;
  /** Frames read and not yet handled, with their pool reservations. */
  private readonly frames: { frame: Buffer; reserved: number; startMs: number; receivedMs: number }[] = [];
  /** Reservations of frames still being received (at most one: frames are admitted one by one). */
  private receiving = 0;
  /** A request is queued, being handled, or its response is still being written. */
  private processing = false;
  private waitingForMemory = false;
  private waitingForRoom = false;
  private throttle: TimerHandle | undefined;
  private paused = false;
  private closed = false;
  private released = false;
  private readonly admit = (size: number): boolean => {
    if (!this.channel.memoryPool.tryReserve(size)) return false;
    this.receiving = size;
    return true;
  };
  private readonly retryRead = (): void => {
    this.waitingForMemory = false;
    this.onData(EMPTY);
  };
  private readonly retryDispatch = (): void => {
    this.waitingForRoom = false;
    this.pump();
  };

  constructor(
    private readonly socket: Socket,
    readonly context: ConnectionContext,
    private readonly dispatcher: RequestDispatcher,
    private readonly channel: RequestChannel,
    private readonly limits: ConnectionLimits,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly onClose: (connection: Connection) => void,
    /** On a SASL listener: every frame goes here until the client has authenticated (and when it re-authenticates). */
    private readonly authenticator: SaslServerAuthenticator | undefined = undefined,
  ) {
    this.decoder = new FrameDecoder(limits.maxRequestBytes);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => this.logger.debug(`Connection with ${context.clientAddress} disconnected: ${e.message}`));
    socket.on('close', () => this.finishClose());
    if (limits.idleTimeoutMs > 0) {
      socket.setTimeout(limits.idleTimeoutMs, () => {
        // Only idle when nothing is outstanding: a parked long poll is activity, as in Kafka's idle expiry.
        if (!this.processing && this.frames.length === 0) this.close(`idle for more than connections.max.idle.ms (${limits.idleTimeoutMs} ms)`, 'debug');
      });
    }
  }

  /** Requests read from this connection and not yet answered (0 or 1 being handled, plus any waiting). */
  get outstandingRequests(): number {
    return this.frames.length + (this.processing ? 1 : 0);
  }

  /** Mutes the connection for `ms` after the current response (a quota throttle, KIP-219). */
  throttleFor(ms: number): void {
    if (ms <= 0 || this.closed) return;
    this.throttle?.cancel();
    this.throttle = this.clock.setTimer(() => {
      this.throttle = undefined;
      this.pump();
    }, ms);
    this.updateReading();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    let complete: boolean;
    try {
      complete = this.decoder.push(chunk, (frame) => this.onFrame(frame), this.channel.memoryPool.isBounded ? this.admit : undefined);
    } catch (e) {
      if (e instanceof ProtocolError) {
        this.logger.warn(`Unexpected error from ${this.context.clientAddress}; closing connection`, e);
        this.close(e.message, 'none');
        return;
      }
      this.logger.error(`Unexpected error from ${this.context.clientAddress}; closing connection`, e);
      this.close(String(e), 'none');
      return;
    }
    if (!complete && !this.waitingForMemory) {
      this.waitingForMemory = true;
      this.channel.memoryPool.whenReleased(this.retryRead);
    }
    this.pump();
  }

  private onFrame(frame: Buffer): void {
    this.frames.push({ frame, reserved: this.receiving, startMs: requestLogger.isDebugEnabled() ? nowMs() : 0, receivedMs: this.measuring ? performance.now() : 0 });
    this.receiving = 0;
  }

  /** Hands the next frame to the request channel when nothing else of this connection is in flight. */
  private pump(): void {
    if (this.closed) return;
    if (!this.processing && this.frames.length > 0 && this.throttle === undefined) {
      if (this.channel.isFull) {
        if (!this.waitingForRoom) {
          this.waitingForRoom = true;
          this.channel.whenNotFull(this.retryDispatch);
        }
      } else {
        const next = this.frames.shift() as { frame: Buffer; reserved: number; startMs: number; receivedMs: number };
        this.processing = true;
        this.channel.send(() => this.handle(next.frame, next.reserved, next.startMs, next.receivedMs));
      }
    }
    this.updateReading();
  }

  private handle(frame: Buffer, reserved: number, startMs: number, receivedMs: number): void {
    if (this.closed) {
      this.channel.memoryPool.release(reserved);
      return;
    }
    let result: DispatchOutcome | Promise<DispatchOutcome>;
    try {
      result = this.authenticator === undefined ? this.dispatcher.handle(frame, this.context) : this.authenticatedHandle(this.authenticator, frame);
    } catch (e) {
      // The dispatcher catches handler errors itself; this is a last line of defence against bugs in it.
      result = { kind: 'close', reason: `dispatcher failure: ${String(e)}` };
    }
    if (result instanceof Promise) {
      result.then(
        (outcome) => this.complete(outcome, reserved, startMs, receivedMs),
        (e: unknown) => this.complete({ kind: 'close', reason: `dispatcher failure: ${String(e)}` }, reserved, startMs, receivedMs),
      );
    } else {
      this.complete(result, reserved, startMs, receivedMs);
    }
  }

  /**
   * Kafka's Processor on a SASL channel: the authenticator takes frames until the client has authenticated; a
   * SaslHandshake on an authenticated channel with a session lifetime starts re-authentication (KIP-368); any
   * other request after the session expired closes the connection.
   */
  private authenticatedHandle(auth: SaslServerAuthenticator, frame: Buffer): DispatchOutcome | Promise<DispatchOutcome> {
    if (!auth.complete) return auth.handle(frame);
    if (frame.length >= 2 && frame.readInt16BE(0) === ApiKey.SASL_HANDSHAKE && auth.beginReauthentication()) return auth.handle(frame);
    if (auth.sessionExpired(this.clock.nowMs())) {
      this.logger.debug(`Disconnecting expired channel: ${this.context.connectionId}`);
      return { kind: 'close', reason: 'SASL session expired (connections.max.reauth.ms)' };
    }
    return this.dispatcher.handle(frame, this.context);
  }

  /** Writes the response; the next request is handled once the socket has taken it. */
  private complete(outcome: DispatchOutcome, reserved: number, startMs: number, receivedMs: number): void {
    // The request's bytes are no longer needed: the response (if any) is a separate buffer.
    this.channel.memoryPool.release(reserved);
    if (this.closed) return;
    if (outcome.kind === 'close') {
      this.logger.info(`Closing socket connection to ${this.context.clientAddress} (${this.context.connectionId}): ${outcome.reason}`);
      this.close(outcome.reason, 'none');
      return;
    }
    if (outcome.kind === 'send' && outcome.closeAfter !== undefined && this.limits.delayedCloses !== undefined) {
      this.delayClose(this.limits.delayedCloses, outcome.chunks, outcome.closeAfter);
      return;
    }
    const sendStartMs = outcome.log !== undefined ? nowMs() : 0;
    const measured = outcome.timing === undefined ? undefined : this.measuredCallback(outcome, receivedMs);
    if (outcome.kind === 'send') {
      const chunks = outcome.chunks;
      const corked = chunks.length > 1;
      if (corked) this.socket.cork();
      const last = chunks.length - 1;
      for (let i = 0; i < chunks.length; i++) {
        const logged = i === last && outcome.log !== undefined ? this.logCallback(outcome, startMs, sendStartMs) : undefined;
        const cb = i !== last || measured === undefined ? logged : logged === undefined ? measured : () => (logged(), measured());
        this.socket.write(chunks[i] as Buffer, cb);
      }
      if (corked) this.socket.uncork();
    } else {
      if (outcome.log !== undefined) this.logCallback(outcome, startMs, sendStartMs)();
      measured?.();
    }
    if (outcome.kind === 'send' && outcome.closeAfter !== undefined) {
      // A failed authentication: the client reads why, then the connection ends (Kafka's Selector closes it).
      this.closeAfterWrite(outcome.closeAfter);
      return;
    }
    // Over its quota: the channel stays muted for the throttle time, then reads on (KIP-219).
    if ((outcome.throttleMs ?? 0) > 0) this.throttleFor(outcome.throttleMs as number);
    if (this.socket.writableNeedDrain) this.socket.once('drain', () => this.responseSent());
    else this.responseSent();
  }

  /**
   * A failed authentication with connection.failed.authentication.delay.ms (Kafka's delayCloseOnAuthenticationFailure):
   * the connection stays muted (processing) and keeps only its failure response; after the delay the response is
   * written and the connection closed. Frames the client pipelined meanwhile are dropped now, not held.
   */
  private delayClose(queue: DelayedCloseQueue, chunks: Buffer[], reason: string): void {
    const pool = this.channel.memoryPool;
    for (const f of this.frames.splice(0)) pool.release(f.reserved);
    this.updateReading();
    queue.add({
      complete: () => {
        if (this.closed) return;
        for (const c of chunks) this.socket.write(c);
        this.closeAfterWrite(reason);
      },
    });
  }

  private responseSent(): void {
    this.processing = false;
    this.pump();
  }

  /** Whether the dispatcher keeps request metrics (kafka.metrics.port set): only then are requests timed. */
  private get measuring(): boolean {
    return this.dispatcher.requestMetrics !== undefined;
  }

  /** RequestMetrics' record of a request once the socket has taken its response (Kafka's updateRequestMetrics). */
  private measuredCallback(outcome: Extract<DispatchOutcome, { kind: 'send' | 'none' }>, receivedMs: number): () => void {
    const timing = outcome.timing as RequestTiming;
    const sendStartMs = performance.now();
    const error = RequestDispatcher.errorOf(outcome);
    return () => {
      const metrics = this.dispatcher.requestMetrics as RequestMetrics;
      metrics.record(timing.metrics, timing.version, error, {
        receivedMs: receivedMs === 0 ? timing.dequeuedMs : receivedMs,
        dequeuedMs: timing.dequeuedMs,
        localDoneMs: timing.localDoneMs,
        completedMs: timing.completedMs,
        sendStartMs,
        sentMs: performance.now(),
      });
    };
  }

  private logCallback(outcome: Extract<DispatchOutcome, { kind: 'send' | 'none' }>, startMs: number, sendStartMs: number): () => void {
    return () => {
      const log = outcome.log;
      if (log === undefined) return;
      logCompletedRequest({
        header: log.header,
        apiName: log.apiName,
        requestDesc: log.requestDesc,
        responseDesc: log.responseDesc,
        connectionId: this.context.connectionId,
        securityProtocol: this.context.securityProtocol,
        listenerName: this.context.listenerName,
        principal: principalToString(this.context.principal),
        clientSoftwareName: this.context.clientSoftwareName,
        clientSoftwareVersion: this.context.clientSoftwareVersion,
        timings: { startMs, dequeueMs: log.dequeueMs, completeMs: log.completeMs, sendStartMs, endMs: nowMs() },
      });
    };
  }

  /** Muted (no reading) while anything of this connection waits: its request, memory, queue room or a throttle. */
  private updateReading(): void {
    if (this.closed) return;
    const mute = this.processing || this.frames.length > 0 || this.waitingForMemory || this.waitingForRoom || this.throttle !== undefined;
    if (mute && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (!mute && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** Closes this connection only; a response being handled is dropped (the client will retry elsewhere). */
  close(reason: string, level: 'debug' | 'none' = 'debug'): void {
    if (this.closed) return;
    if (level === 'debug') this.logger.debug(`Closing connection ${this.context.connectionId}: ${reason}`);
    this.closed = true;
    if (this.socket.writableLength > 0) {
      // Let responses already written for earlier requests reach the client, then close; never wait long.
      this.socket.end();
      this.clock.setTimer(() => void this.socket.destroy(), 1000);
    } else {
      this.socket.destroy();
    }
    this.finishClose();
  }

  /** Ends the connection once what was written has gone out (never waiting long). */
  private closeAfterWrite(reason: string): void {
    if (this.closed) return;
    this.logger.debug(`Closing connection ${this.context.connectionId}: ${reason}`);
    this.closed = true;
    this.socket.end();
    this.clock.setTimer(() => void this.socket.destroy(), 1000);
    this.finishClose();
  }

  private finishClose(): void {
    this.closed = true;
    if (this.released) return;
    this.released = true;
    this.throttle?.cancel();
    this.throttle = undefined;
    this.channel.forget(this.retryDispatch);
    const pool = this.channel.memoryPool;
    for (const f of this.frames.splice(0)) pool.release(f.reserved);
    pool.release(this.receiving);
    this.receiving = 0;
    this.onClose(this);
  }
}
