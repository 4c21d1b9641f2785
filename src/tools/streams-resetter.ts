import { readFileSync } from 'node:fs';
import { NetworkClient } from '../client/network-client';
import { ErrorCode, errorNameOf } from '../common/error-codes';
import { TopicPartition, tpString } from '../common/topic-partition';
import { DeleteTopicsApi, deleteTopicsByName } from '../protocol/apis/delete-topics';
import { MetadataApi } from '../protocol/apis/metadata';
import { CliError } from './cli';
import { KafkaConsumerGroupService } from './consumer-groups-kafka';
import { MemberSummary } from './consumer-groups-service';
import { parseDateTime, parseDuration } from './consumer-groups-reset';
import { javaHashMapOrder, javaStringHash, topicPartitionHash, defaultErrorMessage } from './java-rendering';

export interface StreamsResetterOptions {
  bootstrapServers: string;
  applicationId?: string;
  inputTopics: string[];
  intermediateTopics: string[];
  internalTopics: string[];
  toOffset?: string;
  toDatetime?: string;
  byDuration?: string;
  toEarliest?: boolean;
  toLatest?: boolean;
  fromFile?: string;
  shiftBy?: string;
  configFile?: string;
  dryRun?: boolean;
  execute?: boolean;
  force?: boolean;
}

/** `--input-topics a,b` and repeated options: joptsimple's withValuesSeparatedBy(','). */
const commaList = (values: readonly string[]): string[] => values.flatMap((v) => v.split(',')).filter((v) => v !== '');

/** StreamsResetter.parseArguments' checks, with its messages. */
export function checkStreamsResetterArgs(o: StreamsResetterOptions): void {
  if (o.applicationId === undefined) throw new CliError('Missing required argument "[application-id]"');
  if (o.dryRun && o.execute) throw new CliError('Only one of --dry-run and --execute can be specified');
  const scenarios = (
    [
      ['to-offset', o.toOffset !== undefined],
      ['to-datetime', o.toDatetime !== undefined],
      ['by-duration', o.byDuration !== undefined],
      ['to-earliest', o.toEarliest],
      ['to-latest', o.toLatest],
      ['shift-by', o.shiftBy !== undefined],
      ['from-file', o.fromFile !== undefined],
    ] as const
  )
    .filter(([, on]) => on)
    .map(([name]) => name);
  if (scenarios.length > 1) throw new CliError(`Option "[${scenarios[0]!}]" can't be used with option "[${scenarios[1]!}]"`);
  for (const [name, v] of [['to-offset', o.toOffset], ['shift-by', o.shiftBy]] as const) {
    if (v !== undefined && !/^[+-]?\d{1,19}$/.test(v)) throw new CliError(`Cannot parse argument '${v}' of option ${name}`);
  }
}

/** StreamsResetter.matchesInternalTopicFormat: the names Kafka Streams gives its internal topics. */
export function matchesInternalTopicFormat(topic: string): boolean {
  return (
    topic.endsWith('-changelog') ||
    topic.endsWith('-repartition') ||
    topic.endsWith('-subscription-registration-topic') ||
    topic.endsWith('-subscription-response-topic') ||
    /^.+-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-\d+-topic$/.test(topic) ||
    /^.+-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-\d+-topic$/.test(topic)
  );
}

/** MemberDescription.toString, as the "still active" message lists the members. */
export function describeMember(m: MemberSummary): string {
  const tps = m.assignment.map(tpString).join(',');
  return `(memberId=${m.consumerId}, groupInstanceId=${m.groupInstanceId === '' ? 'null' : m.groupInstanceId}, clientId=${m.clientId}, host=${m.host}, assignment=(topicPartitions=${tps}))`;
}

/** A failure StreamsResetter reports as `ERROR: <exception>` on stderr, exit status 1. */
export class StreamsResetterError extends Error {}

/**
 * Kafka 2.8's StreamsResetter (`kafka-streams-application-reset`): refuses while the group `<application-id>` has
 * members (unless --force, which removes them), resets the committed offsets of the input topics (to the earliest
 * offset by default), moves the intermediate topics' to their end, and deletes the application's internal topics
 * (`<application-id>-...-changelog` / `-repartition`). --dry-run prints the same plan and changes nothing.
 */
export class StreamsResetter {
  private readonly service: KafkaConsumerGroupService;

  constructor(
    private readonly client: NetworkClient,
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
  ) {
    this.service = new KafkaConsumerGroupService(client);
  }

