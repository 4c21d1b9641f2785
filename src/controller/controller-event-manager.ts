import { getLogger, Logger } from '../common/logging/logging';

export interface QueuedEvent {
  readonly name: string;
  /** Runs the event; nothing else touches the controller's state while it runs. */
  process(): Promise<void>;
}

/**
 * One queue, one event at a time (Kafka's ControllerEventManager and its controller-event-thread): ZooKeeper
 * watches and responses only enqueue; every change to the controller's state happens inside `process`,
 * awaited to the end before the next event starts, so the ControllerContext needs no locks.
 */
export class ControllerEventManager {
  private readonly queue: QueuedEvent[] = [];
  private running = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private wakeIdle: (() => void) | undefined;
  private readonly log: Logger;

  constructor(
    controllerId: number,
    private readonly onError: (event: QueuedEvent, err: unknown) => Promise<void>,
  ) {
    this.log = getLogger('kafka.controller.ControllerEventManager$ControllerEventThread', `[ControllerEventThread controllerId=${controllerId}] `);
  }

  start(): void {
    this.log.info('Starting');
  }

  put(event: QueuedEvent): void {
    if (this.closed) return;
    this.queue.push(event);
    if (!this.running) this.drain();
  }

  /** Drops everything queued and runs `event` next (Kafka's clearAndPut, used on session expiry). */
  clearAndPut(event: QueuedEvent): void {
    this.queue.length = 0;
    this.put(event);
  }

  /** Resolves when the queue is empty and no event is running. */
  whenIdle(): Promise<void> {
    return this.running ? this.idle : Promise.resolve();
  }

  private drain(): void {
    this.running = true;
    this.idle = new Promise((resolve) => (this.wakeIdle = resolve));
    void (async () => {
      while (this.queue.length > 0 && !this.closed) {
        const event = this.queue.shift() as QueuedEvent;
        try {
          await event.process();
        } catch (err) {
          await this.onError(event, err).catch((e: unknown) => this.log.error('Uncaught error while handling a failed event', e));
        }
      }
      this.running = false;
      this.wakeIdle?.();
    })();
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    await this.whenIdle();
    this.log.info('Shutting down');
    this.log.info('Stopped');
    this.log.info('Shutdown completed');
  }
}
