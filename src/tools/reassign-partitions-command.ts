import { NetworkClient } from '../client/network-client';
import { ErrorCode } from '../common/error-codes';
import { TopicPartition, tpString } from '../common/topic-partition';
import { assignReplicasToBrokers } from '../controller/replica-assignment';
import { AlterPartitionReassignmentsApi } from '../protocol/apis/alter-partition-reassignments';
import { ListPartitionReassignmentsApi, OngoingPartitionReassignment } from '../protocol/apis/list-partition-reassignments';
import { AlterReplicaLogDirsApi } from '../protocol/apis/alter-replica-log-dirs';
import { DescribeLogDirsApi } from '../protocol/apis/describe-log-dirs';
import { IncrementalAlterConfigsApi } from '../protocol/apis/incremental-alter-configs';
import {
  BROKER_LEVEL_FOLLOWER_THROTTLE,
  BROKER_LEVEL_LEADER_THROTTLE,
  BROKER_LEVEL_LOG_DIR_THROTTLE,
  BROKER_LEVEL_THROTTLES,
  calculateFollowerThrottles,
  calculateLeaderThrottles,
  calculateProposedMoveMap,
  calculateReassigningBrokers,
  compareReplicas,
  logDirMoves,
  ReplicaLogDirInfo,
  replicaMoveStatesLines,
  replicaString,
  TOPIC_LEVEL_FOLLOWER_THROTTLE,
  TOPIC_LEVEL_LEADER_THROTTLE,
  TOPIC_LEVEL_THROTTLES,
  TopicPartitionReplica,
  YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE,
  clearThrottlesLines,
} from './reassign-partitions-throttles';

export { clearThrottlesLines };
import { PartitionReassignment } from '../zk/znodes/admin-znodes';
import { adminClientOptions } from './admin-client-config';
import { CliError } from './cli';
import { defaultErrorMessage, exceptionClassFor } from './java-rendering';
import { formatAssignment, readJsonFile, readReassignmentFile } from './reassign-partitions';

/** The options of Kafka 2.8's ReassignPartitionsCommand, as parsed. */
export interface ReassignOptions {
  bootstrapServer?: string;
  zookeeper?: string;
  commandConfig?: string;
  generate?: boolean;
  execute?: boolean;
  verify?: boolean;
  cancel?: boolean;
  list?: boolean;
  topicsToMoveJsonFile?: string;
  brokerList?: string;
  reassignmentJsonFile?: string;
  disableRackAware?: boolean;
  throttle?: string;
  replicaAlterLogDirsThrottle?: string;
  timeout?: string;
  additional?: boolean;
  preserveThrottles?: boolean;
}

type Action = 'generate' | 'execute' | 'verify' | 'cancel' | 'list';
type Arg = Exclude<keyof ReassignOptions, Action>;

/** ConfigResource.Type ids. */
const RESOURCE_TOPIC = 2;
const RESOURCE_BROKER = 4;

const ACTIONS: readonly Action[] = ['generate', 'execute', 'verify', 'cancel', 'list'];

/** joptsimple's names for the options, as Kafka's messages print them (`[reassignment-json-file]`). */
const OPTION_NAMES: Record<Arg | Action, string> = {
  bootstrapServer: 'bootstrap-server',
  zookeeper: 'zookeeper',
  commandConfig: 'command-config',
  generate: 'generate',
  execute: 'execute',
  verify: 'verify',
  cancel: 'cancel',
  list: 'list',
  topicsToMoveJsonFile: 'topics-to-move-json-file',
  brokerList: 'broker-list',
  reassignmentJsonFile: 'reassignment-json-file',
  disableRackAware: 'disable-rack-aware',
  throttle: 'throttle',
  replicaAlterLogDirsThrottle: 'replica-alter-log-dirs-throttle',
  timeout: 'timeout',
  additional: 'additional',
  preserveThrottles: 'preserve-throttles',
};

const REQUIRED: Record<Action, readonly Arg[]> = {
  verify: ['reassignmentJsonFile'],
  generate: ['topicsToMoveJsonFile', 'brokerList'],
  execute: ['reassignmentJsonFile'],
  cancel: ['reassignmentJsonFile'],
  list: [],
};

const PERMITTED: Record<Action, readonly Arg[]> = {
  verify: ['bootstrapServer', 'commandConfig', 'preserveThrottles', 'zookeeper'],
  generate: ['bootstrapServer', 'brokerList', 'commandConfig', 'disableRackAware', 'zookeeper'],
  execute: ['additional', 'bootstrapServer', 'commandConfig', 'throttle', 'replicaAlterLogDirsThrottle', 'timeout', 'zookeeper'],
  cancel: ['bootstrapServer', 'commandConfig', 'preserveThrottles', 'timeout'],
  list: ['bootstrapServer', 'commandConfig'],
};

