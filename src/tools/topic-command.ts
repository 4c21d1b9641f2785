import { Command } from 'commander';
import { isInternalTopic, hasCollisionChars, topicNameError } from '../common/topic';
import { assignAddedPartitions, assignReplicasToBrokers, InvalidPartitionsError, InvalidReplicationFactorError } from '../controller/replica-assignment';
import { createLogConfig, isTopicConfigKey } from '../common/config/log-config';
import { AdminZk, AdminZkError, checkAssignmentFits, explicitAssignmentBytes, renderAssignment } from '../zk/admin-zk';
import { estimateAssignmentBytes, TopicAssignmentZNode } from '../zk/znodes/topic-assignment';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ZkClient } from '../zk/zk-client';
import { CliError } from './cli';
import { TopicDescriber } from './topic-describer';

export interface TopicCommandOptions {
  zookeeper?: string;
  bootstrapServer?: string;
  create?: boolean;
  list?: boolean;
  describe?: boolean;
  alter?: boolean;
  delete?: boolean;
  topic?: string;
  partitions?: string;
  replicationFactor?: string;
  replicaAssignment?: string;
  config: string[];
  deleteConfig: string[];
  ifNotExists?: boolean;
  ifExists?: boolean;
  underReplicatedPartitions?: boolean;
  unavailablePartitions?: boolean;
  underMinIsrPartitions?: boolean;
  atMinIsrPartitions?: boolean;
  commandConfig?: string;
  topicsWithOverrides?: boolean;
  excludeInternal?: boolean;
  disableRackAware?: boolean;
  force?: boolean;
}

/** An error Kafka's TopicCommand reports as `Error while executing topic command : <message>`. */
export class TopicCommandError extends Error {
  constructor(
    readonly exceptionClass: string,
    message: string,
  ) {
    super(message);
  }
}

const EXCEPTION_CLASSES: Record<AdminZkError['errorName'], string> = {
  TOPIC_ALREADY_EXISTS: 'org.apache.kafka.common.errors.TopicExistsException',
  INVALID_TOPIC_EXCEPTION: 'org.apache.kafka.common.errors.InvalidTopicException',
  UNKNOWN_TOPIC_OR_PARTITION: 'org.apache.kafka.common.errors.UnknownTopicOrPartitionException',
  INVALID_PARTITIONS: 'org.apache.kafka.common.errors.InvalidPartitionsException',
  INVALID_REPLICA_ASSIGNMENT: 'org.apache.kafka.common.errors.InvalidReplicaAssignmentException',
};

/** Checks the option combinations Kafka's TopicCommandOptions.checkArgs checks, with its messages. */
export function checkTopicCommandArgs(o: TopicCommandOptions): void {
  const actions = [o.create, o.list, o.describe, o.alter, o.delete].filter(Boolean).length;
  if (actions !== 1) throw new CliError('Command must include exactly one action: --list, --describe, --create, --alter or --delete');
  if ((o.zookeeper === undefined) === (o.bootstrapServer === undefined)) {
    throw new CliError('Only one of --bootstrap-server or --zookeeper must be specified');
  }
  const bootstrap = o.bootstrapServer !== undefined;
  if (o.describe && o.ifExists && o.topic === undefined) throw new CliError('Missing required argument "[topic]"');
  if ((o.create || o.alter || o.delete) && o.topic === undefined) throw new CliError('Missing required argument "[topic]"');
  // The bootstrap-server form creates with the cluster's defaults for what is not given (KIP-464).
  if (!bootstrap && o.create && o.replicaAssignment === undefined && (o.partitions === undefined || o.replicationFactor === undefined)) {
    throw new CliError('Missing required argument "[partitions]"'.replace('[partitions]', o.partitions === undefined ? '[partitions]' : '[replication-factor]'));
  }
  if (o.create && o.replicaAssignment !== undefined && (o.partitions !== undefined || o.replicationFactor !== undefined)) {
    throw new CliError('Option "[replica-assignment]" can\'t be used with option "[partitions],[replication-factor]"');
  }
  if (bootstrap && o.alter) {
    // TopicCommandOptions.checkArgs: topic configs are kafka-configs' business over the admin API.
    if (o.config.length > 0) {
      throw new CliError('Option combination "[bootstrap-server],[config]" can\'t be used with option "[alter]" (the kafka-configs CLI supports altering topic configs with a --bootstrap-server option)');
    }
    if (o.partitions === undefined) throw new CliError('Missing required argument "[partitions]"');
  }
  if (bootstrap && o.deleteConfig.length > 0) throw new CliError('Option "[delete-config]" can\'t be used with option "[bootstrap-server]"');
  for (const [name, used] of [['under-min-isr-partitions', o.underMinIsrPartitions], ['at-min-isr-partitions', o.atMinIsrPartitions]] as const) {
    if (!used) continue;
    if (!o.describe) throw new CliError(`Option "[${name}]" can't be used with option "[${o.create ? 'create' : o.alter ? 'alter' : o.list ? 'list' : 'delete'}]"`);
    if (!bootstrap) throw new CliError(`Option "[${name}]" can't be used with option "[zookeeper]"`);
  }
  // Each replication report excludes the others and --topics-with-overrides (CommandLineUtils.checkInvalidArgs).
  const reports = [
    ['under-replicated-partitions', o.underReplicatedPartitions],
    ['under-min-isr-partitions', o.underMinIsrPartitions],
    ['at-min-isr-partitions', o.atMinIsrPartitions],
    ['unavailable-partitions', o.unavailablePartitions],
    ['topics-with-overrides', o.topicsWithOverrides],
  ] as const;
  const used = reports.filter(([, on]) => on).map(([name]) => name);
  if (o.describe && used.length > 1) throw new CliError(`Option "[${used[0]!}]" can't be used with option "[${used[1]!}]"`);
  if (o.commandConfig !== undefined && !bootstrap) throw new CliError('Option "[command-config]" can only be used with option "[bootstrap-server]"');
  if (!o.create && (o.replicationFactor !== undefined || o.ifNotExists)) {
    throw new CliError('Option "[replication-factor]" and "[if-not-exists]" can only be used with option "[create]"');
  }
  if (!(o.create || o.alter) && (o.config.length > 0 || o.partitions !== undefined)) {
    throw new CliError('Option "[config]" and "[partitions]" can only be used with option "[create]" or "[alter]"');
  }
  if (!o.alter && o.deleteConfig.length > 0) throw new CliError('Option "[delete-config]" can only be used with option "[alter]"');
  if (!o.describe && (o.underReplicatedPartitions || o.unavailablePartitions || o.topicsWithOverrides)) {
    throw new CliError('Option "[under-replicated-partitions]", "[unavailable-partitions]" and "[topics-with-overrides]" can only be used with option "[describe]"');
  }
}

