/** One acknowledged write: the broker said `value` is at `offset` of `partition`. */
export interface Ack {
  partition: number;
  offset: number;
  value: string;
  at: number;
}

/** One write the producer gave up on (it may or may not be in the log: it was never acknowledged). */
export interface SendError {
  partition: number;
  value: string;
  at: number;
  message: string;
  /** Kafka's error name and code (NOT_ENOUGH_REPLICAS (19)), or the client's error name (a timeout, a closed connection). */
  error: string;
}

/** A record as the log (or a consumer) has it. */
export interface LoggedRecord {
  partition: number;
  offset: number;
  value: string;
}

/** What the workload recorded, and what the cluster holds after the faults healed. */
export interface History {
  partitions: number;
  startedAt: number;
  endedAt: number;
  /** Every value sent, to the partition it was sent to. */
  sent: Map<string, number>;
  /** When each value was handed to the producer. */
  sentAt: Map<string, number>;
  acks: Ack[];
  errors: SendError[];
  /** What the consumer group read during the run. */
  reads: LoggedRecord[];
  /** The group's committed offset per partition at the end (absent: none committed). */
  committed: Map<number, number>;
  /** Every record below the high watermark, per partition, as the leader's log holds it after the heal. */
  finalLog: Map<number, LoggedRecord[]>;
  /** Partitions whose replicas are not byte-identical below the high watermark. */
  divergentPartitions: number[];
}

export interface CheckResult {
  acknowledged: number;
  errors: number;
  /** Acknowledged values not found at their acknowledged offset. */
  lost: number;
  /** Values present more than once in a partition (extra copies counted). */
  duplicated: number;
  /** Values present after a value that was sent only once they were acknowledged (causal order broken). */
  reordered: number;
  /** Values present that were never sent (or sent to another partition). */
  neverSent: number;
  /** Partitions whose replicas differ below the high watermark. */
  divergent: number;
  /** Records the group read that the final log does not hold at that offset. */
  readsNotInLog: number;
  /** Partitions whose committed group offset is past the last offset the group read + 1. */
  offsetsAhead: number;
  /** The longest stretch without an acknowledgement, per partition (ms, from the start to the end of the run). */
  longestUnavailableMs: Map<number, number>;
  /** The first few problems, for a human. */
  examples: string[];
}

/** Checks a recorded history against the final state of the cluster: pure, so it can be tested on its own. */
export function checkHistory(h: History): CheckResult {
  const examples: string[] = [];
  const note = (s: string): void => {
    if (examples.length < 20) examples.push(s);
  };
  const atOffset = new Map<number, Map<number, string>>();
  for (const [p, records] of h.finalLog) atOffset.set(p, new Map(records.map((r) => [r.offset, r.value])));

  let lost = 0;
  for (const a of h.acks) {
    const found = atOffset.get(a.partition)?.get(a.offset);
    if (found !== a.value) {
      lost++;
      note(`lost: ${a.value} acknowledged at ${a.partition}@${a.offset}, log has ${found ?? 'nothing'} there`);
    }
  }

  let duplicated = 0;
  let reordered = 0;
  let neverSent = 0;
  const ackedAt = new Map(h.acks.map((a) => [a.value, a.at]));
  for (const [p, records] of h.finalLog) {
    const seen = new Set<string>();
    // The latest send time among the records so far: a record acknowledged before that send came after it.
    let latestSend = -Infinity;
    for (const r of records) {
      if (h.sent.get(r.value) !== p) {
        neverSent++;
        note(`never sent to partition ${p}: ${r.value} at ${p}@${r.offset}`);
        continue;
      }
      if (seen.has(r.value)) {
        duplicated++;
        note(`duplicate: ${r.value} again at ${p}@${r.offset}`);
        continue;
      }
      seen.add(r.value);
      // Only order that the producer promised counts: writes in flight together (max.in.flight 5) may land in
      // either order as the client issues them; a write sent after another was acknowledged must land after it.
      const acked = ackedAt.get(r.value);
      if (acked !== undefined && latestSend > acked) {
        reordered++;
        note(`reordered: ${r.value} (acknowledged at ${acked}) at ${p}@${r.offset} after a value sent at ${latestSend}`);
      }
      latestSend = Math.max(latestSend, h.sentAt.get(r.value) ?? -Infinity);
    }
  }

  let readsNotInLog = 0;
  const maxRead = new Map<number, number>();
  for (const r of h.reads) {
    if (atOffset.get(r.partition)?.get(r.offset) !== r.value) {
      readsNotInLog++;
      note(`read ${r.value} at ${r.partition}@${r.offset}, the log has ${atOffset.get(r.partition)?.get(r.offset) ?? 'nothing'} there`);
    }
    maxRead.set(r.partition, Math.max(maxRead.get(r.partition) ?? -1, r.offset));
  }
  let offsetsAhead = 0;
  for (const [p, committed] of h.committed) {
    if (committed > (maxRead.get(p) ?? -1) + 1) {
      offsetsAhead++;
      note(`group committed ${committed} for partition ${p} but read only up to ${maxRead.get(p) ?? 'nothing'}`);
    }
  }

  const longestUnavailableMs = new Map<number, number>();
  for (let p = 0; p < h.partitions; p++) {
    const times = h.acks.filter((a) => a.partition === p).map((a) => a.at).sort((x, y) => x - y);
    let last = h.startedAt;
    let longest = 0;
    for (const t of [...times, h.endedAt]) {
      longest = Math.max(longest, t - last);
      last = Math.max(last, t);
    }
    longestUnavailableMs.set(p, longest);
  }

  return {
    acknowledged: h.acks.length,
    errors: h.errors.length,
    lost,
    duplicated,
    reordered,
    neverSent,
    divergent: h.divergentPartitions.length,
    readsNotInLog,
    offsetsAhead,
    longestUnavailableMs,
    examples,
  };
}

/** One line per check, as `npm run chaos` prints them. */
export function formatCheck(name: string, r: CheckResult): string {
  const unavailable = [...r.longestUnavailableMs].map(([p, ms]) => `p${p}=${(ms / 1000).toFixed(1)}s`).join(' ');
  return (
    `${name}: acknowledged=${r.acknowledged} errors=${r.errors} lost=${r.lost} duplicated=${r.duplicated} reordered=${r.reordered} ` +
    `never-sent=${r.neverSent} divergent=${r.divergent} reads-not-in-log=${r.readsNotInLog} offsets-ahead=${r.offsetsAhead} longest-unavailable: ${unavailable}` +
    (r.examples.length ? `\n  ${r.examples.join('\n  ')}` : '')
  );
}