const BOOTSTRAP_ONLY: readonly (Arg | Action)[] = ['additional', 'cancel', 'commandConfig', 'replicaAlterLogDirsThrottle', 'list', 'timeout'];

export const CANNOT_EXECUTE_BECAUSE_OF_EXISTING =
  'Cannot execute because there is an existing partition assignment.  Use --additional to override this and create a new partition assignment in addition to the existing one. The --additional flag can also be used to change the throttle by resubmitting the current reassignment.';

/**
 * Kafka's validateAndParseArgs: exactly one action, --bootstrap-server or --zookeeper, the action's required
 * arguments and no argument it does not take; without --bootstrap-server, none of the KIP-455 options.
 */
export function checkReassignArgs(o: ReassignOptions): Action {
  const given = ACTIONS.filter((a) => o[a] === true);
  if (given.length !== 1) throw new CliError(`Command must include exactly one action: ${ACTIONS.map((a) => `--${a}`).join(', ')}`);
  const action = given[0] as Action;
  if (o.zookeeper === undefined && o.bootstrapServer === undefined) throw new CliError('Please specify --bootstrap-server');
  for (const arg of REQUIRED[action]) if (o[arg] === undefined) throw new CliError(`Missing required argument "[${OPTION_NAMES[arg]}]"`);
  for (const key of Object.keys(OPTION_NAMES) as (Arg | Action)[]) {
    if (key === action || o[key] === undefined || o[key] === false) continue;
    if (!(REQUIRED[action] as readonly string[]).includes(key) && !(PERMITTED[action] as readonly string[]).includes(key)) {
      throw new CliError(`Option "[${OPTION_NAMES[key]}]" can't be used with action "[${action}]"`);
    }
  }
  if (o.bootstrapServer === undefined) {
    for (const key of BOOTSTRAP_ONLY) {
      if (o[key] !== undefined && o[key] !== false) throw new CliError(`Exception in thread "main" java.lang.RuntimeException: You must specify --bootstrap-server when using "[${OPTION_NAMES[key]}]"`);
    }
  }
  for (const [key, value] of [['throttle', o.throttle], ['replicaAlterLogDirsThrottle', o.replicaAlterLogDirsThrottle], ['timeout', o.timeout]] as const) {
    if (value !== undefined && !/^-?\d+$/.test(value)) throw new CliError(`Exception in thread "main" joptsimple.OptionArgumentConversionException: Cannot parse argument '${value}' of option ${OPTION_NAMES[key]}`);
  }
  return action;
}

/** Kafka's parseExecuteAssignmentArgs checks, in its order and words. */
export function checkExecutePlan(plan: readonly PartitionReassignment[]): void {
  if (plan.length === 0) throw new CliError('Error: Partition reassignment list cannot be empty');
  if (plan.some((p) => p.replicas.length === 0)) throw new CliError('Error: Partition replica list cannot be empty');
  const keys = plan.map(tpString);
  const dupParts = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
  if (dupParts.length > 0) throw new CliError(`Error: Partition reassignment contains duplicate topic partitions: ${dupParts.join(',')}`);
  const dupReplicas = plan
    .map((p) => ({ tp: tpString(p), dups: [...new Set(p.replicas.filter((r, i) => p.replicas.indexOf(r) !== i))] }))
    .filter((d) => d.dups.length > 0);
  if (dupReplicas.length > 0) {
    throw new CliError(`Error: Partition replica lists may not contain duplicate entries: ${dupReplicas.map((d) => `${d.tp} contains multiple entries for ${d.dups.join(',')}`).join('. ')}`);
  }
  checkLogDirs(plan);
}

/** Kafka's parsePartitionReassignmentData: a partition's log_dirs, when given, name one dir (or "any") per replica. */
function checkLogDirs(plan: readonly PartitionReassignment[]): void {
  for (const p of plan) {
    if (p.logDirs !== undefined && p.logDirs.length !== p.replicas.length) {
      throw new CliError(`Error: Size of replicas list ${scalaList(p.replicas)} is different from size of log dirs list ${scalaList(p.logDirs)} for partition ${tpString(p)}`);
    }
  }
}


function scalaList(values: readonly (number | string)[]): string {
  return `List(${values.join(', ')})`;
}

