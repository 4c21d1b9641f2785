import { TopicPartition } from '../common/topic-partition';
import { CliError } from './cli';

/*
 * The parts of Kafka's ConsumerGroupCommand reset that are pure text: the --to-datetime and --by-duration values,
 * the --from-file CSV plan, the --export CSV and the "GROUP TOPIC PARTITION NEW-OFFSET" table.
 */

const failed = (message: string): CliError => new CliError(`Error: Executing consumer group command failed due to ${message}`);

/**
 * Kafka's Utils.getDateTime: `yyyy-MM-dd'T'HH:mm:ss.SSS` with an optional zone (`Z`, `+hh:mm`, `+hhmm`, `+hh`);
 * without one the time is UTC (Kafka appends "Z").
 */
export function parseDateTime(text: string): number {
  const parts = text.split('T');
  if (parts.length < 2) throw failed("Error parsing timestamp. It does not contain a 'T' according to ISO8601 format");
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (m === null) throw failed(`Unparseable date: "${text}"`);
  const [, y, mo, d, h, mi, sec, ms, zone] = m as unknown as [string, string, string, string, string, string, string, string, string | undefined];
  let offsetMinutes = 0;
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number(ms)) - offsetMinutes * 60000;
}

/** java.time.Duration.parse (`PnDTnHnMn.nS`, signs allowed), in milliseconds. */
export function parseDuration(text: string): number {
  const m = /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i.exec(text);
  if (m === null || m[3] === 'T' || m[3] === 't' || (m[2] === undefined && m[3] === undefined)) throw failed('Text cannot be parsed to a Duration');
  const n = (v: string | undefined): number => (v === undefined ? 0 : Number(v));
  const seconds = n(m[6]);
  const fraction = m[7] === undefined || m[7] === '' ? 0 : Number(`0.${m[7]}`) * (m[6]?.startsWith('-') ? -1 : 1);
  const ms = n(m[2]) * 86_400_000 + n(m[4]) * 3_600_000 + n(m[5]) * 60_000 + seconds * 1000 + Math.trunc(fraction * 1000);
  return m[1] === '-' ? -ms : ms;
}

export interface PlannedOffset extends TopicPartition {
  offset: number;
}

/**
 * ConsumerGroupService.parseResetPlan: `topic,partition,offset` lines for a single --group (the old format,
 * recognised by its first line), `group,topic,partition,offset` otherwise; by group, in the file's order.
 */
export function parseResetPlan(csv: string, singleGroup: string | undefined): Map<string, PlannedOffset[]> {
  const lines = csv.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const isOldFormat = lines.length > 0 && lines[0]!.split(',').length === 3;
  const plan = new Map<string, PlannedOffset[]>();
  for (const line of lines) {
    const cells = line.split(',').map((c) => c.trim());
    const withGroup = !(singleGroup !== undefined && isOldFormat);
    if (cells.length !== (withGroup ? 4 : 3)) throw failed(`Invalid reset plan line '${line}': expected ${withGroup ? 'group,topic,partition,offset' : 'topic,partition,offset'}`);
    const [group, topic, partition, offset] = (withGroup ? cells : [singleGroup, ...cells]) as [string, string, string, string];
    if (!/^-?\d+$/.test(partition) || !/^-?\d+$/.test(offset)) throw failed(`Invalid reset plan line '${line}': partition and offset must be numbers`);
    const list = plan.get(group) ?? [];
    const at = list.findIndex((p) => p.topic === topic && p.partition === Number(partition));
    const entry = { topic, partition: Number(partition), offset: Number(offset) };
    if (at >= 0) list[at] = entry;
    else list.push(entry);
    plan.set(group, list);
  }
  return plan;
}

/** exportOffsetsToCsv: Jackson's CSV rows, with the group column unless exactly one --group was given. */
export function exportOffsetsToCsv(assignments: ReadonlyMap<string, readonly PlannedOffset[]>, singleGroup: boolean): string {
  let rows = '';
  for (const [group, offsets] of assignments) {
    for (const o of offsets) rows += singleGroup ? `${o.topic},${o.partition},${o.offset}\n` : `${group},${o.topic},${o.partition},${o.offset}\n`;
  }
  return rows;
}

/** printOffsetsToReset's rows: Kafka's "%-30s %-30s %-10s %-15s" (the last column padded too). */
export function formatResetRow(group: string, topic: string, partition: string, offset: string): string {
  return `${group.padEnd(30)} ${topic.padEnd(30)} ${partition.padEnd(10)} ${offset.padEnd(15)}`;
}
