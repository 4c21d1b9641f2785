import { Clock, TimerHandle } from './time';
import { getLogger } from './logging/logging';

/** A scheduled task: its name and a way to cancel its later runs. */
export interface ScheduledTask {
  readonly name: string;
  cancel(): void;
}

const logger = getLogger('kafka.utils.KafkaScheduler');

interface TaskState {
  readonly name: string;
  timer: TimerHandle | undefined;
  running: Promise<void> | undefined;
  cancelled: boolean;
}

/**
 * Named delayed and periodic tasks (Kafka's KafkaScheduler), driven by a Clock so tests can advance a mock clock
 * instead of sleeping. Periodic tasks run at a fixed rate like `scheduleAtFixedRate`, but never overlap: a run
 * that comes due while the previous run of the same task is still pending is skipped. A task's failure is logged
 * and does not stop later runs. `shutdown()` cancels everything and waits for runs in progress.
 */
export class Scheduler {
  private readonly tasks = new Set<TaskState>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly clock: Clock) {}

  /**
   * Runs `task` after `delayMs`, then every `periodMs` if given (a negative or absent period means once).
   * Periods at or beyond 2^53 (Kafka's Long.MAX "never") schedule nothing after the first delay.
   */
  schedule(name: string, task: () => void | Promise<void>, delayMs: number, periodMs = -1): ScheduledTask {
    if (this.stopped) throw new Error(`Scheduler is shut down; cannot schedule ${name}`);
    const state: TaskState = { name, timer: undefined, running: undefined, cancelled: false };
    this.tasks.add(state);
    const periodic = periodMs >= 0 && periodMs < Number.MAX_SAFE_INTEGER;
    const fire = (): void => {
      if (state.cancelled) return;
      if (periodic) state.timer = this.clock.setTimer(fire, periodMs);
      else this.tasks.delete(state);
      if (state.running !== undefined) {
        logger.debug(`Skipping a run of ${name}: the previous run is still in progress`);
        return;
      }
      const result = this.start(name, task);
      if (result === undefined) return;
      const run = result.finally(() => {
        state.running = undefined;
        this.inFlight.delete(run);
      });
      state.running = run;
      this.inFlight.add(run);
    };
    if (delayMs < Number.MAX_SAFE_INTEGER) state.timer = this.clock.setTimer(fire, delayMs);
    return {
      name,
      cancel: () => {
        state.cancelled = true;
        state.timer?.cancel();
        this.tasks.delete(state);
      },
    };
  }

  /** Resolves once no task run is in progress (runs started while waiting are waited for too). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Names of the tasks still scheduled (pending one-shots and live periodic tasks). */
  taskNames(): string[] {
    return [...this.tasks].map((t) => t.name);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const state of this.tasks) {
      state.cancelled = true;
      state.timer?.cancel();
    }
    this.tasks.clear();
    await this.idle();
  }

  /** Runs the task; returns a promise only if it is still running (it returned one). Failures are logged. */
  private start(name: string, task: () => void | Promise<void>): Promise<void> | undefined {
    if (logger.isTraceEnabled()) logger.trace(`Beginning execution of scheduled task '${name}'.`);
    let result: void | Promise<void>;
    try {
      result = task();
    } catch (err) {
      logger.error(`Uncaught exception in scheduled task '${name}'`, err);
      return undefined;
    }
    if (result === undefined || typeof (result as Promise<void>).then !== 'function') return undefined;
    return Promise.resolve(result).then(
      () => undefined,
      (err: unknown) => logger.error(`Uncaught exception in scheduled task '${name}'`, err),
    );
  }
}
