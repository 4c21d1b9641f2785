import { compareTp, TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { topicNameError } from '../common/topic';
import { groupIdError } from '../rebalance/group-id';
import { ErrorCode, errorNameOf } from '../common/error-codes';
import { CliError } from './cli';
import { exceptionClassFor } from './java-rendering';
import { ConsumerGroupService, GroupDescription } from './consumer-groups-service';
import { exportOffsetsToCsv, formatResetRow, parseDateTime, parseDuration, parseResetPlan, PlannedOffset } from './consumer-groups-reset';
import { readFileSync } from 'node:fs';
import { javaHashMapOrder, javaStringHash } from './java-rendering';

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
  toDatetime?: string;
  byDuration?: string;
  fromFile?: string;
  export?: boolean;
  allGroups?: boolean;
  commandConfig?: string;
  dryRun?: boolean;
  execute?: boolean;
  /** `--state` without a value is `true`; with --list it may carry a comma list of states. */
  state?: boolean | string;
  members?: boolean;
  offsets?: boolean;
  verbose?: boolean;
}

/** Kafka 2.8's ConsumerGroupState names (without Unknown), in its enum order; parsed exactly (case matters). */
const CONSUMER_GROUP_STATES = ['PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty'] as const;

/** Kafka's consumerGroupStatesFromString: a comma list of state names, each trimmed. */
export function consumerGroupStatesFromString(input: string): string[] {
  const parsed = [...new Set(input.split(',').map((x) => x.trim()))];
  if (parsed.some((x) => !(CONSUMER_GROUP_STATES as readonly string[]).includes(x))) {
    throw new CliError(`Invalid state list '${input}'. Valid states are: ${CONSUMER_GROUP_STATES.join(', ')}`);
  }
  return parsed;
}