/** `--topic` as Kafka's IncludeList: commas are alternatives, the whole name must match. */
export function topicFilter(topic: string): (name: string) => boolean {
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${topic.trim().replace(/,/g, '|').replace(/ /g, '').replace(/^["']+/, '').replace(/["']+$/, '')})$`);
  } catch {
    throw new CliError(`Invalid --topic ${topic}: not a valid regular expression`);
  }
  return (name) => pattern.test(name);
}

/** An option's value as a Java int (joptsimple's `ofType(Integer)`): anything else is refused on one line. */
function intOption(name: string, text: string | undefined): number {
  const n = Number(text);
  if (text === undefined || !/^-?\d{1,10}$/.test(text.trim()) || n < -0x80000000 || n > 0x7fffffff) throw new CliError(`Invalid value ${String(text)} for --${name}: not an integer`);
  return n;
}

/** `--replica-assignment 1:2,2:3`: partitions split by ',', replicas by ':'. */
export function parseReplicaAssignment(text: string): Map<number, number[]> {
  const assignment = new Map<number, number[]>();
  text.split(',').forEach((part, p) => {
    const replicas = part.split(':').map((s) => s.trim());
    if (replicas.some((r) => !/^\d{1,10}$/.test(r) || Number(r) > 0x7fffffff)) throw new CliError(`Invalid replica assignment "${text}": "${part}" is not a list of broker ids`);
    const ids = replicas.map(Number);
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup !== undefined) throw new TopicCommandError('kafka.common.AdminCommandFailedException', `Partition replica lists may not contain duplicate entries: ${dup}`);
    if (p > 0 && ids.length !== (assignment.get(0)?.length ?? 0)) {
      throw new TopicCommandError('kafka.common.AdminOperationException', `Partition ${p} has different replication factor: ${ids.join(',')}`);
    }
    assignment.set(p, ids);
  });
  return assignment;
}

/** `--config k=v` pairs checked against the topic-level keys and rules. */
export function parseTopicConfig(pairs: readonly string[]): Map<string, string> {
  const config = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`Invalid topic config: all configs to be added must be in the format "key=val". Got: ${pair}`);
    config.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  validateTopicConfig(config);
  return config;
}

function validateTopicConfig(config: ReadonlyMap<string, string>): void {
  for (const key of config.keys()) {
    if (!isTopicConfigKey(key)) throw new TopicCommandError('org.apache.kafka.common.errors.InvalidConfigurationException', `Unknown topic config name: ${key}`);
  }
  try {
    createLogConfig({}, config);
  } catch (err) {
    throw new TopicCommandError('org.apache.kafka.common.config.ConfigException', (err as Error).message);
  }
}

