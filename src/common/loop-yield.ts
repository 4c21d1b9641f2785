import { performance } from 'node:perf_hooks';

/**
 * Lets the event loop breathe during a long loop of synchronous work (thousands of logs created for one
 * LeaderAndIsr, say). Kafka runs such work on a request handler thread while its network, ZooKeeper and fetcher
 * threads go on; here everything shares one thread, and a loop that held it for seconds would starve the
 * ZooKeeper client's pings (the session expires), fetches and produce. `maybeYield` resolves at once until
 * `sliceMs` of work have passed since the last pause, then after one turn of the event loop (setImmediate: I/O
 * callbacks run first).
 */
export class LoopYield {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = 10) {}

  async maybeYield(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