/** Kafka's PartitionReassignmentState: the replicas now, the target, and whether no reassignment is active. */
export interface PartitionReassignmentState {
  readonly tp: TopicPartition;
  readonly currentReplicas: readonly number[];
  readonly targetReplicas: readonly number[];
  readonly done: boolean;
}

function compareTp(a: TopicPartition, b: TopicPartition): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}

/** Kafka's partitionReassignmentStatesToString. */
export function renderReassignmentStates(states: readonly PartitionReassignmentState[]): string[] {
  const lines = ['Status of partition reassignment:'];
  for (const s of [...states].sort((a, b) => compareTp(a.tp, b.tp))) {
    if (!s.done) lines.push(`Reassignment of partition ${tpString(s.tp)} is still in progress.`);
    else if (s.currentReplicas.join(',') === s.targetReplicas.join(',')) lines.push(`Reassignment of partition ${tpString(s.tp)} is complete.`);
    else lines.push(`There is no active reassignment of partition ${tpString(s.tp)}, but replica set is ${s.currentReplicas.join(',')} rather than ${s.targetReplicas.join(',')}.`);
  }
  return lines;
}

export interface ListedReassignment extends OngoingPartitionReassignment {
  readonly topic: string;
}

/** Kafka's curReassignmentsToString (--list). */
export function renderCurrentReassignments(list: readonly ListedReassignment[]): string[] {
  if (list.length === 0) return ['No partition reassignments found.'];
  const lines = ['Current partition reassignments:'];
  for (const r of [...list].sort((a, b) => compareTp({ topic: a.topic, partition: a.partitionIndex }, { topic: b.topic, partition: b.partitionIndex }))) {
    const adding = r.addingReplicas.length === 0 ? '' : ` adding: ${r.addingReplicas.join(',')}.`;
    const removing = r.removingReplicas.length === 0 ? '' : ` removing: ${r.removingReplicas.join(',')}.`;
    lines.push(`${r.topic}-${r.partitionIndex}: replicas: ${r.replicas.join(',')}.${adding}${removing}`);
  }
  return lines;
}

/** Kafka's currentPartitionReplicaAssignmentToString: the rollback JSON of the partitions the plan moves. */
export function currentAssignmentLines(current: readonly PartitionReassignment[]): string[] {
  return ['Current partition replica assignment', '', formatAssignment(current), '', 'Save this to use as the --reassignment-json-file option during rollback'];
}

/** "s" unless there is exactly one (Kafka's `if (size == 1) "" else "s"`). */
function plural(n: number): string {
  return n === 1 ? '' : 's';
}


/** The partitions' errors as Kafka's tool lists them: `t-0: <exception message>`, in partition order. */
function errorLines(errors: readonly { tp: TopicPartition; errorCode: number; errorMessage: string | null }[]): string {
  return [...errors]
    .sort((a, b) => compareTp(a.tp, b.tp))
    .map((e) => `${tpString(e.tp)}: ${e.errorMessage ?? defaultErrorMessage(e.errorCode)}`)
    .join('\n');
}

/** The AdminClient's calls the tool makes, over kafka-ts's NetworkClient. */
class ReassignAdmin {
  constructor(private readonly client: NetworkClient) {}

