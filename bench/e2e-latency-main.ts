/**
 * Runs one end-to-end latency measurement in a process of its own, as Kafka's EndToEndLatency tool is: the
 * harness that ran the throughput cases before it has a heap full of their garbage, and its collections would
 * land in this case's tail. Usage: e2e-latency-main.ts <bootstrap> <topic> <records/s> <seconds>; prints JSON.
 */
import { e2eLatency } from './e2e-latency';

async function main(): Promise<void> {
  const [bootstrap, topic, rate, seconds] = process.argv.slice(2);
  if (bootstrap === undefined || topic === undefined) throw new Error('usage: e2e-latency-main.ts <bootstrap> <topic> <records/s> <seconds>');
  const result = await e2eLatency(bootstrap, topic, Number(rate ?? 50000), Number(seconds ?? 20));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
