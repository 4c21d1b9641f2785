import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { OffsetIndex } from '../../../src/log/offset-index';
import { TimeIndex } from '../../../src/log/time-index';
import { OffsetCheckpointFile } from '../../../src/log/offset-checkpoint-file';
import { LeaderEpochFileCache } from '../../../src/log/leader-epoch-file-cache';
import { filenamePrefixFromOffset, offsetFromFileName, parseTopicPartitionName } from '../../../src/log/log-file-names';
import { makeTempDir, removeDir } from './log-test-utils';

describe('offset and time indexes', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir('kafka-ts-idx-');
  });
  afterEach(() => removeDir(dir));

  it('stores 8-byte big-endian (relative offset, position) entries and finds the largest entry <= target', () => {
    const idx = new OffsetIndex(path.join(dir, '00000000000000000100.index'), 100, 1024);
    idx.append(105, 0);
    idx.append(110, 4096);
    idx.append(130, 9000);
    idx.close();
    expect(fs.readFileSync(path.join(dir, '00000000000000000100.index')).toString('hex')).toBe('00000005' + '00000000' + '0000000a' + '00001000' + '0000001e' + '00002328');
    const again = new OffsetIndex(path.join(dir, '00000000000000000100.index'), 100, 1024);
    expect(again.entries).toBe(3);
    expect(again.lookup(99)).toEqual({ offset: 100, position: 0 });
    expect(again.lookup(104)).toEqual({ offset: 100, position: 0 });
    expect(again.lookup(110)).toEqual({ offset: 110, position: 4096 });
    expect(again.lookup(129)).toEqual({ offset: 110, position: 4096 });
    expect(again.lookup(1000)).toEqual({ offset: 130, position: 9000 });
    again.truncateTo(110);
    expect(again.entries).toBe(1);
    expect(() => again.append(104, 10)).toThrow();
    again.close();
  });

  it('lookup agrees with a linear scan (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 100000 }), { minLength: 0, maxLength: 200 }), fc.integer({ min: -5, max: 100005 }), (offsets, target) => {
        const sorted = [...offsets].sort((a, b) => a - b);
        const file = path.join(dir, `p-${Math.random().toString(36).slice(2)}.index`);
        const idx = new OffsetIndex(file, 0, 1 << 20);
        sorted.forEach((o, i) => idx.append(o, i * 10));
        let expected = { offset: 0, position: 0 };
        sorted.forEach((o, i) => {
          if (o <= target) expected = { offset: o, position: i * 10 };
        });
        expect(idx.lookup(target)).toEqual(expected);
        idx.deleteIfExists();
      }),
      { seed: 99, numRuns: 100 },
    );
  });

  it('time index keeps strictly increasing timestamps and reserves the last slot', () => {
    const t = new TimeIndex(path.join(dir, '00000000000000000000.timeindex'), 0, 36);
    expect(t.maxEntries).toBe(3);
    t.maybeAppend(1000, 5);
    t.maybeAppend(1000, 6); // not larger: skipped
    t.maybeAppend(900, 7); // smaller: skipped
    t.maybeAppend(2000, 9);
    expect(t.entries).toBe(2);
    expect(t.isFull()).toBe(true);
    t.maybeAppend(3000, 12, true); // the final entry on roll
    expect(t.lookup(1500)).toEqual({ timestamp: 1000, offset: 5 });
    expect(t.lookup(10)).toEqual({ timestamp: -1, offset: 0 });
    expect(t.lookup(5000)).toEqual({ timestamp: 3000, offset: 12 });
    t.truncateTo(9);
    expect(t.lastEntry()).toEqual({ timestamp: 1000, offset: 5 });
    t.close();
    expect(fs.statSync(path.join(dir, '00000000000000000000.timeindex')).size).toBe(12);
  });
});

describe('checkpoint files', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir('kafka-ts-ckpt-');
  });
  afterEach(() => removeDir(dir));

  it('writes and reads the offset checkpoint format', () => {
    const file = path.join(dir, 'recovery-point-offset-checkpoint');
    const c = new OffsetCheckpointFile(file);
    c.write([
      { topicPartition: { topic: 'orders', partition: 0 }, offset: 170533 },
      { topicPartition: { topic: '__consumer_offsets', partition: 17 }, offset: 0 },
    ]);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n2\norders 0 170533\n__consumer_offsets 17 0\n');
    expect([...c.read().entries()]).toEqual([
      ['orders-0', 170533],
      ['__consumer_offsets-17', 0],
    ]);
    expect(fs.existsSync(file + '.tmp')).toBe(false);
  });

  it('rejects a wrong version or entry count', () => {
    const file = path.join(dir, 'x');
    fs.writeFileSync(file, '1\n0\n');
    expect(() => new OffsetCheckpointFile(file).read()).toThrow(/Unrecognized version of the checkpoint file/);
    fs.writeFileSync(file, '0\n2\na 0 1\n');
    expect(() => new OffsetCheckpointFile(file).read()).toThrow(/Expected 2 entries/);
    expect(new OffsetCheckpointFile(path.join(dir, 'missing')).read().size).toBe(0);
  });

  it('keeps the leader epoch cache monotonic and persisted', () => {
    const file = path.join(dir, 'leader-epoch-checkpoint');
    const cache = new LeaderEpochFileCache(file);
    cache.assign(0, 0);
    cache.assign(0, 5); // same epoch, later offset: no change
    cache.assign(3, 170410);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n2\n0 0\n3 170410\n');
    expect(cache.endOffsetFor(0, 200000)).toEqual({ epoch: 0, startOffset: 170410 });
    expect(cache.endOffsetFor(3, 200000)).toEqual({ epoch: 3, startOffset: 200000 });
    expect(cache.endOffsetFor(2, 200000)).toEqual({ epoch: 0, startOffset: 170410 });
    expect(cache.endOffsetFor(9, 200000)).toEqual({ epoch: -1, startOffset: -1 });
    cache.assign(2, 100); // a lower epoch at a lower offset replaces the later entries
    expect(cache.entries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 100 },
    ]);
    cache.truncateFromStart(50);
    expect(cache.entries()).toEqual([
      { epoch: 0, startOffset: 50 },
      { epoch: 2, startOffset: 100 },
    ]);
    cache.truncateFromEnd(100);
    expect(new LeaderEpochFileCache(file).entries()).toEqual([{ epoch: 0, startOffset: 50 }]);
  });
});

describe('file names', () => {
  it('formats base offsets as 20 digits and parses partition directories', () => {
    expect(filenamePrefixFromOffset(170410)).toBe('00000000000000170410');
    expect(offsetFromFileName('00000000000000170410.timeindex')).toBe(170410);
    expect(parseTopicPartitionName('my-topic-with-dashes-12')).toEqual({ topic: 'my-topic-with-dashes', partition: 12 });
    expect(parseTopicPartitionName('orders-0.0123456789abcdef0123456789abcdef-delete')).toEqual({ topic: 'orders', partition: 0 });
    expect(parseTopicPartitionName('orders')).toBeUndefined();
    expect(parseTopicPartitionName('orders-x')).toBeUndefined();
  });
});