  /** Controller-bound requests are retried while the controller moves (Kafka's handleNotControllerError). */
  private async toController<T extends { errorCode: number }>(send: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const response = await send();
      if (response.errorCode !== ErrorCode.NOT_CONTROLLER.code || attempt >= 5) return response;
      await this.client.refreshMetadata();
    }
  }

  private topLevel(errorCode: number): CliError {
    return new CliError(`Error: ${exceptionClassFor(errorCode)}: ${defaultErrorMessage(errorCode)}`);
  }

  async listReassignments(partitions: readonly TopicPartition[] | null): Promise<ListedReassignment[]> {
    const topics = partitions === null ? null : groupByTopic(partitions).map(([name, indexes]) => ({ name, partitionIndexes: indexes }));
    const response = await this.toController(() => this.client.request('controller', ListPartitionReassignmentsApi, { timeoutMs: 30000, topics }));
    if (response.errorCode !== ErrorCode.NONE.code) throw this.topLevel(response.errorCode);
    return response.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, ...p })));
  }

  /** Target replicas per partition, or null to cancel; resolves with the partitions that failed. */
  async alterReassignments(entries: readonly { tp: TopicPartition; replicas: number[] | null }[]): Promise<{ tp: TopicPartition; errorCode: number; errorMessage: string | null }[]> {
    const byTopic = new Map<string, { partitionIndex: number; replicas: number[] | null }[]>();
    for (const e of entries) {
      let list = byTopic.get(e.tp.topic);
      if (!list) byTopic.set(e.tp.topic, (list = []));
      list.push({ partitionIndex: e.tp.partition, replicas: e.replicas });
    }
    const topics = [...byTopic].map(([name, partitions]) => ({ name, partitions }));
    const response = await this.toController(() => this.client.request('controller', AlterPartitionReassignmentsApi, { timeoutMs: 30000, topics }));
    if (response.errorCode !== ErrorCode.NONE.code) throw this.topLevel(response.errorCode);
    const errors = response.responses.flatMap((t) => t.partitions.map((p) => ({ tp: { topic: t.name, partition: p.partitionIndex }, errorCode: p.errorCode, errorMessage: p.errorMessage })));
    return errors.filter((e) => e.errorCode !== ErrorCode.NONE.code);
  }

  /**
   * incrementalAlterConfigs(...).all().get(): BROKER resources go to their broker, TOPIC ones to any; the first
   * failure ends the tool with its exception.
   */
  async incrementalAlterConfigs(resources: readonly { type: 'broker' | 'topic'; name: string; ops: readonly { name: string; value: string | null; op: 'set' | 'delete' }[] }[]): Promise<void> {
    const toRequest = (r: (typeof resources)[number]): { resourceType: number; resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] } => ({
      resourceType: r.type === 'broker' ? RESOURCE_BROKER : RESOURCE_TOPIC,
      resourceName: r.name,
      configs: r.ops.map((o) => ({ name: o.name, configOperation: o.op === 'set' ? 0 : 1, value: o.value })),
    });
    const topics = resources.filter((r) => r.type === 'topic');
    const calls: Promise<{ responses: { errorCode: number; errorMessage: string | null }[] }>[] = resources
      .filter((r) => r.type === 'broker')
      .map((r) => this.client.request(Number(r.name), IncrementalAlterConfigsApi, { resources: [toRequest(r)], validateOnly: false }));
    if (topics.length > 0) calls.push(this.client.request('any', IncrementalAlterConfigsApi, { resources: topics.map(toRequest), validateOnly: false }));
    for (const response of await Promise.all(calls)) {
      const failed = response.responses.find((r) => r.errorCode !== ErrorCode.NONE.code);
      if (failed !== undefined) throw new CliError(`Error: ${exceptionClassFor(failed.errorCode)}: ${failed.errorMessage ?? defaultErrorMessage(failed.errorCode)}`);
    }
  }

  /**
   * alterReplicaLogDirs: one request per broker; resolves with the replicas whose move started (Kafka's tool
   * leaves out REPLICA_NOT_AVAILABLE ones, not there yet, to retry; any other error ends it).
   */
  async alterReplicaLogDirs(moves: readonly { replica: TopicPartitionReplica; logDir: string }[]): Promise<TopicPartitionReplica[]> {
    const byBroker = new Map<number, { replica: TopicPartitionReplica; logDir: string }[]>();
    for (const m of moves) {
      let list = byBroker.get(m.replica.brokerId);
      if (list === undefined) byBroker.set(m.replica.brokerId, (list = []));
      list.push(m);
    }
    const started: TopicPartitionReplica[] = [];
    for (const [brokerId, list] of byBroker) {
      const dirs = new Map<string, Map<string, number[]>>();
      for (const m of list) {
        let topics = dirs.get(m.logDir);
        if (topics === undefined) dirs.set(m.logDir, (topics = new Map()));
        let parts = topics.get(m.replica.topic);
        if (parts === undefined) topics.set(m.replica.topic, (parts = []));
        parts.push(m.replica.partition);
      }
      const request = { dirs: [...dirs].map(([path, topics]) => ({ path, topics: [...topics].map(([name, partitions]) => ({ name, partitions })) })) };
      const response = await this.client.request(brokerId, AlterReplicaLogDirsApi, request);
      for (const t of response.results) {
        for (const p of t.partitions) {
          const replica = { topic: t.topicName, partition: p.partitionIndex, brokerId };
          if (p.errorCode === ErrorCode.NONE.code) started.push(replica);
          else if (p.errorCode !== ErrorCode.REPLICA_NOT_AVAILABLE.code) {
            throw new CliError(`Error: Failed to alter dir for ${replicaString(replica)}: ${exceptionClassFor(p.errorCode)}: ${defaultErrorMessage(p.errorCode)}`);
          }
        }
      }
    }
    return started;
  }

  /** describeReplicaLogDirs: each replica's current and future log dir, from DescribeLogDirs to its broker. */
  async describeReplicaLogDirs(replicas: readonly TopicPartitionReplica[]): Promise<Map<string, ReplicaLogDirInfo>> {
    const result = new Map<string, ReplicaLogDirInfo>();
    const brokers = [...new Set(replicas.map((r) => r.brokerId))];
    for (const brokerId of brokers) {
      const mine = replicas.filter((r) => r.brokerId === brokerId);
      const topics = groupByTopic(mine.map((r) => ({ topic: r.topic, partition: r.partition }))).map(([topic, partitionIndex]) => ({ topic, partitionIndex }));
      const response = await this.client.request(brokerId, DescribeLogDirsApi, { topics });
      const infos = new Map<string, { current: string | null; future: string | null }>();
      for (const dir of response.results) {
        if (dir.errorCode !== ErrorCode.NONE.code) continue;
        for (const t of dir.topics) {
          for (const p of t.partitions) {
            const key = replicaString({ topic: t.name, partition: p.partitionIndex, brokerId });
            const info = infos.get(key) ?? { current: null, future: null };
            if (p.isFutureKey) info.future = dir.logDir;
            else info.current = dir.logDir;
            infos.set(key, info);
          }
        }
      }
      for (const [key, info] of infos) result.set(key, info);
    }
    return result;
  }

  async liveBrokers(): Promise<number[]> {
    await this.client.refreshMetadata([]);
    return [...this.client.metadata.brokers.keys()];
  }

  /**
   * describeTopics: each topic's partitions and replicas; a topic that does not exist is null (the caller decides
   * between Kafka's "Topic t not found." and an empty replica set).
   */
  async describeTopics(topics: readonly string[]): Promise<Map<string, Map<number, number[]> | null>> {
    const result = new Map<string, Map<number, number[]> | null>();
    if (topics.length === 0) return result;
    await this.client.refreshMetadata([...topics]);
    for (const topic of topics) {
      const info = this.client.metadata.topics.get(topic);
      if (info === undefined || info.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code) result.set(topic, null);
      else if (info.errorCode !== ErrorCode.NONE.code) throw new CliError(`Error: ${exceptionClassFor(info.errorCode)}: ${defaultErrorMessage(info.errorCode)}`);
      else result.set(topic, new Map(info.partitions.map((p) => [p.partition, [...p.replicas]])));
    }
    return result;
  }

  /** Kafka's describeTopics helper of the tool: a missing topic ends it with UnknownTopicOrPartitionException. */
  async replicaAssignmentFor(topics: readonly string[]): Promise<Map<string, Map<number, number[]>>> {
    const described = await this.describeTopics(topics);
    const result = new Map<string, Map<number, number[]>>();
    for (const [topic, partitions] of described) {
      if (partitions === null) throw new CliError(`Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic ${topic} not found.`);
      result.set(topic, partitions);
    }
    return result;
  }
}

