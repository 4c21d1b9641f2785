import * as fs from 'node:fs';
import * as path from 'node:path';
import { MetadataCache } from '../../../src/broker/metadata-cache';
import { ReplicaManager } from '../../../src/broker/replica-manager';
import { createLogConfig } from '../../../src/common/config/log-config';
import { ErrorCode } from '../../../src/common/error-codes';
import { KafkaError } from '../../../src/common/kafka-error';
import { closeLogging, configureLogging } from '../../../src/common/logging/logging';
import { Scheduler } from '../../../src/common/scheduler';
import { SYSTEM_CLOCK } from '../../../src/common/time';
import { LogManager } from '../../../src/log/log-manager';
import { DEFAULT_LOG_MANAGER_CONFIG } from '../../../src/log/log-manager-config';
import { LeaderAndIsrPartitionState, LeaderAndIsrRequest } from '../../../src/protocol/apis/leader-and-isr';
import { waitUntil } from '../../helpers/wait-until';
import { makeBatch, makeTempDir, removeDir } from '../log/log-test-utils';

/**
 * The broker side of a failed log dir (Kafka's ReplicaManager.handleLogDirFailure): a real LogManager over two
 * dirs, a ReplicaManager without replication, the ZooKeeper notification recorded. The failure is an injected EIO
 * on the write path of one partition.
 */

const BROKER = 1;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const realFs = require('node:fs') as Record<string, unknown>;

function failWrites(code: string): () => void {
  const saved = { writev: realFs['writev'], writevSync: realFs['writevSync'] };
  const err = (): NodeJS.ErrnoException => Object.assign(new Error(`${code}: injected`), { code, errno: -5, syscall: 'write' });
  realFs['writevSync'] = () => {
    throw err();
  };
  realFs['writev'] = (...args: unknown[]) => {
    const cb = args[args.length - 1] as (e: unknown) => void;
    process.nextTick(() => cb(err()));
  };
  return () => Object.assign(realFs, saved);
}

function state(topic: string, partition: number, o: { leader?: number; leaderEpoch?: number; isNew?: boolean } = {}): LeaderAndIsrPartitionState {
  return {
    topicName: topic,
    partitionIndex: partition,
    controllerEpoch: 1,
    leader: o.leader ?? BROKER,
    leaderEpoch: o.leaderEpoch ?? 0,
    isr: [BROKER],
    zkVersion: 0,
    replicas: [BROKER],
    addingReplicas: [],
    removingReplicas: [],
    isNew: o.isNew ?? true,
  };
}

function leaderAndIsr(states: LeaderAndIsrPartitionState[]): LeaderAndIsrRequest {
  return { controllerId: 0, controllerEpoch: 1, brokerEpoch: -1, ungroupedPartitionStates: states, topicStates: [], liveLeaders: [] };
}

