import { getLogger, Logger } from '../common/logging/logging';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { ControllerEvent, ControllerState, controllerStateOf, describeEvent, preempt } from './controller-events';
import type { ControllerStatsObserver } from './controller-stats';

/** What runs the events: the controller. `process` may throw; the manager reports the failure and carries on. */
export interface ControllerEventProcessor {
  process(event: ControllerEvent): Promise<void>;
  /** A failure of `process` (Kafka's KafkaController.process catch blocks). */
  handleError(event: ControllerEvent, error: unknown): Promise<void>;
}

interface QueuedEvent {
  readonly event: ControllerEvent;
  readonly enqueueTimeMs: number;
  /** Set once the event has run or been pre-empted: each happens at most once. */
  spent: boolean;
}

/**
 * One queue, one event at a time (Kafka's ControllerEventManager and its controller-event-thread): ZooKeeper
 * watches and responses only put events; every change to the controller's state happens inside `process`,
 * awaited to the end before the next event starts, so the ControllerContext needs no locks. Events dropped by
 * `clearAndPut` (session expiry) or `shutdown` are pre-empted, so that a caller waiting on one is answered.
 */
export class ControllerEventManager {
  private readonly queue: QueuedEvent[] = [];
  private running = false;
  private closed = false;
  private currentState: ControllerState = 'Idle';
  private idle: Promise<void> = Promise.resolve();
  private wakeIdle: (() => void) | undefined;
  private readonly log: Logger;

  constructor(
    controllerId: number,
    private readonly processor: ControllerEventProcessor,
    private readonly clock: Clock = SYSTEM_CLOCK,
    /** ControllerStats' timers, when metrics are on: every event is timed under its state (Kafka's rateAndTimeMetrics). */
    private readonly stats?: ControllerStatsObserver,
  ) {
    this.log = getLogger('kafka.controller.ControllerEventManager$ControllerEventThread', `[ControllerEventThread controllerId=${controllerId}] `);
  }

  /** The state of the event being processed, Idle between events (Kafka's ControllerEventManager.state). */
  get state(): ControllerState {
    return this.currentState;
  }

  /** Events waiting to run. */
  get queueSize(): number {
    return this.queue.length;
  }

  start(): void {
    this.log.info('Starting');
  }

  put(event: ControllerEvent): void {
    if (this.closed) {
      preempt(event);
      return;
    }
    this.queue.push({ event, enqueueTimeMs: this.clock.nowMs(), spent: false });
    if (!this.running) this.drain();
  }

  /** Pre-empts everything queued and runs `event` next (Kafka's clearAndPut, used on session expiry). */
  clearAndPut(event: ControllerEvent): void {
    this.preemptQueued();
    this.put(event);
  }

  /** Resolves when the queue is empty and no event is running. */
  whenIdle(): Promise<void> {
    return this.running ? this.idle : Promise.resolve();
  }

  private preemptQueued(): void {
    for (const queued of this.queue.splice(0)) {
      if (queued.spent) continue;
      queued.spent = true;
      try {
        preempt(queued.event);
      } catch (err) {
        this.log.error(`Uncaught error pre-empting ${describeEvent(queued.event)}`, err);
      }
    }
  }

  private drain(): void {
    this.running = true;
    this.idle = new Promise((resolve) => (this.wakeIdle = resolve));
    void (async () => {
      while (this.queue.length > 0 && !this.closed) {
        const queued = this.queue.shift() as QueuedEvent;
        if (queued.spent) continue;
        queued.spent = true;
        this.currentState = controllerStateOf(queued.event);
        const started = this.stats === undefined ? 0 : this.clock.hiResClockMs();
        try {
          await this.processor.process(queued.event);
        } catch (err) {
          await this.processor.handleError(queued.event, err).catch((e: unknown) => this.log.error('Uncaught error while handling a failed event', e));
        } finally {
          this.stats?.onEventProcessed(this.currentState, this.clock.hiResClockMs() - started);
          this.currentState = 'Idle';
        }
      }
      this.running = false;
      this.wakeIdle?.();
    })();
  }

  /** Stops taking events; queued ones are pre-empted; resolves once the one in progress (if any) is done. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.preemptQueued();
    await this.whenIdle();
    this.log.info('Shutting down');
    this.log.info('Stopped');
    this.log.info('Shutdown completed');
  }
}