function groupByTopic(partitions: readonly TopicPartition[]): [string, number[]][] {
  const byTopic = new Map<string, number[]>();
  for (const tp of partitions) {
    let list = byTopic.get(tp.topic);
    if (!list) byTopic.set(tp.topic, (list = []));
    if (!list.includes(tp.partition)) list.push(tp.partition);
  }
  return [...byTopic];
}

function flatten(assignment: Map<string, Map<number, number[]>>): PartitionReassignment[] {
  return [...assignment].flatMap(([topic, partitions]) => [...partitions].map(([partition, replicas]) => ({ topic, partition, replicas })));
}

/** --generate: Kafka's assignment of the topics' partitions onto the listed brokers that exist. */
async function generate(admin: ReassignAdmin, o: ReassignOptions, out: (l: string) => void): Promise<number> {
  const brokerList = (o.brokerList as string).split(',');
  if (brokerList.some((b) => !/^-?\d+$/.test(b.trim()))) {
    const bad = brokerList.find((b) => !/^-?\d+$/.test(b.trim())) ?? '';
    throw new CliError(`Error: For input string: "${bad}"`);
  }
  const brokers = brokerList.map((b) => Number(b.trim()));
  const dupBrokers = [...new Set(brokers.filter((b, i) => brokers.indexOf(b) !== i))];
  if (dupBrokers.length > 0) throw new CliError(`Error: Broker list contains duplicate entries: ${dupBrokers.join(',')}`);
  const json = readJsonFile(o.topicsToMoveJsonFile as string) as { topics?: { topic?: unknown }[]; version?: unknown };
  if (json.version !== undefined && json.version !== 1) throw new CliError(`Error: Not supported version field value ${String(json.version)}`);
  const topics = Array.isArray(json.topics) ? json.topics.map((t) => String(t.topic)) : [];
  const dupTopics = [...new Set(topics.filter((t, i) => topics.indexOf(t) !== i))];
  if (dupTopics.length > 0) throw new CliError(`Error: List of topics to reassign contains duplicate entries: ${dupTopics.join(',')}`);
  const current = await admin.replicaAssignmentFor(topics);
  // Kafka's getBrokerMetadata: only the listed brokers the cluster has.
  const live = new Set(await admin.liveBrokers());
  const usable = brokers.filter((b) => live.has(b));
  const proposed: PartitionReassignment[] = [];
  for (const [topic, partitions] of current) {
    const first = [...partitions.values()][0];
    if (first === undefined) continue;
    let assignment: Map<number, number[]>;
    try {
      assignment = assignReplicasToBrokers(usable, partitions.size, first.length);
    } catch (err) {
      throw new CliError(`Error: ${(err as Error).message}`);
    }
    for (const [partition, replicas] of assignment) proposed.push({ topic, partition, replicas });
  }
  out('Current partition replica assignment');
  out(formatAssignment(flatten(current)));
  out('');
  out('Proposed partition reassignment configuration');
  out(formatAssignment(proposed));
  return 0;
}

