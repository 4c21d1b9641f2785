import { getLogger } from '../../common/logging/logging';
import { MemoryPool } from './memory-pool';

const log = getLogger('kafka.network.RequestChannel');

/**
 * Kafka's RequestChannel between the network layer and the request handlers: requests read from the sockets wait
 * here (at most queued.max.requests of them) and are handed to the handlers on the next turn of the event loop,
 * in arrival order, after the socket reads of this turn (Node's stand-in for Kafka's request handler threads).
 * While the queue is full the connections stop reading; they resume as it drains. The memory pool of
 * queued.max.request.bytes lives here too, as in Kafka's SocketServer.
 */
export class RequestChannel {
  private queue: (() => void)[] = [];
  private scheduled = false;
  private readonly waitingForRoom = new Set<() => void>();

  constructor(
    private readonly maxQueuedRequests: number,
    readonly memoryPool: MemoryPool,
  ) {}

  get isFull(): boolean {
    return this.queue.length >= this.maxQueuedRequests;
  }

  get queueSize(): number {
    return this.queue.length;
  }

  /** Queues a request's handling; the caller checked `isFull`. */
  send(handle: () => void): void {
    this.queue.push(handle);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  /** `retry` runs once the queue has room again (the connection then reads on). */
  whenNotFull(retry: () => void): void {
    this.waitingForRoom.add(retry);
  }

  forget(retry: () => void): void {
    this.waitingForRoom.delete(retry);
  }

  private drain(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (const handle of batch) {
      try {
        handle();
      } catch (err) {
        // Connections answer their own failures; this is the last line against a bug there.
        log.error('Uncaught error handling a request', err);
      }
    }
    const waiting = [...this.waitingForRoom];
    this.waitingForRoom.clear();
    for (const retry of waiting) retry();
  }
}
