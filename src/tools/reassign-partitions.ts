import * as fs from 'node:fs';
import { tpString } from '../common/topic-partition';
import { assignReplicasToBrokers } from '../controller/replica-assignment';
import { AdminZk } from '../zk/admin-zk';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkError } from '../zk/zk-error';
import { ZkPaths } from '../zk/zk-paths';
import { PartitionReassignment, ReassignPartitionsZNode } from '../zk/znodes/admin-znodes';
import { CliError } from './cli';
import {
  BROKER_LEVEL_FOLLOWER_THROTTLE,
  BROKER_LEVEL_LEADER_THROTTLE,
  BROKER_LEVEL_THROTTLES,
  calculateFollowerThrottles,
  calculateLeaderThrottles,
  calculateProposedMoveMap,
  calculateReassigningBrokers,
  clearThrottlesLines,
  TOPIC_LEVEL_FOLLOWER_THROTTLE,
  TOPIC_LEVEL_LEADER_THROTTLE,
  TOPIC_LEVEL_THROTTLES,
  YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE,
} from './reassign-partitions-throttles';

export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not valid JSON`);
  }
}

/**
 * The JSON the tool prints and reads, as Kafka 2.8's ReassignPartitionsCommand writes it
 * (formatAsReassignmentJson): the `/admin/reassign_partitions` layout plus `log_dirs` of "any" (KIP-113), in
 * topic-partition order.
 */
export function formatAssignment(list: readonly PartitionReassignment[]): string {
  const sorted = [...list].sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  return JSON.stringify({
    version: 1,
    partitions: sorted.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas, log_dirs: p.replicas.map(() => 'any') })),
  });
}

async function currentAssignment(admin: AdminZk, topics: Iterable<string>): Promise<PartitionReassignment[]> {
  const result: PartitionReassignment[] = [];
  for (const topic of topics) {
    const a = await admin.getTopicAssignment(topic);
    for (const [partition, replicas] of [...(a?.partitions ?? new Map<number, number[]>())].sort((x, y) => x[0] - y[0])) result.push({ topic, partition, replicas });
  }
  return result;
}

/** `--generate`: proposes moving the given topics onto the given brokers with Kafka's assignment algorithm. */
export async function generateReassignment(zk: ZkClient, topicsFile: string, brokerList: string, out: (l: string) => void): Promise<number> {
  const json = readJsonFile(topicsFile) as { topics?: { topic?: unknown }[] };
  if (!Array.isArray(json.topics) || json.topics.length === 0) throw new CliError(`${topicsFile} must look like {"topics":[{"topic":"foo"}],"version":1}`);
  const topics = json.topics.map((t) => String(t.topic));
  const brokers = brokerList.split(',').map((b) => b.trim());
  if (brokers.some((b) => !/^\d+$/.test(b))) throw new CliError(`Invalid --broker-list ${brokerList}: expected comma-separated broker ids`);
  const ids = [...new Set(brokers.map(Number))];
  const admin = new AdminZk(zk);
  const current = await currentAssignment(admin, topics);
  const proposed: PartitionReassignment[] = [];
  for (const topic of topics) {
    const mine = current.filter((p) => p.topic === topic);
    if (mine.length === 0) throw new CliError(`Topic ${topic} does not exist`);
    const assignment = assignReplicasToBrokers(ids, mine.length, mine[0]?.replicas.length ?? 1);
    for (const [partition, replicas] of assignment) proposed.push({ topic, partition, replicas });
  }
  out('Current partition replica assignment');
  out(formatAssignment(current));
  out('');
  out('Proposed partition reassignment configuration');
  out(formatAssignment(proposed));
  return 0;
}

export function readReassignmentFile(file: string): PartitionReassignment[] {
  const json = readJsonFile(file) as Record<string, unknown>;
  try {
    return ReassignPartitionsZNode.decode(file, Buffer.from(JSON.stringify({ version: 1, ...json })));
  } catch (err) {
    throw new CliError(`Invalid reassignment JSON in ${file}: ${(err as Error).message}`);
  }
}

/**
 * `--execute`: validates the plan and writes /admin/reassign_partitions for the controller; with a throttle
 * (0 or more), first the topics' throttled-replica lists and the brokers' rates, as Kafka 2.8's ZooKeeper form.
 */
export async function executeReassignment(zk: ZkClient, file: string, out: (l: string) => void, throttle = -1): Promise<number> {
  const plan = readReassignmentFile(file);
  if (plan.length === 0) throw new CliError('Partition reassignment data is empty');
  // Kafka 2.8's ZooKeeper form: a log dir move needs the AdminClient.
  if (plan.some((p) => p.logDirs?.some((d) => d !== 'any') === true)) throw new CliError('Error: bootstrap-server needs to be provided when replica reassignments are present.');
  const keys = plan.map((p) => tpString(p));
  const dup = keys.find((k, i) => keys.indexOf(k) !== i);
  if (dup !== undefined) throw new CliError(`Partition reassignment contains duplicate topic partitions: ${dup}`);
  const live = new Set(await new BrokerRegistryZk(zk).getBrokerIds());
  const admin = new AdminZk(zk);
  for (const p of plan) {
    if (p.replicas.length === 0) throw new CliError(`Partition replica list cannot be empty for ${tpString(p)}`);
    if (new Set(p.replicas).size !== p.replicas.length) throw new CliError(`Partition replica lists may not contain duplicate entries: ${tpString(p)}`);
    const unknown = p.replicas.filter((b) => !live.has(b));
    if (unknown.length > 0) throw new CliError(`The proposed assignment contains non-existent brokerIDs: ${unknown.join(',')}`);
    const a = await admin.getTopicAssignment(p.topic);
    if (a === null || !a.partitions.has(p.partition)) throw new CliError(`The proposed assignment contains non-existent partitions: ${tpString(p)}`);
  }
  const current = (await currentAssignment(admin, new Set(plan.map((p) => p.topic)))).filter((c) => keys.includes(tpString(c)));
  out('Current partition replica assignment');
  out('');
  out(formatAssignment(current));
  out('');
  out('Save this to use as the --reassignment-json-file option during rollback');
  if (throttle >= 0) {
    out(YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE);
    const moveMap = calculateProposedMoveMap([], plan, new Map(current.map((c) => [tpString(c), c.replicas])));
    await modifyTopicThrottlesZk(admin, calculateLeaderThrottles(moveMap), calculateFollowerThrottles(moveMap));
    for (const b of calculateReassigningBrokers(moveMap)) {
      const configs = await admin.fetchEntityConfig('brokers', String(b));
      configs.set(BROKER_LEVEL_LEADER_THROTTLE, String(throttle));
      configs.set(BROKER_LEVEL_FOLLOWER_THROTTLE, String(throttle));
      await admin.changeBrokerConfig(b, configs);
    }
    out(`The inter-broker throttle limit was set to ${throttle} B/s`);
  }
  try {
    // Kafka's createPartitionReassignment is a createRecursive: /admin may not exist yet in a fresh chroot.
    await zk.createRecursive(ZkPaths.reassignPartitions, ReassignPartitionsZNode.encode(plan));
  } catch (err) {
    if (err instanceof ZkError && err.code === 'NODEEXISTS') {
      out('There is an existing assignment running.');
      return 1;
    }
    throw err;
  }
  out('Successfully started reassignment of partitions.');
  return 0;
}

/** Kafka's modifyTopicThrottles (ZooKeeper): the lists set into each topic's stored config. */
async function modifyTopicThrottlesZk(admin: AdminZk, leader: ReadonlyMap<string, string>, follower: ReadonlyMap<string, string>): Promise<void> {
  for (const topic of new Set([...leader.keys(), ...follower.keys()])) {
    const configs = await admin.fetchEntityConfig('topics', topic);
    const l = leader.get(topic);
    const f = follower.get(topic);
    if (l !== undefined) configs.set(TOPIC_LEVEL_LEADER_THROTTLE, l);
    if (f !== undefined) configs.set(TOPIC_LEVEL_FOLLOWER_THROTTLE, f);
    await admin.changeTopicConfig(topic, configs);
  }
}

/** Kafka's clearAllThrottles (ZooKeeper): each config rewritten only when it held a throttle. */
async function clearAllThrottlesZk(zk: ZkClient, admin: AdminZk, plan: readonly PartitionReassignment[], out: (l: string) => void): Promise<void> {
  const live = await new BrokerRegistryZk(zk).getBrokerIds();
  const [brokerLine, topicLine] = clearThrottlesLines(live, plan);
  out(brokerLine as string);
  for (const b of new Set([...live, ...plan.flatMap((p) => p.replicas)])) {
    const configs = await admin.fetchEntityConfig('brokers', String(b));
    if (BROKER_LEVEL_THROTTLES.map((k) => configs.delete(k)).some((removed) => removed)) await admin.changeBrokerConfig(b, configs);
  }
  out(topicLine as string);
  for (const topic of new Set(plan.map((p) => p.topic))) {
    const configs = await admin.fetchEntityConfig('topics', topic);
    if (TOPIC_LEVEL_THROTTLES.map((k) => configs.delete(k)).some((removed) => removed)) await admin.changeTopicConfig(topic, configs);
  }
}

/**
 * `--verify`: compares each planned partition with ZooKeeper; in progress while still listed in the admin node.
 * Once none is, the throttles are cleared (unless `preserveThrottles`).
 */
export async function verifyReassignment(zk: ZkClient, file: string, out: (l: string) => void, preserveThrottles = false): Promise<number> {
  const plan = readReassignmentFile(file);
  const admin = new AdminZk(zk);
  const node = await zk.getData(ZkPaths.reassignPartitions);
  let inProgress: string[] = [];
  try {
    inProgress = node === null ? [] : ReassignPartitionsZNode.decode(ZkPaths.reassignPartitions, node.data).map((p) => tpString(p));
  } catch (err) {
    // Kafka's getPartitionReassignment: an unreadable node counts as no reassignment.
    out(`Ignoring partition reassignment due to invalid json: ${(err as Error).message}`);
  }
  const running = new Set(inProgress);
  out('Status of partition reassignment: ');
  let allDone = true;
  for (const p of plan) {
    const tp = tpString(p);
    const actual = (await admin.getTopicAssignment(p.topic))?.partitions.get(p.partition) ?? [];
    if (running.has(tp)) {
      out(`Reassignment of partition ${tp} is still in progress`);
      allDone = false;
    } else if (actual.join(',') === p.replicas.join(',')) {
      out(`Reassignment of partition ${tp} completed successfully`);
    } else {
      out(`Reassignment of partition ${tp} failed`);
      allDone = false;
    }
  }
  if (running.size === 0 && !preserveThrottles) await clearAllThrottlesZk(zk, admin, plan, out);
  return allDone ? 0 : 1;
}
