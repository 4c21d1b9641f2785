import { checkHistory } from '../../chaos/history-checker';
import type { History, LoggedRecord } from '../../chaos/history-checker';

const v = (p: number, seq: number): string => `run-p${p}-${seq}`;
const rec = (p: number, offset: number, value: string): LoggedRecord => ({ partition: p, offset, value });

/** Two partitions, values 0..4 on each, all acknowledged in place, read by the group and committed. */
function clean(): History {
  const sent = new Map<string, number>();
  const sentAt = new Map<string, number>();
  const acks: History['acks'] = [];
  const finalLog = new Map<number, LoggedRecord[]>();
  for (const p of [0, 1]) {
    const log: LoggedRecord[] = [];
    for (let i = 0; i < 5; i++) {
      sent.set(v(p, i), p);
      sentAt.set(v(p, i), 950 + i * 100);
      acks.push({ partition: p, offset: i, value: v(p, i), at: 1000 + i * 100 });
      log.push(rec(p, i, v(p, i)));
    }
    finalLog.set(p, log);
  }
  return {
    partitions: 2,
    startedAt: 1000,
    endedAt: 1500,
    sent,
    sentAt,
    acks,
    errors: [],
    reads: [...(finalLog.get(0) ?? []), ...(finalLog.get(1) ?? [])],
    committed: new Map([[0, 5], [1, 5]]),
    finalLog,
    divergentPartitions: [],
  };
}

describe('checkHistory', () => {
  it('finds nothing wrong in a clean history', () => {
    const r = checkHistory(clean());
    expect(r).toMatchObject({ acknowledged: 10, lost: 0, duplicated: 0, reordered: 0, neverSent: 0, divergent: 0, readsNotInLog: 0, offsetsAhead: 0 });
    expect(r.examples).toEqual([]);
  });

  it('counts an acknowledged value missing from, or moved within, its partition as lost', () => {
    const h = clean();
    h.finalLog.set(0, [rec(0, 0, v(0, 0)), rec(0, 1, v(0, 2)), rec(0, 2, v(0, 3)), rec(0, 3, v(0, 4))]);
    h.reads = [];
    h.committed = new Map();
    const r = checkHistory(h);
    expect(r.lost).toBe(4);
    expect(r.examples[0]).toContain('lost: run-p0-1 acknowledged at 0@1');
  });

  it('counts duplicates, reordering and values never sent to that partition', () => {
    const h = clean();
    h.finalLog.set(1, [rec(1, 0, v(1, 0)), rec(1, 1, v(1, 2)), rec(1, 2, v(1, 1)), rec(1, 3, v(1, 1)), rec(1, 4, v(0, 3)), rec(1, 5, 'stranger')]);
    const r = checkHistory(h);
    expect(r.duplicated).toBe(1);
    expect(r.reordered).toBe(1);
    expect(r.neverSent).toBe(2);
  });

  it('flags reads the final log does not hold and group offsets past what was read', () => {
    const h = clean();
    h.reads.push(rec(0, 7, 'gone'));
    h.committed.set(1, 9);
    const r = checkHistory(h);
    expect(r.readsNotInLog).toBe(1);
    expect(r.offsetsAhead).toBe(1);
  });

  it('does not count writes that were in flight together as reordered', () => {
    const h = clean();
    // 3 was sent before 2 was acknowledged (1160 < 1200): either order is allowed.
    h.sentAt.set(v(0, 3), 1160);
    h.finalLog.set(0, [rec(0, 0, v(0, 0)), rec(0, 1, v(0, 1)), rec(0, 2, v(0, 3)), rec(0, 3, v(0, 2)), rec(0, 4, v(0, 4))]);
    h.acks = h.acks.map((a) => (a.value === v(0, 3) ? { ...a, offset: 2 } : a.value === v(0, 2) ? { ...a, offset: 3 } : a));
    expect(checkHistory(h).reordered).toBe(0);
  });

  it('reports divergent partitions and the longest gap between acknowledgements', () => {
    const h = clean();
    h.divergentPartitions = [1];
    h.acks = h.acks.filter((a) => !(a.partition === 0 && a.offset === 2));
    h.finalLog.get(0)?.splice(2, 1, rec(0, 2, v(0, 2)));
    const r = checkHistory(h);
    expect(r.divergent).toBe(1);
    expect(r.longestUnavailableMs.get(0)).toBe(200);
    expect(r.longestUnavailableMs.get(1)).toBe(100);
  });
});
