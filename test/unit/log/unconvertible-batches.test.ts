import * as path from 'node:path';
import { Scheduler } from '../../../src/common/scheduler';
import { createLogConfig } from '../../../src/common/config/log-config';
import { Log } from '../../../src/log/log';
import { CompressionType } from '../../../src/records/compression-type';
import { readLegacyMessages } from '../../../src/records/legacy-message-set';
import { batchesIn } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { downConvertUntilError } from '../../../src/records/record-conversion';
import { MockClock } from '../../helpers/mock-clock';
import { quietLogging } from '../../helpers/quiet-logging';
import { gzipZeros, rawBatch } from '../../helpers/raw-records';
import { makeTempDir, removeDir } from './log-test-utils';

const MiB = 1024 * 1024;

/**
 * Batches a leader would refuse can still be in a log: written before validation walked records, or replicated
 * (followers keep what the leader sent, as in Kafka). Old fetchers must get an error for that partition, and the
 * log must reopen — cleanly or after a crash — without tripping over them.
 */
describe('stored batches that cannot be down-converted', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  let root: string;
  let clock: MockClock;
  let scheduler: Scheduler;
  const config = createLogConfig({}, { 'max.message.bytes': String(2 * MiB) });
  beforeEach(() => {
    root = makeTempDir();
    clock = new MockClock();
    scheduler = new Scheduler(clock);
  });
  afterEach(async () => {
    await scheduler.shutdown();
    removeDir(root);
  });

  function good(baseOffset: number, count: number): Buffer {
    const b = new RecordBatchBuilder({ baseOffset });
    for (let i = 0; i < count; i++) b.append({ timestamp: 1000 + i, value: Buffer.from(`v${baseOffset + i}`) });
    return b.build();
  }

  const garbage = (baseOffset: number): Buffer => rawBatch(Buffer.from('\x07garbage records, valid CRC'), { baseOffset, count: 2, firstTimestamp: 1000 });
  const bomb = (baseOffset: number): Buffer => rawBatch(Buffer.alloc(0), { baseOffset, count: 1, compression: CompressionType.GZIP, compressed: gzipZeros(1024 * MiB), firstTimestamp: 1000 });

  it('converts up to the bad batch, then answers its error; recovery keeps the log as it is, every time', async () => {
    const dir = path.join(root, 'old-0');
    let log = Log.open({ dir, config, clock, scheduler });
    await log.appendAsFollower(good(0, 3));
    await log.appendAsFollower(garbage(3));
    await log.appendAsFollower(good(5, 2));
    await log.appendAsFollower(bomb(7));
    await log.appendAsFollower(good(8, 1));
    const leo = log.logEndOffset;
    expect(leo).toBe(9);
    expect(log.numberOfSegments).toBe(1);
    const cap = 128 * MiB;

    const check = (l: Log): void => {
      // from 0: the first batch converts, the conversion stops before the garbage
      const first = downConvertUntilError(l.read(0, 10 * MiB).records, 1, 0, cap);
      expect(readLegacyMessages(first.records).map((m) => m.offset)).toEqual([0, 1, 2]);
      expect(first.stoppedBy?.errorName).toBe('CORRUPT_MESSAGE');
      // at the garbage: its error
      expect(() => downConvertUntilError(l.read(3, 10 * MiB).records, 1, 3, cap)).toThrow(expect.objectContaining({ errorName: 'CORRUPT_MESSAGE' }));
      // at the bomb: refused at the cap, quickly
      const start = Date.now();
      expect(() => downConvertUntilError(l.read(7, 10 * MiB).records, 0, 7, cap)).toThrow(expect.objectContaining({ errorName: 'CORRUPT_MESSAGE' }));
      expect(Date.now() - start).toBeLessThan(3000);
      // past it, fine; new fetchers get the stored bytes as they are
      expect(readLegacyMessages(downConvertUntilError(l.read(8, MiB).records, 1, 8, cap).records).map((m) => m.offset)).toEqual([8]);
      expect(batchesIn(l.read(3, MiB).records)[0]?.baseOffset).toBe(3);
    };
    check(log);
    await log.close(); // no clean-shutdown marker: the next opens recover from the recovery point
    for (let i = 0; i < 3; i++) {
      log = Log.open({ dir, config, clock, scheduler, recoveryPoint: 0 });
      expect(log.logEndOffset).toBe(leo);
      check(log);
      await log.close();
    }
  });

  it('refuses zstd batches to old fetchers with UNSUPPORTED_COMPRESSION_TYPE, after converting what comes before', () => {
    const zstdBatch = new RecordBatchBuilder({ baseOffset: 2, compression: CompressionType.ZSTD }).append({ value: Buffer.from('z') }).build();
    const bytes = Buffer.concat([good(0, 2), zstdBatch]);
    expect(downConvertUntilError(bytes, 1, 0).stoppedBy?.errorName).toBe('UNSUPPORTED_COMPRESSION_TYPE');
    expect(() => downConvertUntilError(bytes, 1, 2)).toThrow(expect.objectContaining({ errorName: 'UNSUPPORTED_COMPRESSION_TYPE' }));
  });
});
