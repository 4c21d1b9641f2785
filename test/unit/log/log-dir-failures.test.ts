import * as fs from 'node:fs';
import * as path from 'node:path';
import { Scheduler } from '../../../src/common/scheduler';
import { KafkaError } from '../../../src/common/kafka-error';
import { createLogConfig } from '../../../src/common/config/log-config';
import { DEFAULT_LOG_MANAGER_CONFIG } from '../../../src/log/log-manager-config';
import { LogManager } from '../../../src/log/log-manager';
import { Log } from '../../../src/log/log';
import {
  ioErrorKind,
  isLogDirFailure,
  isResourceError,
  isTransientStorageError,
  LOG_DIR_FAILURE_ERRNOS,
  LogDirFailureChannel,
  RESOURCE_ERRNOS,
} from '../../../src/log/log-dir-failure-channel';
import { batchesIn } from '../../../src/records/record-batch';
import { MockClock } from '../../helpers/mock-clock';
import { quietLogging } from '../../helpers/quiet-logging';
import { LogFixture, logFixture, makeBatch, makeTempDir, removeDir } from './log-test-utils';

type FsModule = Record<string, unknown>;
// The module object itself: the sources' `import * as fs` read through to it, so a patch here reaches them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const realFs = require('node:fs') as FsModule;

