import * as fs from 'node:fs';
import * as path from 'node:path';
import { Scheduler } from '../../../src/common/scheduler';
import { KafkaError } from '../../../src/common/kafka-error';
import { createLogConfig } from '../../../src/common/config/log-config';
import { DEFAULT_LOG_MANAGER_CONFIG, logManagerConfigFrom } from '../../../src/log/log-manager-config';
import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { LogManager } from '../../../src/log/log-manager';
import { batchesIn } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { MockClock } from '../../helpers/mock-clock';
import { makeBatch, makeTempDir, removeDir } from './log-test-utils';
import { quietLogging } from '../../helpers/quiet-logging';

describe('LogManager', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  let root: string;
  let dirs: string[];
  let clock: MockClock;
  let scheduler: Scheduler;
  const managers: LogManager[] = [];

  beforeEach(() => {
    root = makeTempDir('kafka-ts-lm-');
    dirs = ['a', 'b', 'c'].map((d) => path.join(root, d));
    clock = new MockClock();
    scheduler = new Scheduler(clock);
  });
  afterEach(async () => {
    for (const m of managers.splice(0)) await m.shutdown().catch(() => undefined);
    await scheduler.shutdown();
    removeDir(root);
  });

  const start = async (overrides: Record<string, string> = {}, logDirs = dirs): Promise<LogManager> => {
    const m = new LogManager({
      config: { ...DEFAULT_LOG_MANAGER_CONFIG, logDirs, fileDeleteDelayMs: 1000 },
      defaultConfig: createLogConfig({}, overrides),
      clock,
      scheduler,
    });
    managers.push(m);
    await m.startup();
    return m;
  };

  it('places each new partition in the live log dir holding the fewest partitions', async () => {
    const m = await start();
    for (let p = 0; p < 6; p++) m.getOrCreateLog({ topic: 'orders', partition: p });
    const perDir = dirs.map((d) => fs.readdirSync(d).filter((n) => n.startsWith('orders-')).length);
    expect(perDir).toEqual([2, 2, 2]);
    expect(m.getOrCreateLog({ topic: 'orders', partition: 0 })).toBe(m.getLog({ topic: 'orders', partition: 0 }));
  });

  it('writes checkpoints in Kafka format and a clean-shutdown marker, and reloads without recovery', async () => {
    const m = await start();
    const log = m.getOrCreateLog({ topic: 'my-topic', partition: 3 });
    for (let i = 0; i < 3; i++) await log.appendAsLeader(makeBatch({ count: 2 }));
    log.updateHighWatermark(4);
    await m.shutdown();
    const dir = log.parentDir;
    expect(fs.readFileSync(path.join(dir, 'recovery-point-offset-checkpoint'), 'utf8')).toBe('0\n1\nmy-topic 3 6\n');
    expect(fs.readFileSync(path.join(dir, 'replication-offset-checkpoint'), 'utf8')).toBe('0\n1\nmy-topic 3 4\n');
    expect(fs.readFileSync(path.join(dir, 'log-start-offset-checkpoint'), 'utf8')).toBe('0\n0\n');
    expect(fs.existsSync(path.join(dir, '.kafka_cleanshutdown'))).toBe(true);

    const m2 = await start();
    expect(fs.existsSync(path.join(dir, '.kafka_cleanshutdown'))).toBe(false);
    const again = m2.getLog({ topic: 'my-topic', partition: 3 })!;
    expect([again.logEndOffset, again.highWatermark, again.recoveryPoint]).toEqual([6, 4, 6]);
    expect(batchesIn(again.read(0, 1 << 20).records).length).toBe(3);
  });

  it('reconfigureCleaner restarts the kafka-log-cleaner task with the new log.cleaner.backoff.ms', async () => {
    const m = await start();
    const runs = jest.spyOn(m, 'cleanDirtiestLog');
    m.reconfigureCleaner(100);
    expect(scheduler.taskNames().filter((n) => n === 'kafka-log-cleaner')).toHaveLength(1);
    clock.advance(100);
    await scheduler.idle();
    clock.advance(100);
    await scheduler.idle();
    expect(runs).toHaveBeenCalledTimes(2);
    await m.shutdown();
    m.reconfigureCleaner(50);
    expect(scheduler.taskNames()).not.toContain('kafka-log-cleaner');
  });

  it('runs retention, flush and checkpoint tasks on the scheduler', async () => {
    const m = await start({ 'segment.bytes': '500', 'retention.bytes': '600', 'retention.ms': '-1' });
    const log = m.getOrCreateLog({ topic: 't', partition: 0 });
    for (let i = 0; i < 12; i++) await log.appendAsLeader(makeBatch({ count: 1, valueSize: 150 }));
    log.updateHighWatermark(log.logEndOffset);
    const segmentsBefore = log.numberOfSegments;
    expect(scheduler.taskNames()).toEqual(expect.arrayContaining(['kafka-log-retention', 'kafka-log-flusher', 'kafka-recovery-point-checkpoint', 'kafka-log-start-offset-checkpoint']));
    clock.advance(29_999);
    await scheduler.idle();
    expect(log.numberOfSegments).toBe(segmentsBefore);
    clock.advance(1);
    await scheduler.idle();
    expect(log.numberOfSegments).toBeLessThan(segmentsBefore);
    expect(log.logStartOffset).toBeGreaterThan(0);
    // Kafka 2.x writes a start offset only when it is above the first segment's base offset
    expect(fs.readFileSync(path.join(log.parentDir, 'log-start-offset-checkpoint'), 'utf8')).toBe('0\n0\n');
    expect(fs.readFileSync(path.join(log.parentDir, 'recovery-point-offset-checkpoint'), 'utf8')).toMatch(/^0\n1\nt 0 \d+\n$/);
    await log.maybeIncrementLogStartOffset(log.logStartOffset + 1);
    clock.advance(60_000);
    await scheduler.idle();
    expect(fs.readFileSync(path.join(log.parentDir, 'log-start-offset-checkpoint'), 'utf8')).toBe(`0\n1\nt 0 ${log.logStartOffset}\n`);
  });

  it('recovers after an unclean shutdown (no marker) from the recovery point', async () => {
    const m = await start();
    const log = m.getOrCreateLog({ topic: 't', partition: 1 });
    for (let i = 0; i < 4; i++) await log.appendAsLeader(makeBatch({ count: 2 }));
    const file = log.activeSegment().file;
    await log.close(); // "kill -9": no checkpoints, no marker
    managers.splice(0);
    const goodSize = fs.statSync(file).size;
    fs.appendFileSync(file, Buffer.from('torn tail'));
    const m2 = await start();
    const again = m2.getLog({ topic: 't', partition: 1 })!;
    expect(again.logEndOffset).toBe(8);
    expect(fs.statSync(file).size).toBe(goodSize);
    expect(batchesIn(again.read(0, 1 << 20).records).length).toBe(4);
  });

  it('renames deleted partitions to -delete and removes them later', async () => {
    const m = await start();
    const log = m.getOrCreateLog({ topic: 'gone', partition: 0 });
    await log.appendAsLeader(makeBatch());
    const parent = log.parentDir;
    await m.asyncDelete({ topic: 'gone', partition: 0 });
    expect(m.getLog({ topic: 'gone', partition: 0 })).toBeUndefined();
    const names = fs.readdirSync(parent);
    expect(names.some((n) => /^gone-0\.[0-9a-f]{32}-delete$/.test(n))).toBe(true);
    clock.advance(1000);
    await scheduler.idle();
    expect(fs.readdirSync(parent).some((n) => n.startsWith('gone-0'))).toBe(false);
  });

  it('applies topic config changes to live logs', async () => {
    const m = await start();
    const log = m.getOrCreateLog({ topic: 'cfg', partition: 0 });
    m.updateTopicConfig('cfg', createLogConfig({}, { 'retention.ms': '1234' }));
    expect(log.config.retentionMs).toBe(1234);
  });

  it('takes a log dir offline on an I/O error and keeps serving from the others', async () => {
    const m = await start();
    const a = m.getOrCreateLog({ topic: 'io', partition: 0 });
    const b = m.getOrCreateLog({ topic: 'io', partition: 1 });
    expect(a.parentDir).not.toBe(b.parentDir);
    await a.appendAsLeader(makeBatch());
    await b.appendAsLeader(makeBatch());
    // Inject EIO into the next positional write (the module object itself, which the src's fs namespace reads through).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const realFs = require('node:fs') as { writev: typeof fs.writev; writevSync: typeof fs.writevSync };
    const realWritev = realFs.writev;
    const realWritevSync = realFs.writevSync;
    realFs.writevSync = (() => {
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', errno: -5, syscall: 'write' });
    }) as typeof fs.writevSync;
    realFs.writev = ((_fd: number, buffers: NodeJS.ArrayBufferView[], _position: number | null, cb: (err: NodeJS.ErrnoException | null, written: number, buffers: NodeJS.ArrayBufferView[]) => void) => {
      const err = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', errno: -5, syscall: 'write' }) as NodeJS.ErrnoException;
      process.nextTick(() => cb(err, 0, buffers));
    }) as unknown as typeof fs.writev;
    let caught: unknown;
    try {
      await a.appendAsLeader(makeBatch());
    } catch (e) {
      caught = e;
    } finally {
      realFs.writev = realWritev;
      realFs.writevSync = realWritevSync;
    }
    expect((caught as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
    expect(m.offlineLogDirs()).toEqual([a.parentDir]);
    expect(a.isOffline).toBe(true);
    await expect(a.appendAsLeader(makeBatch())).rejects.toMatchObject({ errorName: 'KAFKA_STORAGE_ERROR' });
    expect(() => a.read(0, 100)).toThrow(KafkaError);
    // the other dir is fine
    expect((await b.appendAsLeader(makeBatch())).firstOffset).toBe(1);
    // new partitions avoid the offline dir
    for (let p = 2; p < 6; p++) expect(m.getOrCreateLog({ topic: 'io', partition: p }).parentDir).not.toBe(a.parentDir);
  });

  it('flushes logs whose flush.ms elapsed from the kafka-log-flusher task', async () => {
    const m = new LogManager({
      config: { ...DEFAULT_LOG_MANAGER_CONFIG, logDirs: dirs, flushCheckIntervalMs: 500 },
      defaultConfig: createLogConfig({}, { 'flush.ms': '1000' }),
      clock,
      scheduler,
    });
    managers.push(m);
    await m.startup();
    const log = m.getOrCreateLog({ topic: 'f', partition: 0 });
    await log.appendAsLeader(makeBatch({ count: 3 }));
    expect(log.recoveryPoint).toBe(0);
    clock.advance(30_000);
    await scheduler.idle();
    expect(log.recoveryPoint).toBe(3);
  });

  it('compacts logs with cleanup.policy=compact from the kafka-log-cleaner task and checkpoints the cleaner offset', async () => {
    const m = await start();
    const log = m.getOrCreateLog({ topic: '__consumer_offsets', partition: 7 }, createLogConfig({}, { 'cleanup.policy': 'compact', 'segment.bytes': '300' }));
    const plain = m.getOrCreateLog({ topic: 'plain', partition: 0 });
    for (let i = 0; i < 12; i++) {
      const batch = new RecordBatchBuilder().append({ timestamp: clock.nowMs(), key: Buffer.from(`g${i % 2}`), value: Buffer.from(`offset-${i}`) }).build();
      await log.appendAsLeader(batch);
      await plain.appendAsLeader(makeBatch());
    }
    log.updateHighWatermark(log.logEndOffset);
    const sizeBefore = log.size;
    clock.advance(30_000);
    await scheduler.idle();
    expect(log.size).toBeLessThan(sizeBefore);
    expect(log.firstDirtyOffset).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(log.parentDir, 'cleaner-offset-checkpoint'), 'utf8')).toBe(`0\n1\n__consumer_offsets 7 ${log.firstDirtyOffset}\n`);
    expect(plain.numberOfSegments).toBe(1);
  });

  it('reads its settings from broker properties', () => {
    const props = (entries: Record<string, string>): KafkaConfig => KafkaConfig.fromProperties(new Map(Object.entries({ 'zookeeper.connect': 'zk:2181', ...entries })));
    const c = logManagerConfigFrom(props({ 'log.dirs': '/x, /y', 'log.retention.check.interval.ms': '1000' }));
    expect(c.logDirs).toEqual(['/x', '/y']);
    expect(c.retentionCheckIntervalMs).toBe(1000);
    expect(c.flushRecoveryOffsetCheckpointIntervalMs).toBe(60000);
    expect(() => logManagerConfigFrom(props({ 'log.retention.check.interval.ms': 'soon' }))).toThrow(/log.retention.check.interval.ms/);
    expect(logManagerConfigFrom(props({}))).toEqual(DEFAULT_LOG_MANAGER_CONFIG);
  });
});
