import { getLogger } from '../common/logging/logging';
import { Clock, SYSTEM_CLOCK } from '../common/time';

const log = getLogger('kafka.tools.KafkaUi');

export interface RefreshLoopOptions {
  intervalMs: number;
  /** After `hurry()`: the step runs at once, then every `hurryIntervalMs` for `hurryForMs`. */
  hurryIntervalMs?: number;
  hurryForMs?: number;
  clock?: Clock;
}

/**
 * Runs one refresh step after another, `intervalMs` apart (start to start), one at a time. `hurry()` is for a
 * watch that fired: one change in ZooKeeper comes with others close behind (a broker's registration goes, then
 * the controller writes the new leaders and ISRs), so the loop runs at once and then briskly for a while
 * instead of leaving the page a poll interval behind each of them. A failed step is logged and the loop goes on.
 */
export class RefreshLoop {
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly hurryIntervalMs: number;
  private readonly hurryForMs: number;
  private hurryUntil = 0;
  private stopped = false;
  private wake = new AbortController();
  /** Resolves when the loop has exited after `stop()`. */
  readonly done: Promise<void>;

  constructor(
    private readonly step: () => Promise<void>,
    options: RefreshLoopOptions,
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.hurryIntervalMs = options.hurryIntervalMs ?? 250;
    this.hurryForMs = options.hurryForMs ?? 3000;
    this.intervalMs = options.intervalMs;
    this.done = this.run();
  }

  hurry(): void {
    this.hurryUntil = this.clock.nowMs() + this.hurryForMs;
    this.wake.abort();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    return this.done;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const started = this.clock.nowMs();
      // A wake-up during the step is for what the step may have missed: the loop then goes on without a pause.
      const wake = (this.wake = new AbortController());
      await this.step().catch((err: unknown) => log.debug(`Refresh failed: ${(err as Error).message}`));
      if (this.stopped) break;
      const interval = this.clock.nowMs() < this.hurryUntil ? this.hurryIntervalMs : this.intervalMs;
      await this.clock.sleep(Math.max(0, interval - (this.clock.nowMs() - started)), wake.signal);
    }
  }
}
