import fs from 'node:fs';
import path from 'node:path';
import { spawnChild, TestChild } from './child-processes';
import { freePort } from './free-port';
import { tmpDir } from './tmp-dir';

const REPO = path.resolve(__dirname, '../..');
export const BIN = (tool: string): string => path.join(REPO, 'bin', `${tool}.ts`);

export interface BrokerOptions {
  brokerId: number;
  /** zookeeper.connect, usually with a per-test chroot. */
  zkConnect: string;
  /** Extra or replacing properties. */
  props?: Record<string, string>;
  /** Log dirs to reuse (e.g. across a restart); fresh temp dirs otherwise. */
  logDirs?: string[];
  /** Where server.log and friends go; a fresh temp dir otherwise. */
  logDir?: string;
  port?: number;
  /** Another checkout to run the broker from (benchmarks comparing trees); this one otherwise. */
  tree?: string;
  /** Environment variables over this process's (KAFKA_OPTS, say). */
  env?: NodeJS.ProcessEnv;
}

/** A broker started as operators start it: `bin/kafka-server-start.ts <properties file>`, as its own process. */
export class BrokerProcess {
  private constructor(
    readonly child: TestChild,
    readonly brokerId: number,
    readonly port: number,
    readonly logDirs: string[],
    readonly logDir: string,
    readonly propertiesFile: string,
  ) {}

  static async start(options: BrokerOptions): Promise<BrokerProcess> {
    const broker = await BrokerProcess.spawn(options);
    await broker.child.waitForLine(/\[KafkaServer id=\d+\] started \(kafka\.server\.KafkaServer\)/, { timeoutMs: 60000 });
    return broker;
  }

  /** Starts the process without waiting for it to come up (for tests of refused start-ups). */
  static async spawn(options: BrokerOptions): Promise<BrokerProcess> {
    const port = options.port ?? (await freePort());
    const logDirs = options.logDirs ?? [tmpDir(`broker-${options.brokerId}-data-`)];
    const logDir = options.logDir ?? tmpDir(`broker-${options.brokerId}-logs-`);
    const props: Record<string, string> = {
      'broker.id': String(options.brokerId),
      listeners: `PLAINTEXT://127.0.0.1:${port}`,
      'log.dirs': logDirs.join(','),
      'zookeeper.connect': options.zkConnect,
      'zookeeper.session.timeout.ms': '4000',
      'zookeeper.connection.timeout.ms': '10000',
      'num.partitions': '1',
      'offsets.topic.replication.factor': '1',
      'group.initial.rebalance.delay.ms': '0',
      ...options.props,
    };
    const propertiesFile = path.join(logDir, 'server.properties');
    fs.writeFileSync(propertiesFile, Object.entries(props).map(([k, v]) => `${k}=${v}\n`).join(''));
    const start = options.tree === undefined ? BIN('kafka-server-start') : path.join(options.tree, 'bin', 'kafka-server-start.ts');
    const child = spawnChild(start, [propertiesFile], {
      name: `broker-${options.brokerId}`,
      env: { ...process.env, ...options.env, LOG_DIR: logDir },
      logFile: path.join(logDir, 'stdout.txt'),
    });
    return new BrokerProcess(child, options.brokerId, port, logDirs, logDir, propertiesFile);
  }

  get pid(): number {
    return this.child.pid;
  }

  readLog(file = 'server.log'): string {
    const f = path.join(this.logDir, file);
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
  }
}