/** --execute: AlterPartitionReassignments for the plan, after the rollback JSON. */
async function execute(admin: ReassignAdmin, o: ReassignOptions, out: (l: string) => void): Promise<number> {
  const plan = readReassignmentFile(o.reassignmentJsonFile as string);
  checkExecutePlan(plan);
  const ongoing = await admin.listReassignments(null);
  if (o.additional !== true && ongoing.length > 0) throw new CliError(CANNOT_EXECUTE_BECAUSE_OF_EXISTING);
  const live = new Set(await admin.liveBrokers());
  const unknown = [...new Set(plan.flatMap((p) => p.replicas))].find((b) => !live.has(b));
  if (unknown !== undefined) throw new CliError(`Error: Unknown broker id ${unknown}`);
  const assignment = await admin.replicaAssignmentFor([...new Set(plan.map((p) => p.topic))]);
  const keys = new Set(plan.map(tpString));
  const current = flatten(assignment).filter((p) => keys.has(tpString(p)));
  for (const line of currentAssignmentLines(current)) out(line);
  const interBrokerThrottle = o.throttle === undefined ? -1 : Number(o.throttle);
  const logDirThrottle = o.replicaAlterLogDirsThrottle === undefined ? -1 : Number(o.replicaAlterLogDirsThrottle);
  const moves = logDirMoves(plan);
  if (interBrokerThrottle >= 0 || logDirThrottle >= 0) {
    out(YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE);
    if (interBrokerThrottle >= 0) {
      const currentParts = new Map(current.map((c) => [tpString(c), c.replicas]));
      const ongoingMoves = ongoing.map((r) => ({ tp: { topic: r.topic, partition: r.partitionIndex }, replicas: r.replicas, addingReplicas: r.addingReplicas }));
      await modifyReassignmentThrottle(admin, calculateProposedMoveMap(ongoingMoves, plan, currentParts), interBrokerThrottle, out);
    }
    if (logDirThrottle >= 0) {
      // Kafka's calculateMovingBrokers: the brokers of the replicas given a log dir.
      const movingBrokers = [...new Set(moves.map((m) => m.replica.brokerId))];
      await admin.incrementalAlterConfigs(movingBrokers.map((b) => ({ type: 'broker', name: String(b), ops: [{ name: BROKER_LEVEL_LOG_DIR_THROTTLE, value: String(logDirThrottle), op: 'set' }] })));
      out(`The replica-alter-dir throttle limit was set to ${logDirThrottle} B/s`);
    }
  }
  const errors = await admin.alterReassignments(plan.map((p) => ({ tp: { topic: p.topic, partition: p.partition }, replicas: p.replicas })));
  if (errors.length > 0) throw new CliError(`Error reassigning partition(s):\n${errorLines(errors)}`);
  const started = [...plan].sort(compareTp).map(tpString);
  out(`Successfully started partition reassignment${plural(plan.length)} for ${started.join(',')}`);
  if (moves.length > 0) await executeMoves(admin, moves, o.timeout === undefined ? 10000 : Number(o.timeout), out);
  return 0;
}

