/**
 * Runs tasks one at a time in submission order (VS Code's Sequencer, Kafka's single-threaded sections): a
 * log's appends, truncations and deletions; a ReplicaManager's LeaderAndIsr and StopReplica requests (Kafka's
 * replicaStateChangeLock); a fetcher's log changes; a ZooKeeper consumer's rebalances and commits; a
 * DynamicConfigManager's notifications; a producer's records waiting for metadata. A task's failure rejects only
 * its own promise; the next task runs.
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

  /** Tasks queued or running. */
  get size(): number {
    return this.pending;
  }

  /** Resolves once every task queued so far has settled. */
  async whenIdle(): Promise<void> {
    await this.tail;
  }
}
