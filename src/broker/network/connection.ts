import { Socket } from 'node:net';
import { SYSTEM_CLOCK } from '../../common/time';
import { Logger } from '../../common/logging/logging';
import { FrameDecoder } from '../../protocol/framing';
import { ProtocolError } from '../../protocol/protocol-error';
import { DispatchOutcome, RequestDispatcher } from '../request-dispatcher';
import { ConnectionContext } from './api-handler';
import { logCompletedRequest, nowMs, requestLogger } from './request-logger';

export interface ConnectionLimits {
  /** socket.request.max.bytes: larger frames close the connection before anything is allocated. */
  readonly maxRequestBytes: number;
  /** Stop reading once this many request bytes are being processed or responses are waiting to be written. */
  readonly maxInFlightBytes: number;
  /** Stop reading once this many requests are outstanding on the connection (Kafka's queued.max.requests). */
  readonly maxInFlightRequests: number;
  /** connections.max.idle.ms; <= 0 disables idle closing. */
  readonly idleTimeoutMs: number;
}

interface Slot {
  outcome: DispatchOutcome | undefined;
  requestBytes: number;
  startMs: number;
}

/**
 * One client connection (Kafka's KafkaChannel plus the Processor's per-connection duties).
 *
 * Requests are decoded as frames arrive and handed to the dispatcher at once, so a parked Fetch does not stop a
 * Metadata request from being processed, but responses leave strictly in request order (kafka-python matches them
 * FIFO and fails on reordering). Reading pauses while too many request bytes/requests are outstanding or while the
 * socket's write buffer is full, and resumes when they drain: Kafka's mute/unmute, with a window instead of one.
 * A protocol violation closes only this connection.
 */
export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly slots: Slot[] = [];
  private inFlightBytes = 0;
  private paused = false;
  private writeBlocked = false;
  private closed = false;
  private released = false;

  constructor(
    private readonly socket: Socket,
    readonly context: ConnectionContext,
    private readonly dispatcher: RequestDispatcher,
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
    private readonly onClose: (connection: Connection) => void,
  ) {
    this.decoder = new FrameDecoder(limits.maxRequestBytes);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => {
      this.writeBlocked = false;
      this.updateReading();
    });
    socket.on('error', (e) => this.logger.debug(`Connection with ${context.clientAddress} disconnected: ${e.message}`));
    socket.on('close', () => this.finishClose());
    if (limits.idleTimeoutMs > 0) {
      socket.setTimeout(limits.idleTimeoutMs, () => {
        // Only idle when nothing is outstanding: a parked long poll is activity, as in Kafka's idle expiry.
        if (this.slots.length === 0) this.close(`idle for more than connections.max.idle.ms (${limits.idleTimeoutMs} ms)`, 'debug');
      });
    }
  }

  get outstandingRequests(): number {
    return this.slots.length;
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    try {
      this.decoder.push(chunk, (frame) => this.onFrame(frame));
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
    this.updateReading();
  }

  private onFrame(frame: Buffer): void {
    if (this.closed) return;
    const slot: Slot = { outcome: undefined, requestBytes: frame.length, startMs: requestLogger.isDebugEnabled() ? nowMs() : 0 };
    this.slots.push(slot);
    this.inFlightBytes += frame.length;
    let result: DispatchOutcome | Promise<DispatchOutcome>;
    try {
      result = this.dispatcher.handle(frame, this.context);
    } catch (e) {
      // The dispatcher catches handler errors itself; this is a last line of defence against bugs in it.
      result = { kind: 'close', reason: `dispatcher failure: ${String(e)}` };
    }
    if (result instanceof Promise) {
      result.then(
        (outcome) => this.complete(slot, outcome),
        (e: unknown) => this.complete(slot, { kind: 'close', reason: `dispatcher failure: ${String(e)}` }),
      );
    } else {
      this.complete(slot, result);
    }
  }

  private complete(slot: Slot, outcome: DispatchOutcome): void {
    slot.outcome = outcome;
    this.flush();
  }

  /** Writes every finished response at the head of the queue; later ones wait for earlier ones. */
  private flush(): void {
    if (this.closed) return;
    let corked = false;
    while (this.slots.length > 0 && (this.slots[0] as Slot).outcome !== undefined) {
      const slot = this.slots.shift() as Slot;
      const outcome = slot.outcome as DispatchOutcome;
      this.inFlightBytes -= slot.requestBytes;
      if (outcome.kind === 'close') {
        if (corked) this.socket.uncork();
        this.logger.info(`Closing socket connection to ${this.context.clientAddress} (${this.context.connectionId}): ${outcome.reason}`);
        this.close(outcome.reason, 'none');
        return;
      }
      const sendStartMs = outcome.log !== undefined ? nowMs() : 0;
      if (outcome.kind === 'send') {
        if (!corked && outcome.chunks.length > 1) {
          this.socket.cork();
          corked = true;
        }
        let ok = true;
        const last = outcome.chunks.length - 1;
        outcome.chunks.forEach((chunk, i) => {
          const cb = i === last && outcome.log !== undefined ? this.logCallback(slot, outcome, sendStartMs) : undefined;
          ok = this.socket.write(chunk, cb);
        });
        if (!ok) this.writeBlocked = true;
      } else if (outcome.log !== undefined) {
        this.logCallback(slot, outcome, sendStartMs)();
      }
    }
    if (corked) this.socket.uncork();
    this.updateReading();
  }

  private logCallback(slot: Slot, outcome: Extract<DispatchOutcome, { kind: 'send' | 'none' }>, sendStartMs: number): () => void {
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
        clientSoftwareName: this.context.clientSoftwareName,
        clientSoftwareVersion: this.context.clientSoftwareVersion,
        timings: { startMs: slot.startMs, dequeueMs: log.dequeueMs, completeMs: log.completeMs, sendStartMs, endMs: nowMs() },
      });
    };
  }

  private updateReading(): void {
    if (this.closed) return;
    const over =
      this.writeBlocked ||
      // Bytes of a partially received frame are not counted: pausing mid-frame could never drain.
      this.inFlightBytes > this.limits.maxInFlightBytes ||
      this.slots.length >= this.limits.maxInFlightRequests;
    if (over && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (!over && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** Closes this connection only; pending responses are dropped (the client will retry elsewhere). */
  close(reason: string, level: 'debug' | 'none' = 'debug'): void {
    if (this.closed) return;
    if (level === 'debug') this.logger.debug(`Closing connection ${this.context.connectionId}: ${reason}`);
    this.closed = true;
    if (this.socket.writableLength > 0) {
      // Let responses already written for earlier requests reach the client, then close; never wait long.
      this.socket.end();
      SYSTEM_CLOCK.setTimer(() => this.socket.destroy(), 1000);
    } else {
      this.socket.destroy();
    }
    this.finishClose();
  }

  private finishClose(): void {
    this.closed = true;
    if (this.released) return;
    this.released = true;
    this.slots.length = 0;
    this.onClose(this);
  }
}
