import { RecentBatches } from '../../../src/log/recent-batches';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';

function batch(baseOffset: number, count: number): Buffer {
  const b = new RecordBatchBuilder({ baseOffset });
  for (let i = 0; i < count; i++) b.append({ timestamp: 1, key: null, value: Buffer.from('v') });
  return b.build();
}

describe('RecentBatches', () => {
  it('answers offsets among the remembered batches exactly, and above them with null', () => {
    const recent = new RecentBatches();
    const a = batch(10, 3);
    const b = batch(13, 2);
    // Two batches in one append (a follower's), then one more.
    recent.add(Buffer.concat([a, b]), 1000);
    const c = batch(20, 1); // a gap (compaction) before it
    recent.add(c, 1000 + a.length + b.length);
    expect(recent.find(9)).toBeUndefined(); // may be in a batch before the oldest remembered one
    expect(recent.find(10)).toEqual({ offset: 10, lastOffset: 12, position: 1000, size: a.length });
    expect(recent.find(12)).toEqual({ offset: 10, lastOffset: 12, position: 1000, size: a.length });
    expect(recent.find(13)).toEqual({ offset: 13, lastOffset: 14, position: 1000 + a.length, size: b.length });
    expect(recent.find(16)).toEqual({ offset: 20, lastOffset: 20, position: 1000 + a.length + b.length, size: c.length });
    expect(recent.find(21)).toBeNull();
    recent.clear();
    expect(recent.find(10)).toBeUndefined();
  });

  it('keeps the latest 128 batches, and forgets everything on bytes it cannot parse', () => {
    const recent = new RecentBatches();
    let position = 0;
    for (let i = 0; i < 300; i++) {
      const one = batch(i, 1);
      recent.add(one, position);
      position += one.length;
    }
    expect(recent.find(171)).toBeUndefined();
    expect(recent.find(172)?.offset).toBe(172);
    expect(recent.find(299)?.offset).toBe(299);
    recent.add(Buffer.alloc(10), position);
    expect(recent.find(299)).toBeUndefined();
  });
});