function errnoError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${syscall}`), { code, errno: -1, syscall });
}

/**
 * Makes the fs calls in `calls` fail with `code` while `when` (given the call's first argument) says so, until the
 * returned restore function runs. Callback-style calls (fs.writev) fail through their callback.
 */
function injectFault(calls: string[], code: string, when: (firstArg: unknown) => boolean = () => true): () => void {
  const saved = new Map<string, unknown>();
  for (const name of calls) {
    const original = realFs[name] as (...args: unknown[]) => unknown;
    saved.set(name, original);
    realFs[name] = (...args: unknown[]) => {
      if (!when(args[0])) return original(...args);
      const err = errnoError(code, name);
      const cb = args[args.length - 1];
      if (!name.endsWith('Sync') && typeof cb === 'function') {
        process.nextTick(() => (cb as (e: unknown) => void)(err));
        return undefined;
      }
      throw err;
    };
  }
  return () => {
    for (const [name, fn] of saved) realFs[name] = fn;
  };
}

async function caught(p: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

function readAllValues(log: Log): number[] {
  const offsets: number[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const { records } = log.read(offset, 1 << 20);
    if (records.length === 0) break;
    for (const b of batchesIn(records)) {
      for (let o = b.baseOffset; o <= b.lastOffset; o++) offsets.push(o);
      offset = b.lastOffset + 1;
    }
  }
  return offsets;
}

describe('error classification (which errnos take a log dir offline)', () => {
  it.each(['EIO', 'ENOSPC', 'EROFS', 'EDQUOT', 'EFBIG', 'ENXIO', 'EUCLEAN', 'ENOENT', 'ENOTDIR', 'EACCES', 'EPERM'])('%s is a log dir failure', (code) => {
    expect(ioErrorKind(errnoError(code, 'write'))).toBe('log-dir-failure');
    expect(isLogDirFailure(errnoError(code, 'write'))).toBe(true);
    expect(isResourceError(errnoError(code, 'write'))).toBe(false);
  });

  it.each(['EMFILE', 'ENFILE', 'ENOMEM', 'ENOBUFS', 'EAGAIN', 'EWOULDBLOCK', 'EINTR', 'EBUSY', 'EBADF', 'ECANCELED'])('%s is a resource error answered per request', (code) => {
    expect(ioErrorKind(errnoError(code, 'open'))).toBe('resource');
    expect(isLogDirFailure(errnoError(code, 'open'))).toBe(false);
  });

  it('an errno nobody listed counts as a failure of the dir (as every IOException in Kafka)', () => {
    expect(ioErrorKind(errnoError('ESOMETHINGNEW', 'write'))).toBe('log-dir-failure');
  });

  it('Kafka errors and bugs are not I/O errors', () => {
    expect(ioErrorKind(new KafkaError('CORRUPT_MESSAGE'))).toBeUndefined();
    expect(ioErrorKind(new TypeError('x is undefined'))).toBeUndefined();
    expect(ioErrorKind(Object.assign(new Error('odd'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeUndefined();
    expect(ioErrorKind(undefined)).toBeUndefined();
  });

  it('the documented lists do not overlap', () => {
    for (const code of LOG_DIR_FAILURE_ERRNOS) expect(RESOURCE_ERRNOS.has(code)).toBe(false);
  });
});

describe('Log under resource errors', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  let f: LogFixture;
  let restoreFs: () => void = () => undefined;
  beforeEach(() => {
    f = logFixture();
  });
  afterEach(async () => {
    restoreFs();
    restoreFs = () => undefined;
    await f.cleanup();
  });

  it('an EMFILE opening a new segment (roll) fails that append only; the log keeps going', async () => {
    const channel = new LogDirFailureChannel();
    const log = f.open({ 'segment.bytes': '700' }, { failureChannel: channel });
    await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100 }));
    await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100 }));
    expect(log.numberOfSegments).toBe(1);
    restoreFs = injectFault(['openSync'], 'EMFILE', (file) => typeof file === 'string' && file.endsWith('.log'));
    const err = await caught(log.appendAsLeader(makeBatch({ count: 2, valueSize: 100 })));
    restoreFs();
    expect(err).toBeInstanceOf(KafkaError);
    expect((err as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
    expect(isTransientStorageError(err)).toBe(true);
    expect(log.isOffline).toBe(false);
    expect(channel.offlineLogDirs()).toEqual([]);
    expect(log.numberOfSegments).toBe(1);
    const info = await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100 }));
    expect(info.firstOffset).toBe(4);
    expect(log.numberOfSegments).toBe(2);
    expect(readAllValues(log)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('an EMFILE on the write itself fails the appends in flight; the next append goes where the last written one ended', async () => {
    const channel = new LogDirFailureChannel();
    const log = f.open({}, { failureChannel: channel });
    await log.appendAsLeader(makeBatch({ count: 3 }));
    const sizeBefore = log.activeSegment().size;
    restoreFs = injectFault(['writevSync', 'writev'], 'EMFILE');
    const inFlight = [log.appendAsLeader(makeBatch({ count: 2 })), log.appendAsLeader(makeBatch({ count: 2 })), log.appendAsLeader(makeBatch({ count: 2, valueSize: 40_000 }))];
    const results = await Promise.allSettled(inFlight);
    restoreFs();
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect(((r as PromiseRejectedResult).reason as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
    }
    expect(log.isOffline).toBe(false);
    expect(channel.offlineLogDirs()).toEqual([]);
    expect(log.logEndOffset).toBe(3);
    const info = await log.appendAsLeader(makeBatch({ count: 2 }));
    expect(info.firstOffset).toBe(3);
    expect(log.activeSegment().size).toBe(sizeBefore + makeBatch({ count: 2 }).length);
    expect(readAllValues(log)).toEqual([0, 1, 2, 3, 4]);
    // What is on disk is what a reader sees: a reopened log (recovering everything) agrees.
    await log.close();
    const reopened = f.open({}, { hadCleanShutdown: false });
    expect(reopened.logEndOffset).toBe(5);
    expect(readAllValues(reopened)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a follower append hit by EAGAIN is refused and can be fetched again', async () => {
    const leader = f.open();
    for (let i = 0; i < 3; i++) await leader.appendAsLeader(makeBatch({ count: 2, seed: i }), 1);
    const fetched = leader.read(0, 1 << 20).records;
    await leader.close();
    const follower = Log.open({ dir: path.join(f.dir, 'orders-1'), config: f.config(), clock: f.clock, scheduler: f.scheduler });
    try {
      restoreFs = injectFault(['writevSync', 'writev'], 'EAGAIN');
      const err = await caught(follower.appendAsFollower(Buffer.from(fetched)));
      restoreFs();
      expect((err as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
      expect(follower.logEndOffset).toBe(0);
      await follower.appendAsFollower(Buffer.from(fetched));
      expect(follower.logEndOffset).toBe(6);
      expect(follower.leaderEpochCache.latestEpoch()).toBe(1);
      expect(readAllValues(follower)).toEqual([0, 1, 2, 3, 4, 5]);
    } finally {
      await follower.close();
    }
  });

  it('an ENOSPC on a write takes the dir offline for good', async () => {
    const channel = new LogDirFailureChannel();
    const log = f.open({}, { failureChannel: channel });
    await log.appendAsLeader(makeBatch());
    restoreFs = injectFault(['writevSync', 'writev'], 'ENOSPC');
    const err = await caught(log.appendAsLeader(makeBatch()));
    restoreFs();
    expect((err as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
    expect(isTransientStorageError(err)).toBe(false);
    expect(log.isOffline).toBe(true);
    expect(channel.offlineLogDirs()).toEqual([f.dir]);
    expect((await caught(log.appendAsLeader(makeBatch())) as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
  });

  it('truncateFullyAndStartAt keeps the old segments when the new one cannot be opened (ENFILE)', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 4 }));
    restoreFs = injectFault(['openSync'], 'ENFILE', (file) => typeof file === 'string' && file.endsWith('.log'));
    const err = await caught(log.truncateFullyAndStartAt(100));
    restoreFs();
    expect((err as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
    expect(log.isOffline).toBe(false);
    expect(log.logEndOffset).toBe(4);
    expect(readAllValues(log)).toEqual([0, 1, 2, 3]);
    expect(fs.readdirSync(f.logDir).filter((n) => n.endsWith('.deleted'))).toEqual([]);
    await log.truncateFullyAndStartAt(100);
    expect(log.logEndOffset).toBe(100);
  });
});

describe('LogManager and failed log dirs', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  let root: string;
  let dirs: string[];
  let clock: MockClock;
  let scheduler: Scheduler;
  let restoreFs: () => void = () => undefined;
  const managers: LogManager[] = [];

  beforeEach(() => {
    root = makeTempDir('kafka-ts-lm-fail-');
    dirs = ['a', 'b'].map((d) => path.join(root, d));
    clock = new MockClock();
    scheduler = new Scheduler(clock);
  });
  afterEach(async () => {
    restoreFs();
    restoreFs = () => undefined;
    for (const m of managers.splice(0)) await m.shutdown().catch(() => undefined);
    await scheduler.shutdown();
    removeDir(root);
  });

  const start = async (extra: Partial<ConstructorParameters<typeof LogManager>[0]> = {}, logDirs = dirs): Promise<LogManager> => {
    const m = new LogManager({ config: { ...DEFAULT_LOG_MANAGER_CONFIG, logDirs }, defaultConfig: createLogConfig({}), clock, scheduler, ...extra });
    managers.push(m);
    await m.startup();
    return m;
  };

  it('an EMFILE creating a log fails that request only, leaves no directory behind and the dir online', async () => {
    const m = await start();
    restoreFs = injectFault(['openSync'], 'EMFILE', (file) => typeof file === 'string' && file.includes('emfile-0'));
    const err = await caught(() => m.getOrCreateLog({ topic: 'emfile', partition: 0 }));
    restoreFs();
    expect(isTransientStorageError(err)).toBe(true);
    expect(m.offlineLogDirs()).toEqual([]);
    for (const d of dirs) expect(fs.existsSync(path.join(d, 'emfile-0'))).toBe(false);
    const log = m.getOrCreateLog({ topic: 'emfile', partition: 0 });
    expect((await log.appendAsLeader(makeBatch())).firstOffset).toBe(0);
  });

  it('an EMFILE writing a checkpoint is retried at the next run; the dir stays online', async () => {
    const m = await start();
    const log = m.getOrCreateLog({ topic: 'cp', partition: 0 });
    await log.appendAsLeader(makeBatch({ count: 3 }));
    log.updateHighWatermark(3);
    restoreFs = injectFault(['openSync'], 'EMFILE', (file) => typeof file === 'string' && file.endsWith('.tmp'));
    m.checkpointHighWatermarks();
    restoreFs();
    expect(m.offlineLogDirs()).toEqual([]);
    m.checkpointHighWatermarks();
    expect(m.readHighWatermarks(log.parentDir).get('cp-0')).toBe(3);
  });

  it('handleLogDirFailure drops the dir and its logs; the last dir halts the broker', async () => {
    const halts: number[] = [];
    const m = await start({ halt: (code) => halts.push(code) });
    const a = m.getOrCreateLog({ topic: 'x', partition: 0 });
    const b = m.getOrCreateLog({ topic: 'x', partition: 1 });
    expect(a.parentDir).not.toBe(b.parentDir);
    restoreFs = injectFault(['writevSync', 'writev'], 'EIO');
    await caught(a.appendAsLeader(makeBatch()));
    restoreFs();
    // The failure itself only stops the dir's logs; the ReplicaManager's handler does the rest.
    expect(m.isLogDirOnline(a.parentDir)).toBe(true);
    expect(m.offlineLogDirs()).toEqual([a.parentDir]);
    m.handleLogDirFailure(a.parentDir);
    expect(m.isLogDirOnline(a.parentDir)).toBe(false);
    expect(m.getLog({ topic: 'x', partition: 0 })).toBeUndefined();
    expect(m.liveLogDirs()).toEqual([b.parentDir]);
    expect(halts).toEqual([]);
    // Not new and a dir is offline: its log may be there; Kafka refuses to make an empty one elsewhere.
    expect(() => m.getOrCreateLog({ topic: 'x', partition: 0 }, undefined, { isNew: false })).toThrow(/Can not create log for x-0 because log directories .* are offline/);
    expect(m.getOrCreateLog({ topic: 'y', partition: 0 }, undefined, { isNew: true }).parentDir).toBe(b.parentDir);
    m.handleLogDirFailure(b.parentDir);
    expect(halts).toEqual([1]);
  });

  it('a log dir that cannot be used at startup is offline from the start; none usable is fatal', async () => {
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(dirs[1] as string, 'not a directory');
    const m = await start();
    expect(m.offlineLogDirs()).toEqual([dirs[1]]);
    expect(m.liveLogDirs()).toEqual([dirs[0]]);
    expect(m.getOrCreateLog({ topic: 'z', partition: 0 }).parentDir).toBe(dirs[0]);
    const m2 = new LogManager({ config: { ...DEFAULT_LOG_MANAGER_CONFIG, logDirs: dirs }, defaultConfig: createLogConfig({}), clock, scheduler, initialOfflineDirs: [dirs[0] as string] });
    await expect(m2.startup()).rejects.toThrow(`Shutdown broker because none of the specified log dirs from ${dirs.join(', ')} can be created or validated`);
  });

  it('a failed dir that is readable again serves again after a restart', async () => {
    const m = await start();
    const a = m.getOrCreateLog({ topic: 'r', partition: 0 });
    const b = m.getOrCreateLog({ topic: 'r', partition: 1 });
    await a.appendAsLeader(makeBatch({ count: 2 }));
    await b.appendAsLeader(makeBatch({ count: 2 }));
    restoreFs = injectFault(['writevSync', 'writev'], 'EIO', () => true);
    await caught(a.appendAsLeader(makeBatch()));
    restoreFs();
    m.handleLogDirFailure(a.parentDir);
    await m.shutdown();
    managers.splice(managers.indexOf(m), 1);
    const again = await start();
    expect(again.offlineLogDirs()).toEqual([]);
    expect(again.getLog({ topic: 'r', partition: 0 })?.logEndOffset).toBe(2);
    expect(again.getLog({ topic: 'r', partition: 1 })?.logEndOffset).toBe(2);
  });
});