/** Kafka's TopicCommand in ZooKeeper mode: reads and writes ZooKeeper only, never talks to brokers. */
export class TopicCommand {
  private readonly admin: AdminZk;
  private readonly registry: BrokerRegistryZk;

  constructor(
    private readonly zk: ZkClient,
    private readonly out: (line: string) => void,
  ) {
    this.admin = new AdminZk(zk);
    this.registry = new BrokerRegistryZk(zk);
  }

  async run(o: TopicCommandOptions): Promise<void> {
    if (o.create) return this.create(o);
    if (o.list) return this.list(o);
    if (o.describe) return new TopicDescriber(this.zk, this.out).describe(await this.matchingTopics(o, 'describe'), o);
    if (o.alter) return this.alter(o);
    return this.delete(o);
  }

  /** `--topic` is a regular expression except for create (Kafka's TopicFilter / IncludeList). */
  private async matchingTopics(o: TopicCommandOptions, action: string): Promise<string[]> {
    let topics = await this.admin.getAllTopics();
    if (o.excludeInternal) topics = topics.filter((t) => !isInternalTopic(t));
    if (o.topic === undefined) return topics;
    const matched = topics.filter(topicFilter(o.topic));
    if (matched.length === 0 && !o.ifExists && action !== 'list') {
      throw new TopicCommandError('java.lang.IllegalArgumentException', `Topic '${o.topic}' does not exist as expected`);
    }
    return matched;
  }

  private async create(o: TopicCommandOptions): Promise<void> {
    const topic = o.topic as string;
    const nameError = topicNameError(topic);
    if (nameError !== undefined) throw new TopicCommandError('org.apache.kafka.common.errors.InvalidTopicException', nameError);
    if (hasCollisionChars(topic)) {
      this.out("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.");
    }
    const config = parseTopicConfig(o.config);
    let assignment: Map<number, number[]>;
    try {
      if (o.replicaAssignment !== undefined) {
        assignment = parseReplicaAssignment(o.replicaAssignment);
        checkAssignmentFits(topic, assignment.size, explicitAssignmentBytes(assignment));
      } else {
        const partitions = intOption('partitions', o.partitions);
        const rf = intOption('replication-factor', o.replicationFactor);
        // AdminUtils.assignReplicasToBrokers refuses what no znode could hold before building anything.
        assignment = assignReplicasToBrokers(partitions > 0 && rf > 0 ? await this.registry.getBrokerIds() : [], partitions, rf);
      }
    } catch (err) {
      throw topicCommandError(err);
    }
    try {
      await this.admin.createTopic(topic, assignment, config);
    } catch (err) {
      if (err instanceof AdminZkError && err.errorName === 'TOPIC_ALREADY_EXISTS' && o.ifNotExists) return;
      throw topicCommandError(err);
    }
    this.out(`Created topic ${topic}.`);
  }

  private async list(o: TopicCommandOptions): Promise<void> {
    const marked = new Set(await this.admin.getTopicsMarkedForDeletion());
    for (const t of await this.matchingTopics(o, 'list')) this.out(marked.has(t) ? `${t} - marked for deletion` : t);
  }

  private async alter(o: TopicCommandOptions): Promise<void> {
    for (const topic of await this.matchingTopics(o, 'alter')) {
      if (o.config.length > 0 || o.deleteConfig.length > 0) {
        const config = await this.admin.getTopicConfig(topic);
        for (const [k, v] of parseTopicConfig(o.config)) config.set(k, v);
        for (const k of o.deleteConfig) {
          if (!config.has(k)) throw new TopicCommandError('kafka.common.AdminCommandFailedException', `Invalid config(s): ${k}`);
          config.delete(k);
        }
        validateTopicConfig(config);
        await this.admin.changeTopicConfig(topic, config);
        this.out('WARNING: Altering topic configuration from this script has been deprecated and may be removed in future releases.');
        this.out('         Going forward, please use kafka-configs.sh for this functionality');
        this.out(`Updated config for topic ${topic}.`);
      }
      if (o.partitions !== undefined) await this.alterPartitions(topic, intOption('partitions', o.partitions), o);
    }
  }