describe('ReplicaManager when a log dir fails', () => {
  let root: string;
  let logs: string;
  let scheduler: Scheduler;
  let logManager: LogManager;
  let replicaManager: ReplicaManager;
  let events: number[];
  let halts: number[];
  let timeline: string[];
  let restoreFs: () => void = () => undefined;

  beforeEach(async () => {
    root = makeTempDir('kafka-ts-rm-fail-');
    logs = path.join(root, 'logs');
    fs.mkdirSync(logs);
    fs.writeFileSync(path.join(root, 'log4j.properties'), 'log4j.rootLogger=INFO, f\nlog4j.appender.f=x.DailyRollingFileAppender\nlog4j.appender.f.File=${kafka.logs.dir}/server.log\n');
    configureLogging({ mode: 'server', logDir: logs, log4jFile: path.join(root, 'log4j.properties') });
    scheduler = new Scheduler(SYSTEM_CLOCK);
    events = [];
    halts = [];
    timeline = [];
    logManager = new LogManager({
      config: { ...DEFAULT_LOG_MANAGER_CONFIG, logDirs: [path.join(root, 'a'), path.join(root, 'b')] },
      defaultConfig: createLogConfig({}),
      clock: SYSTEM_CLOCK,
      scheduler,
      halt: (code) => {
        halts.push(code);
        timeline.push('halt');
      },
    });
    await logManager.startup();
    replicaManager = new ReplicaManager({
      brokerId: BROKER,
      logManager,
      metadataCache: new MetadataCache(BROKER, SYSTEM_CLOCK),
      logConfigFor: async () => createLogConfig({}),
      clock: SYSTEM_CLOCK,
      logDirEvents: {
        propagateLogDirEvent: async (id) => {
          events.push(id);
          timeline.push('event');
          return `/log_dir_event_notification/log_dir_event_000000000${events.length - 1}`;
        },
      },
    });
    replicaManager.startup();
  });

  afterEach(async () => {
    restoreFs();
    restoreFs = () => undefined;
    await replicaManager.shutdown();
    await logManager.shutdown();
    await scheduler.shutdown();
    closeLogging();
    removeDir(root);
  });

  const serverLog = (): string => fs.readdirSync(logs).map((f) => fs.readFileSync(path.join(logs, f), 'utf8')).join('');

  it('stops serving the failed dir, tells the controller and answers KAFKA_STORAGE_ERROR for its replicas', async () => {
    const response = await replicaManager.becomeLeaderOrFollower(1, leaderAndIsr([state('t', 0), state('t', 1)]), 1);
    expect(response.partitionErrors.map((e) => e.errorCode)).toEqual([0, 0]);
    const p0 = replicaManager.leaderPartition({ topic: 't', partition: 0 });
    const p1 = replicaManager.leaderPartition({ topic: 't', partition: 1 });
    expect(p0.log?.parentDir).not.toBe(p1.log?.parentDir);
    const failedDir = p0.log?.parentDir as string;

    restoreFs = failWrites('ENOSPC');
    const err = await p0.appendRecordsToLeader(makeBatch(), 1).catch((e: unknown) => e);
    restoreFs();
    expect((err as KafkaError).errorName).toBe('KAFKA_STORAGE_ERROR');
    await waitUntil(() => events.length === 1, { timeoutMs: 5000, message: 'the log dir event' });
    expect(events).toEqual([BROKER]);
    expect(logManager.isLogDirOnline(failedDir)).toBe(false);
    expect(halts).toEqual([]);

    // Clients: KAFKA_STORAGE_ERROR for the failed dir's partition, the other dir serves on.
    expect(() => replicaManager.leaderPartition({ topic: 't', partition: 0 })).toThrow(expect.objectContaining({ errorName: 'KAFKA_STORAGE_ERROR' }) as Error);
    expect((await p1.appendRecordsToLeader(makeBatch(), 1)).firstOffset).toBe(0);
    expect(p0.checkEnoughReplicasReachOffset(1)).toEqual({ done: true, error: 'KAFKA_STORAGE_ERROR' });

    // The controller's LeaderAndIsr (same epoch, as onBrokerLogDirFailure sends it) learns which replicas are offline.
    const again = await replicaManager.becomeLeaderOrFollower(2, leaderAndIsr([state('t', 0), state('t', 1)]), 1);
    expect(again.partitionErrors).toEqual([
      { topicName: 't', partitionIndex: 0, errorCode: ErrorCode.KAFKA_STORAGE_ERROR.code },
      { topicName: 't', partitionIndex: 1, errorCode: ErrorCode.STALE_CONTROLLER_EPOCH.code },
    ]);
    // A replica this broker does not host yet, not new: its log may be in the failed dir.
    const notNew = await replicaManager.becomeLeaderOrFollower(3, leaderAndIsr([state('u', 0, { isNew: false }), state('v', 0, { isNew: true })]), 1);
    expect(notNew.partitionErrors.map((e) => [e.topicName, e.errorCode])).toEqual([
      ['u', ErrorCode.KAFKA_STORAGE_ERROR.code],
      ['v', 0],
    ]);
    const stop = await replicaManager.stopReplicas(4, { controllerId: 0, controllerEpoch: 1, brokerEpoch: -1, deletePartitions: false, ungroupedPartitions: [{ topicName: 't', partitionIndex: 0 }], topics: [], topicStates: [] }, 0);
    expect(stop.partitionErrors).toEqual([{ topicName: 't', partitionIndex: 0, errorCode: ErrorCode.KAFKA_STORAGE_ERROR.code }]);

    const lines = serverLog();
    expect(lines).toContain(`WARN [ReplicaManager broker=${BROKER}] Stopping serving replicas in dir ${failedDir} (kafka.server.ReplicaManager)`);
    expect(lines).toContain(
      `WARN [ReplicaManager broker=${BROKER}] Broker ${BROKER} stopped fetcher for partitions t-0 and stopped moving logs for partitions  because they are in the failed log directory ${failedDir}. (kafka.server.ReplicaManager)`,
    );
    expect(lines).toContain(`WARN Stopping serving logs in dir ${failedDir} (kafka.log.LogManager)`);
    expect(lines).toContain(`WARN Logs for partitions t-0 are offline and logs for future partitions  are offline due to failure on log directory ${failedDir} (kafka.log.LogManager)`);
    expect(lines).toContain(`WARN [ReplicaManager broker=${BROKER}] Stopped serving replicas in dir ${failedDir} (kafka.server.ReplicaManager)`);
    expect(lines.indexOf('Stopping serving replicas')).toBeLessThan(lines.indexOf('Stopping serving logs'));
    expect(lines.indexOf('Stopping serving logs')).toBeLessThan(lines.indexOf('Stopped serving replicas'));
  });

  it('halts when the last log dir fails, without a notification (Kafka halts inside LogManager.handleLogDirFailure)', async () => {
    await replicaManager.becomeLeaderOrFollower(1, leaderAndIsr([state('t', 0), state('t', 1)]), 1);
    restoreFs = failWrites('EIO');
    for (const p of [0, 1]) await replicaManager.leaderPartition({ topic: 't', partition: p }).appendRecordsToLeader(makeBatch(), 1).catch(() => undefined);
    restoreFs();
    await waitUntil(() => halts.length === 1, { timeoutMs: 5000, message: 'the halt' });
    expect(halts).toEqual([1]);
    // The first dir's failure was announced; the second halted before its notification (a real halt never returns).
    expect(timeline.slice(0, 2)).toEqual(['event', 'halt']);
    expect(serverLog()).toMatch(/ERROR Shutdown broker because all log dirs in .* have failed \(kafka\.log\.LogManager\)/);
  });

  it('an EMFILE creating a log is retried and, if it persists, not reported as an offline replica', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fsModule = require('node:fs') as { openSync: typeof fs.openSync };
    const real = fsModule.openSync;
    let failures = 2;
    fsModule.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
      if (String(file).includes('flaky-') && failures-- > 0) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE', syscall: 'open' });
      return (real as (...a: unknown[]) => number)(file, ...rest);
    }) as typeof fs.openSync;
    restoreFs = () => (fsModule.openSync = real);
    const ok = await replicaManager.becomeLeaderOrFollower(1, leaderAndIsr([state('flaky', 0)]), 1);
    expect(ok.partitionErrors.map((e) => e.errorCode)).toEqual([0]);
    failures = 100;
    const stillFailing = await replicaManager.becomeLeaderOrFollower(2, leaderAndIsr([state('flaky', 1)]), 1);
    restoreFs();
    // Not KAFKA_STORAGE_ERROR: the controller would take the replica for one in a failed dir.
    expect(stillFailing.partitionErrors.map((e) => e.errorCode)).toEqual([ErrorCode.UNKNOWN_SERVER_ERROR.code]);
    expect(logManager.offlineLogDirs()).toEqual([]);
    expect(events).toEqual([]);
  });
});
