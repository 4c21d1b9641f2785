import { rangeAssign } from '../../../src/rebalance/range-assignor';
import { roundRobinAssign } from '../../../src/rebalance/round-robin-assignor';

const subs = (entries: [string, Record<string, number>][]): Map<string, Map<string, number>> => new Map(entries.map(([c, s]) => [c, new Map(Object.entries(s))]));
const flat = (m: Map<string, { topic: string; partition: number }[]>): Record<string, string[]> =>
  Object.fromEntries([...m].map(([thread, tps]) => [thread, tps.map((tp) => `${tp.topic}-${tp.partition}`)]));

describe('ZooKeeper consumer assignors', () => {
  it('range: contiguous ranges per topic, the first threads get the remainder', () => {
    const r = rangeAssign(subs([['g_b', { t: 1 }], ['g_a', { t: 2 }]]), new Map([['t', [0, 1, 2, 3, 4]]]));
    expect(flat(r)).toEqual({ 'g_a-0': ['t-0', 't-1'], 'g_a-1': ['t-2', 't-3'], 'g_b-0': ['t-4'] });
  });

  it('range: more threads than partitions leaves the last threads empty', () => {
    const r = rangeAssign(subs([['c1', { t: 1 }], ['c2', { t: 1 }], ['c3', { t: 1 }]]), new Map([['t', [1, 0]]]));
    expect(flat(r)).toEqual({ 'c1-0': ['t-0'], 'c2-0': ['t-1'], 'c3-0': [] });
  });

  it('roundrobin: partitions ordered by the hash of "[topic,partition]" dealt to sorted threads', () => {
    const r = roundRobinAssign(subs([['c2', { t: 1 }], ['c1', { t: 1 }]]), new Map([['t', [0, 1, 2, 3]]]));
    const all = Object.values(flat(r)).flat().sort();
    expect(all).toEqual(['t-0', 't-1', 't-2', 't-3']);
    expect(flat(r)['c1-0']).toHaveLength(2);
    // "[t,0]".hashCode < "[t,1]".hashCode < ... (the last character differs by one): plain alternation.
    expect(flat(r)).toEqual({ 'c1-0': ['t-0', 't-2'], 'c2-0': ['t-1', 't-3'] });
  });

  it('roundrobin: refuses different subscriptions', () => {
    expect(() => roundRobinAssign(subs([['c1', { t: 1 }], ['c2', { u: 1 }]]), new Map())).toThrow(/Round-robin assignment is allowed only/);
  });
});