/** The one-action and connection rules of Kafka's ConsumerGroupCommandOptions.checkArgs. */
export function checkConsumerGroupsArgs(o: ConsumerGroupsOptions): void {
  if ((o.zookeeper === undefined) === (o.bootstrapServer === undefined)) throw new CliError('Exactly one of --zookeeper or --bootstrap-server is required.');
  const actions = [o.list, o.describe, o.delete, o.resetOffsets, o.deleteOffsets].filter(Boolean).length;
  if (actions !== 1) throw new CliError('Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets');
  // ConsumerGroupCommandOptions.checkArgs, with joptsimple's rendering of the options.
  if (o.deleteOffsets && (o.group === undefined || o.topic.length === 0)) throw new CliError('Option [delete-offsets] takes the following options: [group], [topic]');
  // ConsumerGroupCommandOptions.checkArgs: a group selection for the group actions.
  for (const [name, used] of [['describe', o.describe], ['delete', o.delete], ['reset-offsets', o.resetOffsets]] as const) {
    if (used && o.group === undefined && !o.allGroups) throw new CliError(`Option [${name}] takes one of these options: [group], [all-groups]`);
  }
  if (o.delete && o.topic.length > 0 && o.bootstrapServer !== undefined) throw new CliError('The consumer does not support topic-specific offset deletion from a consumer group.');
  if (o.group !== undefined && o.allGroups) throw new CliError('Option "[group]" can\'t be used with option "[all-groups]"');
  if (o.allGroups && !(o.describe || o.delete || o.resetOffsets)) throw new CliError(`Option "[all-groups]" can't be used with option "[${o.list ? 'list' : 'delete-offsets'}]"`);
  if (o.zookeeper !== undefined) {
    for (const [name, used] of [['all-groups', o.allGroups], ['to-datetime', o.toDatetime !== undefined], ['by-duration', o.byDuration !== undefined], ['from-file', o.fromFile !== undefined], ['export', o.export]] as const) {
      if (used) throw new CliError(`Option "[${name}]" can't be used with option "[zookeeper]"`);
    }
  }
  // The describe sub-actions and --state (Kafka's checkArgs; its option specs render as [name]).
  for (const [name, used] of [['members', o.members], ['offsets', o.offsets], ['verbose', o.verbose], ['state', o.state !== undefined]] as const) {
    if (!used) continue;
    if (o.zookeeper !== undefined) throw new CliError(`Option "[${name}]" can't be used with option "[zookeeper]"`);
    const allowed = name === 'state' ? o.describe || o.list : o.describe;
    if (!allowed) throw new CliError(`Option "[${name}]" can't be used with option "[${o.list ? 'list' : o.delete ? 'delete' : 'reset-offsets'}]"`);
  }
  if (o.describe) {
    if ([o.members, o.offsets, o.state !== undefined].filter(Boolean).length > 1) throw new CliError('Option [describe] takes at most one of these options: [members], [offsets], [state]');
    if (typeof o.state === 'string') throw new CliError('Option [describe] does not take a value for [state]');
  }
  if (o.resetOffsets) {
    if (o.dryRun && o.execute) throw new CliError('Option [reset-offsets] only accepts one of [execute] and [dry-run]');
    // Kafka's checkInvalidArgs over its reset scenarios, in its Set's declaration order.
    const scenarios = (
      [
        ['to-offset', o.toOffset !== undefined],
        ['shift-by', o.shiftBy !== undefined],
        ['to-datetime', o.toDatetime !== undefined],
        ['by-duration', o.byDuration !== undefined],
        ['to-earliest', o.toEarliest],
        ['to-latest', o.toLatest],
        ['to-current', o.toCurrent],
        ['from-file', o.fromFile !== undefined],
      ] as const
    )
      .filter(([, on]) => on)
      .map(([name]) => name);
    if (scenarios.length > 1) throw new CliError(`Option "[${scenarios[0]!}]" can't be used with option "[${scenarios[1]!}]"`);
    if (scenarios.length === 0) {
      throw new CliError("Option '[reset-offsets]' requires one of the following scenarios: [to-offset], [shift-by], [to-datetime], [by-duration], [to-earliest], [to-latest], [to-current], [from-file]");
    }
    if (o.topic.length === 0 && !o.allTopics && o.fromFile === undefined) throw new CliError('One of the reset scopes should be defined: --all-topics, --topic.');
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
      if (o.state !== undefined) return this.listWithState(typeof o.state === 'string' ? consumerGroupStatesFromString(o.state) : []);
      for (const g of await this.service.listGroups()) this.out(g);
      return 0;
    }
    if (o.allGroups) return this.runForAllGroups(o);
    const group = o.group as string;
    // A group id that cannot name /consumers/<group> is refused before anything is asked (see src/rebalance/README.md).
    const invalid = groupIdError(group);
    if (invalid !== undefined) throw new CliError(`Error: Executing consumer group command failed due to ${invalid}`);
    if (o.describe) return this.describe(group, o);
    if (o.delete) return this.delete(group, o);
    if (o.deleteOffsets) return this.deleteOffsets(group, o);
    return this.resetOffsets([group], o);
  }

  /**
   * --all-groups: every group the brokers list, in the order of the Java AdminClient's per-group HashMap.
   * --reset-offsets treats them together (one table or CSV); --describe and --delete go group by group.
   */
  private async runForAllGroups(o: ConsumerGroupsOptions): Promise<number> {
    const listed = await this.service.listGroups();
    const groups = javaHashMapOrder(listed, javaStringHash, listed.length);
    if (o.resetOffsets) return this.resetOffsets(groups, o);
    if (o.delete) return this.deleteAll(groups);
    let status = 0;
    for (const group of groups) {
      try {
        status = Math.max(status, await this.describe(group, o));
      } catch (err) {
        if (!(err instanceof CliError)) throw err;
        this.out(err.message);
        status = 1;
      }
    }
    return status;
  }

  /** deleteGroups over all groups: Kafka's one success line, or the failures and then the groups deleted. */
  private async deleteAll(groups: string[]): Promise<number> {
    const results = await Promise.all(groups.map(async (g) => [g, await this.service.deleteGroup(g)] as const));
    const ok = results.filter(([, e]) => e === null).map(([g]) => g);
    const bad = results.filter(([, e]) => e !== null);
    const quoted = (list: string[]): string => `'${list.join("', '")}'`;
    if (bad.length === 0) {
      this.out(`Deletion of requested consumer groups (${quoted(ok)}) was successful.`);
      return 0;
    }
    this.out('');
    this.out('Error: Deletion of some consumer groups failed:');
    for (const [g, e] of bad) this.out(`* Group '${g}' could not be deleted due to: ${String(e)}`);
    if (ok.length > 0) this.out(`\nThese consumer groups were deleted successfully: ${quoted(ok)}`);
    return 1;
  }

  private missing(group: string, o: ConsumerGroupsOptions): CliError {
    return new CliError(o.zookeeper !== undefined ? `Error: The consumer group '${group}' does not exist.` : `Error: Consumer group '${group}' does not exist.`);
  }

  /** Kafka's printGroupStates: `GROUP STATE`, the group column at least 15 wide. */
  private async listWithState(states: string[]): Promise<number> {
    const listed = await this.service.listGroupsWithState!(states);
    const gw = Math.max(15, ...listed.map((g) => g.groupId.length));
    this.out(`${pad('GROUP', gw)} STATE`);
    for (const g of listed) this.out(`${pad(g.groupId, gw)} ${g.state}`);
    return 0;
  }

  /** Kafka's shouldPrintMemberState: the notes on stderr; a missing group is an error. */
  private noteState(group: string, d: GroupDescription, o: ConsumerGroupsOptions): void {
    if (d.state === 'Dead') throw this.missing(group, o);
    if (d.state === 'Empty') this.err(`\nConsumer group '${group}' has no active members.`);
    if (d.state === 'PreparingRebalance' || d.state === 'CompletingRebalance') this.err(`\nWarning: Consumer group '${group}' is rebalancing.`);
  }

  /**
   * Kafka's printStates. Its first column is as wide as the coordinator's (at least 25) and the coordinator's is
   * 25: Kafka's format string, reproduced as it prints.
   */
  private printState(group: string, d: GroupDescription): void {
    const c = d.coordinator!;
    const coordinator = `${c.host}:${c.port} (${c.id})`;
    const cw = Math.max(25, coordinator.length);
    const line = (g: string, co: string, strategy: string, state: string, members: string): string => `${pad(g, cw)} ${pad(co, 25)} ${pad(strategy, 20)} ${pad(state, 15)} ${members}`;
    this.out('');
    this.out(line('GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS'));
    this.out(line(group, coordinator, d.assignmentStrategy ?? '', d.state, String(d.members?.length ?? 0)));
  }

  /**
   * Kafka's printMembers: GROUP-INSTANCE-ID only when some member has one, trailing blanks as Kafka's format
   * leaves them, and with --verbose each member's partitions as `topic(0,1)`, topics sorted.
   */
  private printMembers(group: string, d: GroupDescription, verbose: boolean): void {
    const members = d.members ?? [];
    if (members.length === 0) return;
    const width = (min: number, pick: (m: (typeof members)[number]) => string): number => Math.max(min, ...members.map((m) => pick(m).length));
    const gw = Math.max(15, group.length);
    const [cw, iw, hw, kw] = [width(15, (m) => m.consumerId), width(17, (m) => m.groupInstanceId), width(15, (m) => m.host), width(15, (m) => m.clientId)];
    const withInstance = members.some((m) => m.groupInstanceId.length > 0);
    const row = (g: string, c: string, i: string, h: string, k: string, n: string): string =>
      withInstance ? `${pad(g, gw)} ${pad(c, cw)} ${pad(i, iw)} ${pad(h, hw)} ${pad(k, kw)} ${pad(n, 15)} ` : `${pad(g, gw)} ${pad(c, cw)} ${pad(h, hw)} ${pad(k, kw)} ${pad(n, 15)} `;
    this.out('');
    this.out(row('GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS') + (verbose ? 'ASSIGNMENT' : ''));
    for (const m of members) {
      let assignment = '';
      if (verbose) {
        const byTopic = new Map<string, number[]>();
        for (const tp of m.assignment) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
        const parts = [...byTopic].map(([t, ps]) => `${t}(${ps.sort((a, b) => a - b).join(',')})`).sort();
        assignment = parts.length === 0 ? '-' : parts.join(', ');
      }
      this.out(row(group, m.consumerId, m.groupInstanceId, m.host, m.clientId, String(m.assignment.length)) + assignment);
    }
  }

  private async describe(group: string, o: ConsumerGroupsOptions): Promise<number> {
    const d = await this.service.describeGroup(group);
    this.noteState(group, d, o);
    if (o.state !== undefined) {
      this.printState(group, d);
      return 0;
    }
    if (o.members) {
      this.printMembers(group, d, o.verbose === true);
      return 0;
    }
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

  /**
   * ConsumerGroupService.resetOffsets: each inactive group's new offsets (an active one is reported and left
   * alone), committed with --execute; then Kafka's table, or with --export its CSV.
   */
  private async resetOffsets(groups: string[], o: ConsumerGroupsOptions): Promise<number> {
    if (!o.execute && !o.dryRun) {
      this.err(
        'WARN: No action will be performed as the --execute option is missing.In a future major release, the default behavior of this command will be to prompt the user before executing the reset rather than doing a dry run. You should add the --dry-run option explicitly if you are scripting this command and want to keep the current default behavior without prompting.',
      );
    }
    let plan: Map<string, PlannedOffset[]> | undefined;
    if (o.fromFile !== undefined) {
      let csv: string;
      try {
        csv = readFileSync(o.fromFile, 'utf8');
      } catch (e) {
        throw new CliError(`Error: Executing consumer group command failed due to ${o.fromFile} (${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : String(e)})`);
      }
      plan = parseResetPlan(csv, o.allGroups ? undefined : o.group);
    }
    const results = new Map<string, PlannedOffset[]>();
    for (const group of groups) {
      const d = await this.service.describeGroup(group);
      if (d.state !== 'Empty' && d.state !== 'Dead') {
        this.out('');
        this.out(`Error: Assignments can only be reset if the group '${group}' is inactive, but the current state is ${d.state}.`);
        results.set(group, []);
        continue;
      }
      let target: PlannedOffset[];
      if (plan !== undefined) {
        const forGroup = plan.get(group);
        if (forGroup === undefined) {
          this.out('');
          this.out(`Error: No reset plan for group ${group} found`);
          results.set(group, []);
          continue;
        }
        target = await this.clamp(forGroup);
      } else {
        target = await this.prepareOffsets(await this.resetScope(o, d), d, o);
      }
      if (o.execute) await this.service.commitOffsets(group, target);
      results.set(group, target);
    }
    if (o.export) {
      this.out(exportOffsetsToCsv(results, !o.allGroups));
      return 0;
    }
    if (results.size > 0) {
      this.out('');
      this.out(formatResetRow('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'));
    }
    for (const [group, target] of results) for (const t of target) this.out(formatResetRow(group, t.topic, String(t.partition), String(t.offset)));
    return 0;
  }

  /** checkOffsetsRange: a requested offset outside the log is moved to its nearest end. */
  private async clamp(requested: readonly PlannedOffset[]): Promise<PlannedOffset[]> {
    const [earliest, latest] = await Promise.all([this.service.listOffsets(requested, -2), this.service.listOffsets(requested, -1)]);
    return requested.map((r, i) => ({ topic: r.topic, partition: r.partition, offset: Math.min(latest[i]!, Math.max(earliest[i]!, r.offset)) }));
  }

  /** prepareOffsetsToReset for the scenarios other than --from-file. */
  private async prepareOffsets(tps: TopicPartition[], d: GroupDescription, o: ConsumerGroupsOptions): Promise<PlannedOffset[]> {
    const committed = new Map(d.committed.map((c) => [tpString(c), c.offset]));
    if (o.toDatetime !== undefined || o.byDuration !== undefined) {
      const timestamp = o.toDatetime !== undefined ? parseDateTime(o.toDatetime) : Date.now() - parseDuration(o.byDuration as string);
      const found = await this.service.offsetsForTimes!(tps, timestamp);
      // getLogTimestampOffsets: a partition with no record that late falls back to its log end offset.
      const latest = await this.service.listOffsets(tps, -1);
      return tps.map((tp, i) => ({ ...tp, offset: found[i]! >= 0 ? found[i]! : latest[i]! }));
    }
    if (o.toEarliest || o.toLatest) {
      const offsets = await this.service.listOffsets(tps, o.toEarliest ? -2 : -1);
      return tps.map((tp, i) => ({ ...tp, offset: offsets[i]! }));
    }
    if (o.toCurrent) {
      const latest = await this.service.listOffsets(tps, -1);
      return tps.map((tp, i) => ({ ...tp, offset: committed.get(tpString(tp)) ?? latest[i]! }));
    }
    if (o.shiftBy !== undefined) {
      const requested = tps.map((tp) => {
        const current = committed.get(tpString(tp));
        if (current === undefined) throw new CliError(`Error: Executing consumer group command failed due to Cannot shift offset for partition ${tpString(tp)} since there is no current committed offset`);
        return { ...tp, offset: current + Number(o.shiftBy) };
      });
      return this.clamp(requested);
    }
    return this.clamp(tps.map((tp) => ({ ...tp, offset: Number(o.toOffset) })));
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