/**
 * Kafka's modifyReassignmentThrottle: the topics' leader and follower throttled-replica lists from the move map,
 * then both broker rates on every broker a move reads from or writes to.
 */
async function modifyReassignmentThrottle(admin: ReassignAdmin, moveMap: ReturnType<typeof calculateProposedMoveMap>, throttle: number, out: (l: string) => void): Promise<void> {
  const leader = calculateLeaderThrottles(moveMap);
  const follower = calculateFollowerThrottles(moveMap);
  const topics = [...new Set([...leader.keys(), ...follower.keys()])];
  await admin.incrementalAlterConfigs(
    topics.map((t) => ({
      type: 'topic' as const,
      name: t,
      ops: [
        ...(leader.has(t) ? [{ name: TOPIC_LEVEL_LEADER_THROTTLE, value: leader.get(t) as string, op: 'set' as const }] : []),
        ...(follower.has(t) ? [{ name: TOPIC_LEVEL_FOLLOWER_THROTTLE, value: follower.get(t) as string, op: 'set' as const }] : []),
      ],
    })),
  );
  const value = String(throttle);
  await admin.incrementalAlterConfigs(
    calculateReassigningBrokers(moveMap).map((b) => ({
      type: 'broker' as const,
      name: String(b),
      ops: [
        { name: BROKER_LEVEL_LEADER_THROTTLE, value, op: 'set' as const },
        { name: BROKER_LEVEL_FOLLOWER_THROTTLE, value, op: 'set' as const },
      ],
    })),
  );
  out(`The inter-broker throttle limit was set to ${throttle} B/s`);
}

/**
 * Kafka's executeMoves: AlterReplicaLogDirs for the replicas given a log dir, retried every 100 ms for those not
 * on their broker yet (REPLICA_NOT_AVAILABLE, the reassignment still adding them) until --timeout.
 */
