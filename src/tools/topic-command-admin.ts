import { NetworkClient } from '../client/network-client';
import { ErrorCode, errorNameOf } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { SYSTEM_CLOCK } from '../common/time';
import { hasCollisionChars } from '../common/topic';
import { topicIdOf } from '../common/uuid';
import { CreatePartitionsApi } from '../protocol/apis/create-partitions';
import { CreateTopicsApi } from '../protocol/apis/create-topics';
import { DeleteTopicsApi, deleteTopicsByName } from '../protocol/apis/delete-topics';
import { DescribeConfigsApi, DescribeConfigsResourceConfig } from '../protocol/apis/describe-configs';
import { ListPartitionReassignmentsApi } from '../protocol/apis/list-partition-reassignments';
import { MetadataApi, MetadataResponse } from '../protocol/apis/metadata';
import { javaExceptionName } from './admin-client-config';
import { javaHashMapOrder, javaStringHash } from './java-rendering';
import { parseReplicaAssignment, parseTopicConfig, TopicCommandError, TopicCommandOptions, topicFilter } from './topic-command';

const TOPIC_RESOURCE = 2;
/** DescribeConfigs' DEFAULT_CONFIG source: Java's ConfigEntry.isDefault() is exactly this source. */
const DEFAULT_CONFIG_SOURCE = 5;

type MetadataTopic = MetadataResponse['topics'][number];
type MetadataPartition = MetadataTopic['partitions'][number];

interface Reassignment {
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

/** The exception a failed future of the AdminClient carries for an error code (its message or Errors' default). */
function failure(code: number, message: string | null | undefined): TopicCommandError {
  const name = errorNameOf(code) ?? 'UNKNOWN_SERVER_ERROR';
  return new TopicCommandError(javaExceptionName(name), message ?? ErrorCode[name].message);
}

/** TopicCommand.getReplicationFactor: during a reassignment, the target replicas without those being added. */
function replicationFactor(p: MetadataPartition, reassignment: Reassignment | undefined): number {
  if (reassignment !== undefined) {
    const changing = new Set([...reassignment.addingReplicas, ...reassignment.removingReplicas]);
    if (p.replicaNodes.some((r) => changing.has(r))) return reassignment.replicas.filter((r) => !reassignment.addingReplicas.includes(r)).length;
  }
  return p.replicaNodes.length;
}

/**
 * Kafka 2.8's TopicCommand.AdminClientTopicService (`kafka-topics --bootstrap-server`): Metadata, DescribeConfigs,
 * CreateTopics, CreatePartitions, DeleteTopics and ListPartitionReassignments through the admin client. Unlike the
 * ZooKeeper form it prints nothing after --alter and --delete, no "marked for deletion" in --list, and its
 * describe's Configs are every entry whose source is not the default (static broker settings included).
 */
export class AdminClientTopicService {
  constructor(
    private readonly client: NetworkClient,
    private readonly out: (line: string) => void,
    private readonly timeoutMs: number,
  ) {}

  async run(o: TopicCommandOptions): Promise<void> {
    try {
      if (o.create) return await this.create(o);
      if (o.alter) return await this.alter(o);
      if (o.list) return this.out((await this.getTopics(o)).join('\n'));
      if (o.describe) return await this.describe(o);
      return await this.delete(o);
    } catch (err) {
      if (err instanceof KafkaError) throw failure(err.code, err.message);
      throw err;
    }
  }

  private async metadata(topics: string[] | null): Promise<MetadataResponse> {
    return this.client.request('any', MetadataApi, { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation: false });
  }

  /** TopicService.getTopics: every topic (internal ones unless --exclude-internal), sorted, filtered by --topic. */
  private async getTopics(o: TopicCommandOptions): Promise<string[]> {
    const all = (await this.metadata(null)).topics.filter((t) => t.errorCode === ErrorCode.NONE.code && !(o.excludeInternal && t.isInternal));
    const matches = o.topic === undefined ? () => true : topicFilter(o.topic);
    return all
      .filter((t) => matches(t.name))
      .map((t) => t.name)
      .sort();
  }

  /** TopicCommand.ensureTopicExists. */
  private ensureTopicExists(found: readonly string[], o: TopicCommandOptions): void {
    if (o.topic !== undefined && !o.ifExists && found.length === 0) throw new TopicCommandError('java.lang.IllegalArgumentException', `Topic '${o.topic}' does not exist as expected`);
  }

