import fs from 'node:fs';
import path from 'node:path';
import { BIN } from '../../helpers/broker-process';
import { spawnChild } from '../../helpers/child-processes';
import { TestCluster } from '../../helpers/test-cluster';
import { batchesIn } from '../../../src/records';

/** kafka-topics.sh against the cluster's ZooKeeper. */
export async function topicsTool(cluster: TestCluster, ...args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawnChild(BIN('kafka-topics'), ['--zookeeper', cluster.zkConnect, ...args]);
  const exit = await child.exited;
  return { code: exit.code, stdout: child.output() };
}

/** The raw bytes of every batch a broker holds for a partition, read from its segment files, in offset order. */
export function storedBatches(cluster: TestCluster, brokerId: number, topic: string, partition: number): { lastOffset: number; bytes: Buffer }[] {
  const dir = path.join(cluster.broker(brokerId).logDirs[0] as string, `${topic}-${partition}`);
  if (!fs.existsSync(dir)) return [];
  const segments = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();
  return segments.flatMap((f) => batchesIn(fs.readFileSync(path.join(dir, f))).map((b) => ({ lastOffset: b.lastOffset, bytes: Buffer.from(b.bytes()) })));
}

/** The batches below `upTo` (e.g. the high watermark), concatenated. */
export function committedBytes(batches: { lastOffset: number; bytes: Buffer }[], upTo: number): Buffer {
  return Buffer.concat(batches.filter((b) => b.lastOffset < upTo).map((b) => b.bytes));
}

/** With REPLICATION_TEST_LOGS=<dir>, copies each broker's log files there before the cluster's temp dirs go. */
export function keepLogs(cluster: TestCluster, name: string): void {
  const target = process.env['REPLICATION_TEST_LOGS'];
  if (target === undefined || target === '') return;
  for (const [id, b] of cluster.brokers) {
    const dest = path.join(target, name, `broker-${id}`);
    fs.mkdirSync(dest, { recursive: true });
    for (const f of fs.readdirSync(b.logDir)) {
      const src = path.join(b.logDir, f);
      if (fs.statSync(src).isFile()) fs.copyFileSync(src, path.join(dest, f));
    }
  }
}
