/**
 * Runs tasks one at a time in submission order (a per-log mutex). A log's appends, truncations and deletions
 * go through one queue so offset assignment and file writes never interleave. A task's failure rejects only its
 * own promise.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(task: () => T | Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(task);
    this.tail = result.then(
      () => this.pending--,
      () => this.pending--,
    );
    return result;
  }

  get size(): number {
    return this.pending;
  }
}
