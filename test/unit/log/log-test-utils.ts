import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Scheduler } from '../../../src/common/scheduler';
import { createLogConfig, LogConfig } from '../../../src/common/config/log-config';
import { Log } from '../../../src/log/log';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';
import { MockClock } from '../../helpers/mock-clock';

/** Shared fixtures of the log tests: temp dirs, mock time, batch builders. */
export function makeTempDir(prefix = 'kafka-ts-log-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export interface BatchSpec {
  count?: number;
  valueSize?: number;
  timestamp?: number;
  compression?: CompressionType;
  keyPrefix?: string;
  seed?: number;
}

/** A batch of `count` records with deterministic contents. */
export function makeBatch(spec: BatchSpec = {}): Buffer {
  const count = spec.count ?? 1;
  const size = spec.valueSize ?? 10;
  const ts = spec.timestamp ?? 1_600_000_000_000;
  const builder = new RecordBatchBuilder({ compression: spec.compression ?? CompressionType.NONE });
  for (let i = 0; i < count; i++) {
    const value = Buffer.alloc(size, (i + (spec.seed ?? 0)) % 251);
    builder.append({ timestamp: ts + i, key: Buffer.from(`${spec.keyPrefix ?? 'k'}${i}`), value });
  }
  return builder.build();
}

export interface LogFixture {
  dir: string;
  logDir: string;
  clock: MockClock;
  scheduler: Scheduler;
  open(overrides?: Record<string, string>, extra?: Partial<Parameters<typeof Log.open>[0]>): Log;
  config(overrides?: Record<string, string>): LogConfig;
  cleanup(): Promise<void>;
}

export function logFixture(topicPartition = 'orders-0'): LogFixture {
  const dir = makeTempDir();
  const logDir = path.join(dir, topicPartition);
  const clock = new MockClock();
  const scheduler = new Scheduler(clock);
  const opened: Log[] = [];
  return {
    dir,
    logDir,
    clock,
    scheduler,
    config: (overrides = {}) => createLogConfig({}, overrides),
    open(overrides = {}, extra = {}) {
      const log = Log.open({ dir: logDir, config: createLogConfig({}, overrides), clock, scheduler, ...extra });
      opened.push(log);
      return log;
    },
    async cleanup() {
      for (const l of opened) await l.close().catch(() => undefined);
      await scheduler.shutdown();
      removeDir(dir);
    },
  };
}

/** Routes all loggers nowhere for tests that provoke expected WARN/ERROR lines (recovery, failing disks). */
