import { compareTp, TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { topicNameError } from '../common/topic';
import { groupIdError } from '../rebalance/group-id';
import { TopicPartitionOffset } from '../rebalance/zk-offset-store';
import { ErrorCode, errorNameOf } from '../common/error-codes';
import { CliError } from './cli';
import { exceptionClassFor } from './java-rendering';
import { ConsumerGroupService, GroupDescription } from './consumer-groups-service';

export interface ConsumerGroupsOptions {
  zookeeper?: string;
  bootstrapServer?: string;
  list?: boolean;
  describe?: boolean;
  delete?: boolean;
  resetOffsets?: boolean;
  deleteOffsets?: boolean;
  group?: string;
  topic: string[];
  allTopics?: boolean;
  toEarliest?: boolean;
  toLatest?: boolean;
  toCurrent?: boolean;
  toOffset?: string;
  shiftBy?: string;
  dryRun?: boolean;
  execute?: boolean;
}

/** The one-action and connection rules of Kafka's ConsumerGroupCommandOptions.checkArgs. */
export function checkConsumerGroupsArgs(o: ConsumerGroupsOptions): void {
  if ((o.zookeeper === undefined) === (o.bootstrapServer === undefined)) throw new CliError('Exactly one of --zookeeper or --bootstrap-server is required.');
  const actions = [o.list, o.describe, o.delete, o.resetOffsets, o.deleteOffsets].filter(Boolean).length;
  if (actions !== 1) throw new CliError('Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets');
  // ConsumerGroupCommandOptions.checkArgs, with joptsimple's rendering of the options.
  if (o.deleteOffsets && (o.group === undefined || o.topic.length === 0)) throw new CliError('Option [delete-offsets] takes the following options: [group], [topic]');
  if ((o.describe || o.delete || o.resetOffsets) && o.group === undefined) throw new CliError('Option --group is required with --describe, --delete and --reset-offsets.');
  if (o.resetOffsets) {
    const scenarios = [o.toEarliest, o.toLatest, o.toCurrent, o.toOffset !== undefined, o.shiftBy !== undefined].filter(Boolean).length;
    if (scenarios !== 1) throw new CliError('Option --reset-offsets needs exactly one of --to-earliest, --to-latest, --to-current, --to-offset, --shift-by.');
    if (o.topic.length === 0 && !o.allTopics) throw new CliError('Option --reset-offsets needs one of --topic or --all-topics.');
    if (o.dryRun && o.execute) throw new CliError('Option --reset-offsets only accepts one of --execute and --dry-run.');
    for (const [name, v] of [['--to-offset', o.toOffset], ['--shift-by', o.shiftBy]] as const) {
      if (v !== undefined && !/^-?\d+$/.test(v)) throw new CliError(`Invalid value for ${name}: ${v}`);
    }
  }
}

const pad = (s: string | number, width: number): string => String(s).padEnd(width);

/** One line of --delete-offsets' table: Kafka's "%-30s %-15s %-15s". */
export function formatDeleteOffsetsRow(topic: string, partition: string, status: string): string {
  return `${pad(topic, 30)} ${pad(partition, 15)} ${pad(status, 15)}`;
}

/** ExecutionException.getMessage of the AdminClient's failed future: the cause's class and message. */
function exceptionText(code: number): string {
  const name = errorNameOf(code) ?? 'UNKNOWN_SERVER_ERROR';
  return `${exceptionClassFor(code)}: ${(ErrorCode as Record<string, { message: string }>)[name]?.message ?? `Unknown error code ${code}`}`;
}

/**
 * Kafka's ConsumerGroupCommand over a ConsumerGroupService: --list, --describe (2.x columns, lag from the log end
 * offsets), --reset-offsets (inactive groups only; dry run unless --execute) and --delete.
 */
export class ConsumerGroupCommand {
  constructor(
    private readonly service: ConsumerGroupService,
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
  ) {}

  async run(o: ConsumerGroupsOptions): Promise<number> {
    if (o.list) {
      for (const g of await this.service.listGroups()) this.out(g);
      return 0;
    }
    const group = o.group as string;
    // A group id that cannot name /consumers/<group> is refused before anything is asked (see src/rebalance/README.md).
    const invalid = groupIdError(group);
    if (invalid !== undefined) throw new CliError(`Error: Executing consumer group command failed due to ${invalid}`);
    if (o.describe) return this.describe(group, o);
    if (o.delete) return this.delete(group, o);
    if (o.deleteOffsets) return this.deleteOffsets(group, o);
    return this.resetOffsets(group, o);
  }

  private missing(group: string, o: ConsumerGroupsOptions): CliError {
    return new CliError(o.zookeeper !== undefined ? `Error: The consumer group '${group}' does not exist.` : `Error: Consumer group '${group}' does not exist.`);
  }

  private async describe(group: string, o: ConsumerGroupsOptions): Promise<number> {
    const d = await this.service.describeGroup(group);
    if (d.state === 'Dead') throw this.missing(group, o);
    if (d.state === 'Empty') this.err(`\nConsumer group '${group}' has no active members.`);
    if (d.state === 'PreparingRebalance' || d.state === 'CompletingRebalance') this.err(`\nWarning: Consumer group '${group}' is rebalancing.`);
    const rows = await this.describeRows(group, d);
    if (rows.length === 0) return 0;
    const width = (pick: (r: string[]) => string): number => Math.max(15, ...rows.map((r) => pick(r).length));
    const [gw, tw, cw, hw] = [width((r) => r[0]!), width((r) => r[1]!), width((r) => r[6]!), width((r) => r[7]!)];
    const line = (r: string[]): string => `${pad(r[0]!, gw)} ${pad(r[1]!, tw)} ${pad(r[2]!, 10)} ${pad(r[3]!, 15)} ${pad(r[4]!, 15)} ${pad(r[5]!, 15)} ${pad(r[6]!, cw)} ${pad(r[7]!, hw)} ${r[8]!}`;
    this.out('');
    this.out(line(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID']).trimEnd());
    for (const r of rows) this.out(line(r).trimEnd());
    return 0;
  }

  /** One row per partition that is owned or has a committed offset, then one per member owning nothing. */
  private async describeRows(group: string, d: GroupDescription): Promise<string[][]> {
    const committed = new Map(d.committed.map((c) => [tpString(c), c.offset]));
    const owners = new Map(d.owners.map((w) => [tpString(w), w]));
    const tps = new Map<string, TopicPartition>();
    for (const tp of [...d.owners, ...d.committed]) tps.set(tpString(tp), { topic: tp.topic, partition: tp.partition });
    const sorted = [...tps.values()].sort(compareTp);
    const ends = await this.service.listOffsets(sorted, -1).catch(() => sorted.map(() => -1));
    const rows = sorted.map((tp, i) => {
      const current = committed.get(tpString(tp));
      const end = ends[i]!;
      const owner = owners.get(tpString(tp));
      return [
        group,
        tp.topic,
        String(tp.partition),
        current === undefined ? '-' : String(current),
        end < 0 ? '-' : String(end),
        current === undefined || end < 0 ? '-' : String(Math.max(0, end - current)),
        owner?.consumerId ?? '-',
        owner?.host ?? '-',
        owner?.clientId ?? '-',
      ];
    });
    for (const m of d.idleMembers) rows.push([group, '-', '-', '-', '-', '-', m.consumerId, m.host, m.clientId]);
    return rows;
  }

  private async delete(group: string, o: ConsumerGroupsOptions): Promise<number> {
    const d = await this.service.describeGroup(group);
    if (d.state === 'Dead') throw this.missing(group, o);
    const error = await this.service.deleteGroup(group);
    if (o.zookeeper !== undefined) {
      if (error !== null) throw new CliError(`Error: Delete for group '${group}' failed because ${error}.`);
      this.out(`Deleted all consumer group information for group '${group}' in zookeeper.`);
      return 0;
    }
    if (error !== null) {
      this.out('Deletion of some consumer groups failed:');
      this.out(`* Group '${group}' could not be deleted due to: ${error}`);
      return 1;
    }
    this.out(`Deletion of requested consumer groups ('${group}') was successful.`);
    return 0;
  }

  /**
   * --delete-offsets (ConsumerGroupService.deleteOffsets): `t:0,1` names partitions, a bare topic means all of its
   * partitions (a topic that does not exist is a row "Not Provided" with its error); then Kafka's top-level line
   * and the TOPIC PARTITION STATUS table, rows sorted by topic and partition as text. Exit status 1 when the
   * request failed as a whole or for a partition (as --delete here).
   */
  private async deleteOffsets(group: string, o: ConsumerGroupsOptions): Promise<number> {
    const rows: { topic: string; partition: number; error: string | null }[] = [];
    const partitions: TopicPartition[] = [];
    for (const arg of o.topic) {
      if (!arg.includes(':')) continue;
      const parts = arg.split(':');
      while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
      if (parts.length !== 2) throw new CliError(`Invalid topic arg '${arg}', expected topic name and partitions`);
      const [topic, list] = parts as [string, string];
      for (const p of list.split(',')) {
        if (!/^[+-]?\d+$/.test(p) || Math.abs(Number(p)) > 2147483647) throw new CliError(`Invalid partition '${p}' specified in topic arg '${arg}''`);
        partitions.push({ topic, partition: Number(p) });
      }
    }
    for (const topic of o.topic.filter((t) => !t.includes(':'))) {
      const existing = topicNameError(topic) === undefined ? await this.service.partitionsOf(topic) : [];
      if (existing.length === 0) rows.push({ topic, partition: -1, error: exceptionText(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code) });
      for (const partition of existing) partitions.push({ topic, partition });
    }
    const unique = [...new Map(partitions.map((p) => [tpString(p), p])).values()];
    const result = await this.service.deleteOffsets(group, unique);
    const firstPartitionError = result.partitions.find((p) => p.errorCode !== ErrorCode.NONE.code)?.errorCode;
    const top = result.errorCode !== ErrorCode.NONE.code ? result.errorCode : (firstPartitionError ?? ErrorCode.NONE.code);
    for (const p of result.partitions) rows.push({ topic: p.topic, partition: p.partition, error: p.errorCode === ErrorCode.NONE.code ? null : exceptionText(p.errorCode) });
    const errorLine = (message: string): void => {
      this.out('');
      this.out(`Error: ${message}`);
    };
    const name = errorNameOf(top);
    if (top === ErrorCode.NONE.code) this.out(`Request succeed for deleting offsets with topic ${o.topic.join(', ')} group ${group}`);
    else if (name === 'INVALID_GROUP_ID') errorLine(`'${group}' is not valid.`);
    else if (name === 'GROUP_ID_NOT_FOUND') errorLine(`'${group}' does not exist.`);
    else if (name === 'GROUP_AUTHORIZATION_FAILED') errorLine(`Access to '${group}' is not authorized.`);
    else if (name === 'NON_EMPTY_GROUP') errorLine(`Deleting offsets of a consumer group '${group}' is forbidden if the group is not empty.`);
    else if (name === 'GROUP_SUBSCRIBED_TO_TOPIC' || name === 'TOPIC_AUTHORIZATION_FAILED' || name === 'UNKNOWN_TOPIC_OR_PARTITION') errorLine('Encounter some partition level error, see the follow-up details:');
    else errorLine(`Encounter some unknown error: ${name ?? `UNKNOWN(${top})`}`);
    this.out('');
    this.out(formatDeleteOffsetsRow('TOPIC', 'PARTITION', 'STATUS'));
    const sortKey = (r: { topic: string; partition: number }): string => `${r.topic}${r.partition}`;
    for (const r of [...rows].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0))) {
      this.out(formatDeleteOffsetsRow(r.topic, r.partition >= 0 ? String(r.partition) : 'Not Provided', r.error === null ? 'Successful' : `Error: ${r.error}`));
    }
    return top === ErrorCode.NONE.code && rows.every((r) => r.error === null) ? 0 : 1;
  }

  private async resetOffsets(group: string, o: ConsumerGroupsOptions): Promise<number> {
    const d = await this.service.describeGroup(group);
    if (d.state !== 'Empty' && d.state !== 'Dead') {
      throw new CliError(`Error: Assignments can only be reset if the group '${group}' is inactive, but the current state is ${d.state}.`);
    }
    const tps = await this.resetScope(o, d);
    const committed = new Map(d.committed.map((c) => [tpString(c), c.offset]));
    const [earliest, latest] = await Promise.all([this.service.listOffsets(tps, -2), this.service.listOffsets(tps, -1)]);
    const clamp = (i: number, v: number): number => Math.min(latest[i]!, Math.max(earliest[i]!, v));
    const target: TopicPartitionOffset[] = tps.map((tp, i) => {
      const current = committed.get(tpString(tp));
      let offset: number;
      if (o.toEarliest) offset = earliest[i]!;
      else if (o.toLatest) offset = latest[i]!;
      else if (o.toOffset !== undefined) offset = clamp(i, Number(o.toOffset));
      else if (o.toCurrent) offset = current ?? latest[i]!;
      else offset = clamp(i, (current ?? latest[i]!) + Number(o.shiftBy));
      return { ...tp, offset };
    });
    if (!o.execute && !o.dryRun) {
      this.out(
        'WARN: No action will be performed as the --execute option is missing.In a future major release, the default behavior of this command will be to prompt the user before executing the reset rather than doing a dry run. You should add the --dry-run option explicitly if you are scripting this command and want to keep the current default behavior without prompting.',
      );
    }
    if (o.execute) await this.service.commitOffsets(group, target);
    const line = (g: string, t: string, p: string, n: string): string => `${pad(g, 30)} ${pad(t, 30)} ${pad(p, 10)} ${n}`;
    if (target.length > 0) {
      this.out('');
      this.out(line('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'));
    }
    for (const t of target) this.out(line(group, t.topic, String(t.partition), String(t.offset)));
    return 0;
  }

  /** --topic t or t:0,1 (repeatable), or --all-topics (every topic the group has committed offsets for). */
  private async resetScope(o: ConsumerGroupsOptions, d: GroupDescription): Promise<TopicPartition[]> {
    if (o.allTopics) {
      const seen = new Map(d.committed.map((c) => [tpString(c), { topic: c.topic, partition: c.partition }]));
      return [...seen.values()].sort(compareTp);
    }
    const result: TopicPartition[] = [];
    for (const spec of o.topic) {
      const [topic, list] = spec.split(':', 2) as [string, string | undefined];
      const existing = topicNameError(topic) === undefined ? await this.service.partitionsOf(topic) : [];
      if (existing.length === 0) throw new CliError(`Error: Executing consumer group command failed due to topic '${topic}' does not exist`);
      const partitions = list === undefined ? existing : list.split(',').map((p) => Number(p.trim()));
      for (const partition of partitions) {
        if (!existing.includes(partition)) throw new CliError(`Error: Executing consumer group command failed due to partition ${tpKey(topic, partition)} does not exist`);
        result.push({ topic, partition });
      }
    }
    return result.sort(compareTp);
  }
}