  /** Sends to the controller again while the one asked has just lost that role. */
  private async toController<T>(send: () => Promise<T>, codes: (r: T) => number[]): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const r = await send();
      if (!codes(r).includes(ErrorCode.NOT_CONTROLLER.code) || attempt >= 20) return r;
      await this.client.refreshMetadata();
      await SYSTEM_CLOCK.sleep(100);
    }
  }

  private async create(o: TopicCommandOptions): Promise<void> {
    const name = o.topic as string;
    if (hasCollisionChars(name)) {
      this.out("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.");
    }
    const partitions = o.partitions === undefined ? undefined : javaInt('partitions', o.partitions);
    const rf = o.replicationFactor === undefined ? undefined : javaInt('replication-factor', o.replicationFactor);
    const assignment = o.replicaAssignment !== undefined && o.replicaAssignment !== '' ? parseReplicaAssignment(o.replicaAssignment) : undefined;
    const configs = parseTopicConfig(o.config);
    if (rf !== undefined && (rf > 32767 || rf < 1)) throw new TopicCommandError('java.lang.IllegalArgumentException', 'The replication factor must be between 1 and 32767 inclusive');
    if (partitions !== undefined && partitions < 1) throw new TopicCommandError('java.lang.IllegalArgumentException', 'The partitions must be greater than 0');
    const topic = {
      name,
      numPartitions: assignment !== undefined ? -1 : (partitions ?? -1),
      replicationFactor: assignment !== undefined ? -1 : (rf ?? -1),
      assignments: assignment === undefined ? [] : [...assignment].map(([partitionIndex, brokerIds]) => ({ partitionIndex, brokerIds })),
      configs: [...configs].map(([k, value]) => ({ name: k, value })),
    };
    const r = await this.toController(
      () => this.client.request('controller', CreateTopicsApi, { topics: [topic], timeoutMs: this.timeoutMs, validateOnly: false }),
      (res) => res.topics.map((t) => t.errorCode),
    );
    const result = r.topics.find((t) => t.name === name);
    const code = result?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR.code;
    if (code !== ErrorCode.NONE.code) {
      if (code === ErrorCode.TOPIC_ALREADY_EXISTS.code && o.ifNotExists) return;
      throw failure(code, result?.errorMessage);
    }
    this.out(`Created topic ${name}.`);
  }

  /** --alter --partitions N [--replica-assignment]: CreatePartitions; Kafka prints nothing when it succeeds. */
  private async alter(o: TopicCommandOptions): Promise<void> {
    const topics = await this.getTopics(o);
    this.ensureTopicExists(topics, o);
    if (topics.length === 0) return;
    const count = javaInt('partitions', o.partitions as string);
    const assignment = o.replicaAssignment !== undefined && o.replicaAssignment !== '' ? parseReplicaAssignment(o.replicaAssignment) : undefined;
    const current = assignment === undefined ? undefined : await this.describeTopics(topics);
    const request = topics.map((name) => {
      if (assignment === undefined) return { name, count, assignments: null };
      const start = current!.get(name)!.partitions.length;
      return { name, count, assignments: [...assignment].filter(([p]) => p >= start).map(([, brokerIds]) => ({ brokerIds })) };
    });
    const r = await this.toController(
      () => this.client.request('controller', CreatePartitionsApi, { topics: request, timeoutMs: this.timeoutMs, validateOnly: false }),
      (res) => res.results.map((t) => t.errorCode),
    );
    const failed = r.results.find((t) => t.errorCode !== ErrorCode.NONE.code);
    if (failed !== undefined) throw failure(failed.errorCode, failed.errorMessage);
  }

  /** DescribeTopicsResult.all(): each topic's metadata; the first topic in error fails the whole call. */
  private async describeTopics(topics: string[]): Promise<Map<string, MetadataTopic>> {
    const r = await this.metadata(topics);
    const byName = new Map(r.topics.map((t) => [t.name, t]));
    for (const name of topics) {
      const t = byName.get(name);
      if (t === undefined || t.errorCode !== ErrorCode.NONE.code) throw failure(t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, null);
    }
    return byName;
  }

  private async describe(o: TopicCommandOptions): Promise<void> {
    const topics = await this.getTopics(o);
    this.ensureTopicExists(topics, o);
    if (topics.length === 0) return;
    const configs = await this.client.request('any', DescribeConfigsApi, {
      resources: topics.map((resourceName) => ({ resourceType: TOPIC_RESOURCE, resourceName, configurationKeys: null })),
      includeSynonyms: false,
    });
    const configsOf = new Map(configs.results.map((c) => [c.resourceName, c]));
    const described = await this.describeTopics(topics);
    const liveBrokers = new Set((await this.metadata([])).brokers.map((b) => b.nodeId));
    const reassignments = await this.listReassignments(topics, described);
    const filtering = Boolean(o.underReplicatedPartitions || o.unavailablePartitions || o.underMinIsrPartitions || o.atMinIsrPartitions);
    // DescribeTopicsResult.all() is a HashMap built from the per-topic futures' HashMap, both sized for the topics.
    const hash = (t: string): number => javaStringHash(t);
    const order = javaHashMapOrder(javaHashMapOrder(topics, hash, topics.length), hash, topics.length);
    for (const name of order) {
      const td = described.get(name)!;
      const result = configsOf.get(name);
      if (result === undefined || result.errorCode !== ErrorCode.NONE.code) throw failure(result?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR.code, result?.errorMessage);
      const entries = javaHashMapOrder(result.configs, (c) => javaStringHash(c.name), result.configs.length);
      const overrides = entries.filter((c) => !isDefault(c));
      const minIsrValue = entries.find((c) => c.name === 'min.insync.replicas')?.value;
      const minIsr = minIsrValue === undefined || minIsrValue === null ? undefined : Number(minIsrValue);
      const partitions = [...td.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex);
      if (!filtering && (!o.topicsWithOverrides || overrides.length > 0) && partitions.length > 0) {
        const first = partitions[0]!;
        const rf = replicationFactor(first, reassignments.get(`${name}\0${first.partitionIndex}`));
        // Kafka 2.8's TopicDescription.printDescription: the id after the name unless it is the zero Uuid.
        const id = td.topicId === undefined ? undefined : topicIdOf(td.topicId);
        this.out(`Topic: ${name}${id === undefined ? '' : `\tTopicId: ${id}`}\tPartitionCount: ${partitions.length}\tReplicationFactor: ${rf}\tConfigs: ${overrides.map((c) => `${c.name}=${c.value ?? 'null'}`).join(',')}`);
      }
      if (o.topicsWithOverrides) continue;
      for (const p of partitions) {
        const reassignment = reassignments.get(`${name}\0${p.partitionIndex}`);
        // The AdminClient's TopicPartitionInfo has no leader node when the leader is not among the live brokers.
        const hasLeader = p.leaderId >= 0 && liveBrokers.has(p.leaderId);
        const show =
          !filtering ||
          (o.underReplicatedPartitions && replicationFactor(p, reassignment) - p.isrNodes.length > 0) ||
          (o.unavailablePartitions && !hasLeader) ||
          (o.underMinIsrPartitions && (!hasLeader || (minIsr !== undefined && p.isrNodes.length < minIsr))) ||
          (o.atMinIsrPartitions && minIsr === p.isrNodes.length);
        if (!show) continue;
        let line = `\tTopic: ${name}\tPartition: ${p.partitionIndex}\tLeader: ${hasLeader ? p.leaderId : 'none'}\tReplicas: ${p.replicaNodes.join(',')}\tIsr: ${p.isrNodes.join(',')}`;
        if (reassignment !== undefined) line += `\tAdding Replicas: ${reassignment.addingReplicas.join(',')}\tRemoving Replicas: ${reassignment.removingReplicas.join(',')}`;
        this.out(line);
      }
    }
  }

  /** listPartitionReassignments of the described partitions; an error the tool tolerates reads as none. */
  private async listReassignments(topics: string[], described: Map<string, MetadataTopic>): Promise<Map<string, Reassignment>> {
    const found = new Map<string, Reassignment>();
    try {
      const r = await this.toController(
        () =>
          this.client.request('controller', ListPartitionReassignmentsApi, {
            timeoutMs: this.timeoutMs,
            topics: topics.map((name) => ({ name, partitionIndexes: described.get(name)!.partitions.map((p) => p.partitionIndex) })),
          }),
        (res) => [res.errorCode],
      );
      if (r.errorCode === ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code || r.errorCode === ErrorCode.UNSUPPORTED_VERSION.code) return found;
      if (r.errorCode !== ErrorCode.NONE.code) throw failure(r.errorCode, r.errorMessage);
      for (const t of r.topics) for (const p of t.partitions) found.set(`${t.name}\0${p.partitionIndex}`, p);
    } catch (err) {
      if (err instanceof KafkaError && err.errorName === 'UNSUPPORTED_VERSION') return found;
      throw err;
    }
    return found;
  }

  /** DeleteTopics of every matching topic; Kafka prints nothing when it succeeds. */
  private async delete(o: TopicCommandOptions): Promise<void> {
    const topics = await this.getTopics(o);
    this.ensureTopicExists(topics, o);
    if (topics.length === 0) return;
    const r = await this.toController(
      () => this.client.request('controller', DeleteTopicsApi, deleteTopicsByName(topics, this.timeoutMs)),
      (res) => res.responses.map((t) => t.errorCode),
    );
    const failed = r.responses.find((t) => t.errorCode !== ErrorCode.NONE.code);
    if (failed !== undefined) throw failure(failed.errorCode, null);
  }
}

function isDefault(c: DescribeConfigsResourceConfig): boolean {
  return c.configSource === DEFAULT_CONFIG_SOURCE;
}

/** joptsimple's `ofType(Integer)` conversion, refused on one line as the --zookeeper form does. */
function javaInt(name: string, text: string): number {
  if (!/^[+-]?\d{1,10}$/.test(text.trim()) || Math.abs(Number(text)) > 0x7fffffff) throw new TopicCommandError('joptsimple.OptionArgumentConversionException', `Cannot parse argument '${text}' of option ${name}`);
  return Number(text);
}
