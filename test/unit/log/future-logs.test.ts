import fs from 'node:fs';
import path from 'node:path';
import { SystemClock } from '../../../src/common/time';
import { Scheduler } from '../../../src/common/scheduler';
import { createLogConfig } from '../../../src/common/config/log-config';
import { futureDirNameTooLong, isFutureDirName, logFutureDirName, parseTopicPartitionName } from '../../../src/log/log-file-names';
import { LogManager } from '../../../src/log/log-manager';
import { logManagerConfigFrom } from '../../../src/log/log-manager-config';
import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { tmpDir } from '../../helpers/tmp-dir';

describe('future log dir names (AlterReplicaLogDirs)', () => {
  it('names a future dir <topic>-<partition>.<32 hex>-future, parsed back to its partition', () => {
    const name = logFutureDirName({ topic: 'a-b', partition: 3 });
    expect(name).toMatch(/^a-b-3\.[0-9a-f]{32}-future$/);
    expect(isFutureDirName(name)).toBe(true);
    expect(parseTopicPartitionName(name)).toEqual({ topic: 'a-b', partition: 3 });
  });

  it('refuses names whose future dir would pass 255 characters (KAFKA-4893)', () => {
    // 255 - ".<32 hex>-future" (40) = 215 characters for "<topic>-<partition>".
    expect(futureDirNameTooLong({ topic: 't'.repeat(213), partition: 0 })).toBe(false);
    expect(futureDirNameTooLong({ topic: 't'.repeat(214), partition: 0 })).toBe(true);
    expect(logFutureDirName({ topic: 't'.repeat(213), partition: 0 }).length).toBe(255);
  });
});

describe('LogManager future logs', () => {
  const clock = new SystemClock();
  function manager(dirs: string[]): LogManager {
    const config = KafkaConfig.fromProperties(new Map([['broker.id', '0'], ['zookeeper.connect', 'localhost:2181'], ['log.dirs', dirs.join(',')], ['log.segment.delete.delay.ms', '0']]));
    return new LogManager({ config: logManagerConfigFrom(config), defaultConfig: createLogConfig({}), clock, scheduler: new Scheduler(clock) });
  }

  it('creates the future log in the preferred dir only, swaps it in and loads a future dir at startup', async () => {
    const dirs = [path.resolve(tmpDir('lm-a-')), path.resolve(tmpDir('lm-b-'))];
    const lm = manager(dirs);
    await lm.startup();
    const tp = { topic: 'moving', partition: 0 };
    const current = lm.getOrCreateLog(tp);
    const target = dirs.find((d) => d !== current.parentDir) as string;
    expect(() => lm.getOrCreateLog(tp, undefined, { isFuture: true })).toThrow('Can not create the future log for moving-0 without having a preferred log directory');
    lm.maybeUpdatePreferredLogDir(tp, current.parentDir);
    expect(lm.preferredLogDir(tp)).toBeUndefined();
    lm.maybeUpdatePreferredLogDir(tp, target);
    const future = lm.getOrCreateLog(tp, undefined, { isNew: false, isFuture: true });
    expect(future.parentDir).toBe(target);
    expect(future.isFuture).toBe(true);
    expect(lm.preferredLogDir(tp)).toBeUndefined();
    await lm.shutdown();

    const again = manager(dirs);
    await again.startup();
    expect(again.getLog(tp)?.parentDir).toBe(current.parentDir);
    expect(again.getLog(tp, true)?.parentDir).toBe(target);
    const swapped = await again.replaceCurrentWithFutureLog(tp);
    expect(swapped.dir).toBe(path.join(target, 'moving-0'));
    expect(again.getLog(tp, true)).toBeUndefined();
    // The old directory is renamed for deletion at once and removed by the scheduler.
    expect(fs.readdirSync(current.parentDir).filter((d) => d.startsWith('moving-0')).every((d) => /^moving-0\.[0-9a-f]{32}-delete$/.test(d))).toBe(true);
    await again.shutdown();
  });
});