  async run(o: StreamsResetterOptions): Promise<number> {
    const groupId = o.applicationId as string;
    const dryRun = o.dryRun === true;
    await this.validateNoActiveConsumers(groupId, o);
    const metadata = await this.client.request('any', MetadataApi, { topics: null, allowAutoTopicCreation: false });
    const names = metadata.topics.filter((t) => t.errorCode === ErrorCode.NONE.code).map((t) => t.name);
    // Admin.listTopics().names() is a HashSet.
    const allTopics = javaHashMapOrder(names.sort(), javaStringHash, Math.max(16, Math.floor(names.length / 0.75) + 1));
    if (dryRun) this.out('----Dry run displays the actions which will be performed when running Streams Reset Tool----');
    const exitCode = await this.resetInputAndSeekToEndIntermediate(groupId, o, allTopics, dryRun);
    await this.deleteInternalTopics(groupId, o, allTopics, dryRun);
    return exitCode;
  }

  private async validateNoActiveConsumers(groupId: string, o: StreamsResetterOptions): Promise<void> {
    const d = await this.service.describeGroup(groupId);
    const members = d.members ?? [];
    if (members.length === 0) return;
    if (o.force) {
      this.out(`Force deleting all active members in the group: ${groupId}`);
      const code = await this.service.removeMembers(
        groupId,
        members.map((m) => ({ memberId: m.consumerId, groupInstanceId: m.groupInstanceId === '' ? null : m.groupInstanceId })),
      );
      if (code !== ErrorCode.NONE.code) throw new StreamsResetterError(`${exceptionName(code)}: ${defaultErrorMessage(code)}`);
      return;
    }
    throw new StreamsResetterError(
      `java.lang.IllegalStateException: Consumer group '${groupId}' is still active and has following members: [${members.map(describeMember).join(', ')}]. ` +
        "Make sure to stop all running application instances before running the reset tool. You can use option '--force' to remove active members from the group.",
    );
  }

  private async resetInputAndSeekToEndIntermediate(groupId: string, o: StreamsResetterOptions, allTopics: string[], dryRun: boolean): Promise<number> {
    const inputTopics = commaList(o.inputTopics);
    const intermediateTopics = commaList(o.intermediateTopics);
    if (inputTopics.length === 0 && intermediateTopics.length === 0) {
      this.out('No input or intermediate topics specified. Skipping seek.');
      return 0;
    }
    if (inputTopics.length > 0) this.out(`Reset-offsets for input topics [${inputTopics.join(', ')}]`);
    if (intermediateTopics.length > 0) this.out(`Seek-to-end for intermediate topics [${intermediateTopics.join(', ')}]`);
    const existing = new Set(allTopics);
    const notFoundInput = inputTopics.filter((t) => !existing.has(t));
    const notFoundIntermediate = intermediateTopics.filter((t) => !existing.has(t));
    let exitCode = 0;
    if (notFoundInput.length > 0) {
      this.out('Following input topics are not found, skipping them');
      for (const t of notFoundInput) this.out(`Topic: ${t}`);
      exitCode = 1;
    }
    if (notFoundIntermediate.length > 0) {
      this.out('Following intermediate topics are not found, skipping them');
      for (const t of notFoundIntermediate) this.out(`Topic:${t}`);
      exitCode = 1;
    }
    const subscribed = [...new Set([...inputTopics, ...intermediateTopics].filter((t) => existing.has(t)))];
    if (subscribed.length === 0) return exitCode;

    const partitions: TopicPartition[] = [];
    for (const topic of subscribed) for (const partition of await this.service.partitionsOf(topic)) partitions.push({ topic, partition });
    // The resetter keeps its partitions in HashSets.
    const hashSet = (tps: TopicPartition[]): TopicPartition[] => javaHashMapOrder(tps, (tp) => topicPartitionHash(tp.topic, tp.partition));
    const input = hashSet(partitions.filter((tp) => inputTopics.includes(tp.topic)));
    const intermediate = hashSet(partitions.filter((tp) => !inputTopics.includes(tp.topic) && intermediateTopics.includes(tp.topic)));
    const positions = new Map<string, { tp: TopicPartition; offset: number }>();
    try {
      if (input.length > 0) {
        this.out(`Following input topics offsets will be reset to (for consumer group ${groupId})`);
        for (const [i, offset] of (await this.resetPositions(groupId, input, o)).entries()) positions.set(tpString(input[i]!), { tp: input[i]!, offset });
        for (const tp of input) this.out(`Topic: ${tp.topic} Partition: ${tp.partition} Offset: ${positions.get(tpString(tp))!.offset}`);
      }
      if (intermediate.length > 0) {
        this.out(`Following intermediate topics offsets will be reset to end (for consumer group ${groupId})`);
        for (const tp of intermediate) this.out(`Topic: ${tp.topic}`);
        const ends = await this.service.listOffsets(intermediate, -1);
        intermediate.forEach((tp, i) => positions.set(tpString(tp), { tp, offset: ends[i]! }));
      }
      if (!dryRun) await this.service.commitOffsets(groupId, [...positions.values()].map((p) => ({ ...p.tp, offset: p.offset })));
    } catch (e) {
      this.err('ERROR: Resetting offsets failed.');
      throw e;
    }
    this.out('Done.');
    return exitCode;
  }

