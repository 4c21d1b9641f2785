/*
 * The controller's own CPU cost of a failover and a controlled shutdown at SCALE partitions (issue 13), without
 * ZooKeeper or brokers: a real ControllerContext, state machines, request batch and logging (Kafka's stock
 * log4j routing into a temp dir), ZooKeeper faked in memory and the channel recording. What it prints is what the
 * new controller's event loop spends between ZooKeeper answers: `node --import tsx bench/controller-cpu.ts`, with
 * `--cpu-prof` for a profile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeLogging, configureLogging } from '../src/common/logging/logging';
import { tpString } from '../src/common/topic-partition';
import { PartitionStateMachine } from '../src/controller/partition-state-machine';
import { ReplicaStateMachine } from '../src/controller/replica-state-machine';
import { FakeControllerZk } from '../test/helpers/fake-controller-zk';
import { controllerFixture } from '../test/helpers/recording-controller-channel';

const TOPICS = Number(process.env['SCALE_TOPICS'] ?? 100);
const PARTITIONS = Number(process.env['SCALE_PARTITIONS'] ?? 100);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-ts-controller-cpu-'));
configureLogging({ mode: 'server', logDir: dir });

function cpuMs(from: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
}

async function main(): Promise<void> {
  const f = controllerFixture({ controllerId: 0, epoch: 2, liveBrokers: [0, 1] });
  const zk = new FakeControllerZk();
  for (let t = 0; t < TOPICS; t++) {
    const topic = `scale-${String(t).padStart(3, '0')}`;
    f.context.allTopics.add(topic);
    for (let p = 0; p < PARTITIONS; p++) {
      const tp = { topic, partition: p };
      const replicas = [0, 1, 2].map((i) => (p + i) % 3);
      f.context.setReplicas(tp, replicas);
      const state = { leader: replicas[0] as number, leaderEpoch: 0, isr: [...replicas], controllerEpoch: 1 };
      zk.seed(tp, state, 0);
      f.context.leadership.set(tpString(tp), { state: { ...state, isr: [...state.isr] }, zkVersion: 0 });
    }
  }
  const rsm = new ReplicaStateMachine({ controllerId: 0, context: f.context, zk, batch: f.batch });
  const psm = new PartitionStateMachine({ controllerId: 0, context: f.context, zk, batch: f.batch, uncleanLeaderElectionEnabled: async () => false });
  // Failover after broker 2 died: every replica's state, 10,000 ISR removals, the elections of what 2 led.
  let at = process.cpuUsage();
  let wall = Date.now();
  await rsm.startup();
  process.stdout.write(`replica state machine startup: ${cpuMs(at).toFixed(0)} ms CPU, ${Date.now() - wall} ms\n`);
  at = process.cpuUsage();
  wall = Date.now();
  await psm.startup();
  process.stdout.write(`partition state machine startup: ${cpuMs(at).toFixed(0)} ms CPU, ${Date.now() - wall} ms\n`);
  // Controlled shutdown of broker 1 (broker 2 back first): elections for what 1 leads, ISR removals for the rest.
  f.context.liveBrokers.set(2, f.context.liveBrokers.get(0) as never);
  await rsm.handleStateChanges(f.context.allPartitions().map((tp) => ({ tp, replica: 2 })), 'OnlineReplica');
  f.context.shuttingDownBrokerIds.add(1);
  const led = f.context.partitionsLedBy(1);
  const followed = f.context.partitionsOnBroker(1).filter((tp) => f.context.leadership.get(tpString(tp))?.state.leader !== 1);
  at = process.cpuUsage();
  wall = Date.now();
  await psm.handleStateChanges(led, 'OnlinePartition', { kind: 'ControlledShutdownPartitionLeaderElectionStrategy' });
  await rsm.handleStateChanges(followed.map((tp) => ({ tp, replica: 1 })), 'OfflineReplica');
  process.stdout.write(`controlled shutdown (${led.length} led, ${followed.length} followed): ${cpuMs(at).toFixed(0)} ms CPU, ${Date.now() - wall} ms\n`);
  process.stdout.write(`requests sent: ${f.channel.sent.length}\n`);
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    closeLogging();
    setTimeout(() => fs.rmSync(dir, { recursive: true, force: true }), 500);
  });
