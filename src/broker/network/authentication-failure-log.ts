import { Logger, getLogger } from '../../common/logging/logging';
import { Clock } from '../../common/time';

const WINDOW_MS = 10_000;
const LINES_PER_WINDOW = 20;

/**
 * Selector's `Failed authentication with /<address> (<reason>)` INFO line, rate-limited: a client retrying a
 * wrong password in a loop (or an attacker) fills the log with at most LINES_PER_WINDOW lines every ten seconds,
 * and the next line after a quiet spell says how many were left out.
 */
export class AuthenticationFailureLog {
  private windowStartMs = -Infinity;
  private lines = 0;
  private suppressed = 0;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger = getLogger('org.apache.kafka.common.network.Selector'),
  ) {}

  failed(socketDescription: string, reason: string): void {
    const now = this.clock.nowMs();
    if (now - this.windowStartMs >= WINDOW_MS) {
      this.windowStartMs = now;
      this.lines = 0;
    }
    if (this.lines >= LINES_PER_WINDOW) {
      this.suppressed++;
      return;
    }
    this.lines++;
    const more = this.suppressed > 0 ? ` (${this.suppressed} more authentication failures not logged)` : '';
    this.suppressed = 0;
    this.logger.info(`Failed authentication with ${socketDescription} (${reason})${more}`);
  }
}
