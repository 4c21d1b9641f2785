import fs from 'node:fs';
import type { Clock } from '../../common/time';

/** Descriptors kept free for the log (segments, indexes, checkpoints) and ZooKeeper when connections pile up. */
export const DESCRIPTOR_RESERVE = 64;

/** How often the count is refreshed at the latest while connections arrive: in time, and in accepts. */
const MAX_CHECK_INTERVAL_MS = 100;
const MAX_ACCEPTS_BETWEEN_CHECKS = 16;

/** Open descriptors of this process and its soft RLIMIT_NOFILE, or undefined where /proc cannot tell. */
export interface DescriptorUsage {
  readonly open: number;
  readonly limit: number;
}

/** Reads the usage from /proc (Linux); undefined elsewhere or when the limit is unlimited. */
export function readDescriptorUsage(): DescriptorUsage | undefined {
  try {
    const limits = fs.readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
    if (soft === undefined || soft === 'unlimited') return undefined;
    return { open: fs.readdirSync('/proc/self/fd').length, limit: Number(soft) };
  } catch {
    return undefined;
  }
}

/**
 * Whether the process can afford another connection. libuv answers EMFILE at accept by accepting and closing
 * the pending connections silently, so the listener never hears of it, while the log, which opens files as it
 * rolls, would meet EMFILE next. Kafka's acceptor meets the IOException and carries on; here the acceptor stops
 * short of the limit instead, keeping DESCRIPTOR_RESERVE descriptors for everything else.
 *
 * Counting /proc/self/fd costs a directory read (tens of microseconds), so the count is refreshed when the accepts
 * since the last count could have used half of the headroom left, and at the latest every
 * MAX_ACCEPTS_BETWEEN_CHECKS accepts or MAX_CHECK_INTERVAL_MS (the limit can change under a running process:
 * prlimit).
 */
export class DescriptorHeadroom {
  private lastFree = 0;
  private lastCheckMs = -Infinity;
  private acceptsSinceCheck = 0;

  constructor(
    private readonly clock: Clock,
    private readonly read: () => DescriptorUsage | undefined = readDescriptorUsage,
    readonly reserve: number = DESCRIPTOR_RESERVE,
  ) {}

  /** Called for each new connection: the usage when too few descriptors are left for it, else undefined. */
  exhausted(): DescriptorUsage | undefined {
    this.acceptsSinceCheck++;
    const now = this.clock.nowMs();
    const due = Math.min(MAX_ACCEPTS_BETWEEN_CHECKS, (this.lastFree - this.reserve) / 2);
    if (this.acceptsSinceCheck < due && now - this.lastCheckMs < MAX_CHECK_INTERVAL_MS) return undefined;
    return this.check(now);
  }

  /** True when connections may be accepted again. */
  recovered(): boolean {
    return this.check(this.clock.nowMs()) === undefined;
  }

  private check(now: number): DescriptorUsage | undefined {
    this.acceptsSinceCheck = 0;
    this.lastCheckMs = now;
    const usage = this.read();
    if (usage === undefined) {
      this.lastFree = Number.MAX_SAFE_INTEGER;
      return undefined;
    }
    this.lastFree = usage.limit - usage.open;
    return this.lastFree <= this.reserve ? usage : undefined;
  }
}