  /** maybeReset: the input partitions' new positions for the scenario (--to-earliest when none is given). */
  private async resetPositions(groupId: string, tps: TopicPartition[], o: StreamsResetterOptions): Promise<number[]> {
    const [earliest, latest] = await Promise.all([this.service.listOffsets(tps, -2), this.service.listOffsets(tps, -1)]);
    const clamp = (i: number, v: number): number => Math.min(latest[i]!, Math.max(earliest[i]!, v));
    if (o.toOffset !== undefined) return tps.map((_, i) => clamp(i, Number(o.toOffset)));
    if (o.toLatest) return latest;
    if (o.shiftBy !== undefined) {
      const committed = new Map((await this.service.describeGroup(groupId)).committed.map((c) => [tpString(c), c.offset]));
      // Without a committed offset the consumer's position is auto.offset.reset's: latest.
      return tps.map((tp, i) => clamp(i, (committed.get(tpString(tp)) ?? latest[i]!) + Number(o.shiftBy)));
    }
    if (o.toDatetime !== undefined || o.byDuration !== undefined) {
      const timestamp = o.toDatetime !== undefined ? parseDateTime(o.toDatetime) : Date.now() - parseDuration(o.byDuration as string);
      const found = await this.service.offsetsForTimes(tps, timestamp);
      return tps.map((tp, i) => {
        if (found[i]! >= 0) return found[i]!;
        this.out(`Partition ${tp.partition} from topic ${tp.topic} is empty, without a committed record. Falling back to latest known offset.`);
        return latest[i]!;
      });
    }
    if (o.fromFile !== undefined) {
      const plan = readResetPlan(o.fromFile);
      return tps.map((tp, i) => {
        const planned = plan.get(tpString(tp));
        return planned === undefined ? earliest[i]! : clamp(i, planned);
      });
    }
    return earliest;
  }

  private async deleteInternalTopics(groupId: string, o: StreamsResetterOptions, allTopics: string[], dryRun: boolean): Promise<void> {
    const inputs = new Set([...commaList(o.inputTopics), ...commaList(o.intermediateTopics)]);
    const inferred = allTopics.filter((t) => !inputs.has(t) && t.startsWith(`${groupId}-`) && matchesInternalTopicFormat(t));
    const specified = commaList(o.internalTopics);
    let toDelete: string[];
    if (specified.length > 0) {
      if (!specified.every((t) => inferred.includes(t))) {
        throw new StreamsResetterError(
          'java.lang.IllegalArgumentException: Invalid topic specified in the --internal-topics option. Ensure that the topics specified are all internal topics. Do a dry run without the --internal-topics option to see the list of all internal topics that can be deleted.',
        );
      }
      toDelete = specified;
      this.out(`Deleting specified internal topics [${toDelete.join(', ')}]`);
    } else {
      toDelete = inferred;
      this.out(`Deleting inferred internal topics [${toDelete.join(', ')}]`);
    }
    if (!dryRun && toDelete.length > 0) {
      const r = await this.client.request('controller', DeleteTopicsApi, deleteTopicsByName(toDelete, 30000));
      const failed = r.responses.filter((t) => t.errorCode !== ErrorCode.NONE.code);
      for (const t of failed) this.err(`ERROR: deleting topic ${t.name}\n${exceptionName(t.errorCode)}: ${defaultErrorMessage(t.errorCode)}`);
      if (failed.length > 0) throw new StreamsResetterError('java.lang.RuntimeException: Encountered an error deleting one or more topics');
    }
    this.out('Done.');
  }
}

function exceptionName(code: number): string {
  const name = errorNameOf(code) ?? 'UNKNOWN_SERVER_ERROR';
  return `org.apache.kafka.common.errors.${name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase())}Exception`;
}

/** getTopicPartitionOffsetFromResetPlan: `topic,partition,offset` lines. */
function readResetPlan(file: string): Map<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new StreamsResetterError(`java.nio.file.NoSuchFileException: ${file}${(e as NodeJS.ErrnoException).code === 'ENOENT' ? '' : ` (${String(e)})`}`);
  }
  const plan = new Map<string, number>();
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== 3 || !/^\d+$/.test(cells[1]!) || !/^-?\d+$/.test(cells[2]!)) throw new StreamsResetterError(`java.lang.IllegalArgumentException: Invalid reset plan line: ${line}`);
    plan.set(`${cells[0]!}-${cells[1]!}`, Number(cells[2]));
  }
  return plan;
}
