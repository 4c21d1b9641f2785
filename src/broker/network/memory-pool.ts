/**
 * Kafka's SimpleMemoryPool for queued.max.request.bytes: a request's bytes are reserved when its size prefix
 * arrives, before its body is read, and given back when the request is done; a connection whose frame does not
 * fit waits, muted, until enough is released. Reservations are all-or-nothing per frame, so connections never
 * hold part of what they need while waiting for the rest (no deadlock); the bytes themselves are allocated as
 * they arrive, so a slow frame costs memory in proportion to what was received. Unbounded when `capacity` <= 0.
 */
export class MemoryPool {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly capacity: number) {}

  get isBounded(): boolean {
    return this.capacity > 0;
  }

  get availableBytes(): number {
    return this.isBounded ? this.capacity - this.used : Number.POSITIVE_INFINITY;
  }

  /** Reserves `bytes` or returns false. A frame larger than the whole pool is admitted alone, when the pool is empty. */
  tryReserve(bytes: number): boolean {
    if (!this.isBounded) return true;
    if (this.used + bytes > this.capacity && this.used > 0) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    if (!this.isBounded || bytes === 0) return;
    this.used = Math.max(0, this.used - bytes);
    // Everyone waiting retries; those that still do not fit wait again.
    const waiting = this.waiting.splice(0);
    for (const retry of waiting) retry();
  }

  /** `retry` runs once some memory has been released. */
  whenReleased(retry: () => void): void {
    this.waiting.push(retry);
  }
}