  private async alterPartitions(topic: string, count: number, o: TopicCommandOptions): Promise<void> {
    if (isInternalTopic(topic)) throw new TopicCommandError('java.lang.IllegalArgumentException', 'The number of partitions for the offsets topic cannot be changed.');
    this.out('WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected');
    const existing = await this.admin.getTopicAssignment(topic);
    // An unreadable assignment reads as none (Kafka: "The topic t does not exist").
    if (existing === null || existing.partitions.size === 0) throw new TopicCommandError('org.apache.kafka.common.errors.InvalidTopicException', `The topic ${topic} does not exist`);
    const current = existing.partitions.size;
    if (count <= current) {
      throw new TopicCommandError(
        'org.apache.kafka.common.errors.InvalidPartitionsException',
        `The number of partitions for a topic can only be increased. Topic ${topic} currently has ${current} partitions, ${count} would not be an increase.`,
      );
    }
    const partition0 = existing.partitions.get(0);
    if (partition0 === undefined) {
      throw new TopicCommandError('kafka.admin.AdminOperationException', `Unexpected existing replica assignment for topic '${topic}', partition id 0 is missing. Assignment: ${renderAssignment(existing.partitions)}`);
    }
    const brokers = await this.registry.getBrokerIds();
    const existingBytes = TopicAssignmentZNode.encode(existing).length;
    let added: Map<number, number[]>;
    try {
      if (o.replicaAssignment !== undefined) {
        const all = parseReplicaAssignment(o.replicaAssignment);
        added = new Map([...all].filter(([p]) => p >= current));
        if (added.size !== count - current) {
          throw new TopicCommandError('kafka.common.AdminCommandFailedException', `Increasing the number of partitions by ${count - current} but ${added.size} assignments provided.`);
        }
        checkAssignmentFits(topic, count, explicitAssignmentBytes(added, existingBytes));
        validateReplicaAssignment(added, partition0.length, new Set(brokers));
      } else {
        checkAssignmentFits(topic, count, existingBytes + estimateAssignmentBytes(current, count - current, partition0.length, brokers));
        added = assignAddedPartitions(brokers, existing.partitions, count);
      }
    } catch (err) {
      throw topicCommandError(err);
    }
    await this.admin.addPartitions(topic, existing, added);
    this.out('Adding partitions succeeded!');
  }

  private async delete(o: TopicCommandOptions): Promise<void> {
    for (const topic of await this.matchingTopics(o, 'delete')) {
      if (isInternalTopic(topic)) {
        throw new TopicCommandError('kafka.common.AdminCommandFailedException', `Topic ${topic} is a kafka internal topic and is not allowed to be marked for deletion.`);
      }
      if (!(await this.admin.markTopicForDeletion(topic))) {
        this.out(`Topic ${topic} is already marked for deletion.`);
        continue;
      }
      this.out(`Topic ${topic} is marked for deletion.`);
      this.out('Note: This will have no impact if delete.topic.enable is not set to true.');
    }
  }
}

/** Kafka's exception (class name and message) for an error of topic creation or alteration. */
function topicCommandError(err: unknown): Error {
  if (err instanceof TopicCommandError || err instanceof CliError) return err;
  if (err instanceof AdminZkError) return new TopicCommandError(EXCEPTION_CLASSES[err.errorName], err.message);
  if (err instanceof InvalidPartitionsError) return new TopicCommandError('org.apache.kafka.common.errors.InvalidPartitionsException', err.message);
  if (err instanceof InvalidReplicationFactorError) return new TopicCommandError('org.apache.kafka.common.errors.InvalidReplicationFactorException', err.message);
  return err instanceof Error ? err : new Error(String(err));
}

/** AdminZkClient.validateReplicaAssignment (kafka-topics --alter --replica-assignment), with its messages. */
function validateReplicaAssignment(added: ReadonlyMap<number, readonly number[]>, expectedReplicationFactor: number, available: ReadonlySet<number>): void {
  const fail = (cls: string, message: string): TopicCommandError => new TopicCommandError(`org.apache.kafka.common.errors.${cls}`, message);
  for (const [p, replicas] of added) {
    if (replicas.length === 0) throw fail('InvalidReplicaAssignmentException', `Cannot have replication factor of 0 for partition id ${p}.`);
    if (new Set(replicas).size !== replicas.length) throw fail('InvalidReplicaAssignmentException', `Duplicate brokers not allowed in replica assignment: ${replicas.join(', ')} for partition id ${p}.`);
    if (!replicas.every((r) => available.has(r))) {
      throw fail(
        'BrokerNotAvailableException',
        `Some brokers specified for partition id ${p} are not available. Specified brokers: ${replicas.join(', ')}, available brokers: ${[...available].join(', ')}.`,
      );
    }
  }
  const bad = [...added].filter(([, r]) => r.length !== expectedReplicationFactor).sort((a, b) => a[0] - b[0]);
  if (bad.length > 0) {
    throw fail(
      'InvalidReplicaAssignmentException',
      `Inconsistent replication factor between partitions, partition 0 has ${expectedReplicationFactor} while partitions [${bad.map(([p]) => p).join(', ')}] have replication factors [${bad.map(([, r]) => r.length).join(', ')}], respectively.`,
    );
  }
}

export function topicCommandOptions(program: Command): TopicCommandOptions {
  return program.opts<TopicCommandOptions>();
}