async function executeMoves(admin: ReassignAdmin, moves: readonly { replica: TopicPartitionReplica; logDir: string }[], timeoutMs: number, out: (l: string) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...moves];
  for (;;) {
    const completed = await admin.alterReplicaLogDirs(pending);
    if (completed.length > 0) {
      out(`Successfully started log directory move${plural(completed.length)} for: ${[...completed].sort(compareReplicas).map(replicaString).join(',')}`);
    }
    const done = new Set(completed.map(replicaString));
    pending = pending.filter((m) => !done.has(replicaString(m.replica)));
    if (pending.length === 0) return;
    if (Date.now() >= deadline) {
      throw new CliError(`Timed out before log directory move${plural(pending.length)} could be started for: ${pending.map((m) => m.replica).sort(compareReplicas).map(replicaString).join(',')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Kafka's clearAllThrottles: the three broker rates off the live and planned brokers, the two lists off the topics. */
async function clearAllThrottles(admin: ReassignAdmin, plan: readonly PartitionReassignment[], out: (l: string) => void): Promise<void> {
  const live = await admin.liveBrokers();
  const [brokerLine, topicLine] = clearThrottlesLines(live, plan);
  const brokers = [...new Set([...live, ...plan.flatMap((p) => p.replicas)])];
  out(brokerLine as string);
  await admin.incrementalAlterConfigs(brokers.map((b) => ({ type: 'broker', name: String(b), ops: BROKER_LEVEL_THROTTLES.map((name) => ({ name, value: null, op: 'delete' })) })));
  out(topicLine as string);
  const topics = [...new Set(plan.map((p) => p.topic))];
  await admin.incrementalAlterConfigs(topics.map((t) => ({ type: 'topic', name: t, ops: TOPIC_LEVEL_THROTTLES.map((name) => ({ name, value: null, op: 'delete' })) })));
}

/** --verify: each planned partition's state; the throttles are cleared once nothing is moving. */
async function verify(admin: ReassignAdmin, o: ReassignOptions, out: (l: string) => void): Promise<number> {
  const plan = readReassignmentFile(o.reassignmentJsonFile as string);
  checkLogDirs(plan);
  const ongoing = await admin.listReassignments(null);
  const byTp = new Map(ongoing.map((r) => [`${r.topic}-${r.partitionIndex}`, r]));
  const notFound = plan.filter((p) => !byTp.has(tpString(p)));
  const described = await admin.describeTopics([...new Set(notFound.map((p) => p.topic))]);
  const states: PartitionReassignmentState[] = plan.map((p) => {
    const tp = { topic: p.topic, partition: p.partition };
    const r = byTp.get(tpString(p));
    if (r !== undefined) return { tp, currentReplicas: r.replicas, targetReplicas: p.replicas, done: false };
    return { tp, currentReplicas: described.get(p.topic)?.get(p.partition) ?? [], targetReplicas: p.replicas, done: true };
  });
  for (const line of renderReassignmentStates(states)) out(line);
  // Kafka's verifyReplicaMoves: the log-dir moves' lines (one empty line when there are none).
  const moves = logDirMoves(plan);
  const moveStates = moves.length === 0 ? { lines: [], ongoing: false } : replicaMoveStatesLines(moves, await admin.describeReplicaLogDirs(moves.map((m) => m.replica)));
  out(moveStates.lines.join('\n'));
  if (ongoing.length === 0 && !moveStates.ongoing && o.preserveThrottles !== true) await clearAllThrottles(admin, plan, out);
  return 0;
}

/**
 * Kafka's cancelAssignment: the plan's partitions still being reassigned go back to their original replicas, and
 * the plan's log-dir moves still in progress (a future replica exists) are sent back to their current dirs, which
 * makes the broker drop the future replica (executeMoves with each replica's current dir as the target).
 */
async function cancel(admin: ReassignAdmin, o: ReassignOptions, out: (l: string) => void): Promise<number> {
  const plan = readReassignmentFile(o.reassignmentJsonFile as string);
  checkLogDirs(plan);
  const targets = plan.map((p) => ({ topic: p.topic, partition: p.partition }));
  const active = (await admin.listReassignments(targets)).filter((r) => r.addingReplicas.length > 0 || r.removingReplicas.length > 0);
  const parts = active.map((r) => ({ topic: r.topic, partition: r.partitionIndex })).sort(compareTp);
  if (parts.length > 0) {
    const errors = await admin.alterReassignments(parts.map((tp) => ({ tp, replicas: null })));
    if (errors.length > 0) throw new CliError(`Error cancelling partition reassignment${plural(errors.length)} for:\n${errorLines(errors)}`);
    out(`Successfully cancelled partition reassignment${plural(parts.length)} for: ${parts.map(tpString).join(',')}`);
  } else {
    out('None of the specified partition reassignments are active.');
  }
  // findLogDirMoveStates: only an ActiveMoveState (a future dir, whatever it is) is cancelled.
  const moves = logDirMoves(plan);
  const infos = moves.length === 0 ? new Map<string, ReplicaLogDirInfo>() : await admin.describeReplicaLogDirs(moves.map((m) => m.replica));
  const moving = moves.flatMap(({ replica }) => {
    const info = infos.get(replicaString(replica));
    return info !== undefined && info.current !== null && info.future !== null ? [{ replica, logDir: info.current }] : [];
  });
  if (moving.length === 0) out('None of the specified partition moves are active.');
  else await executeMoves(admin, moving, o.timeout === undefined ? 10000 : Number(o.timeout), out);
  if (o.preserveThrottles !== true) await clearAllThrottles(admin, plan, out);
  return 0;
}

/**
 * Kafka 2.8's ReassignPartitionsCommand over --bootstrap-server (KIP-455): --generate, --execute, --verify,
 * --cancel and --list through Metadata, ListPartitionReassignments and AlterPartitionReassignments (the last two
 * to the controller), with --throttle / --replica-alter-log-dirs-throttle setting the broker rates and topic
 * throttled-replica lists through IncrementalAlterConfigs, `log_dirs` moves through AlterReplicaLogDirs (their
 * state from DescribeLogDirs), and --verify / --cancel clearing every throttle once nothing is moving.
 */
export async function runReassignPartitions(o: ReassignOptions, action: Action, out: (line: string) => void): Promise<number> {
  if (o.zookeeper !== undefined) {
    out('Warning: ignoring deprecated --zookeeper option because --bootstrap-server was specified.  The --zookeeper option will be removed in a future version of Kafka.');
  }
  const client = new NetworkClient(adminClientOptions(o.bootstrapServer as string, o.commandConfig, '--command-config', { clientId: 'reassign-partitions-tool' }));
  const admin = new ReassignAdmin(client);
  try {
    switch (action) {
      case 'generate':
        return await generate(admin, o, out);
      case 'execute':
        return await execute(admin, o, out);
      case 'verify':
        return await verify(admin, o, out);
      case 'cancel':
        return await cancel(admin, o, out);
      case 'list':
        for (const line of renderCurrentReassignments(await admin.listReassignments(null))) out(line);
        return 0;
    }
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`Error: ${(err as Error).message}`);
  } finally {
    client.close();
  }
}
