import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeLogging, configureLogging, getLogger } from '../../../src/common/logging/logging';
import { parseLog4jConfig, STOCK_LOG4J_PROPERTIES } from '../../../src/common/logging/log4j-config';

describe('Kafka-style logging', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logging-test-'));
  });
  afterEach(() => {
    closeLogging();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const read = (f: string): string[] => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8').trimEnd().split('\n') : []);

  it("routes by category like Kafka's stock log4j.properties, in Kafka's line layout", () => {
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      configureLogging({ mode: 'server', logDir: dir });
      getLogger('kafka.server.KafkaServer', '[KafkaServer id=0] ').info('started');
      getLogger('kafka.controller.KafkaController', '[Controller id=0] ').trace('Starting controller');
      getLogger('kafka.controller.ControllerChannelManager').debug('channel');
      getLogger('state.change.logger', '[Broker id=0] ').info('Add 1 partitions');
      getLogger('state.change.logger').debug('not at INFO');
      getLogger('kafka.request.logger').debug('not at WARN');
      getLogger('kafka.log.LogCleaner').info('Starting the log cleaner');
      closeLogging();
    } finally {
      stdout.mockRestore();
    }
    const line = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] [A-Z]+ .* \([a-zA-Z.$]+\)$/;
    expect(read('server.log')).toEqual([expect.stringMatching(line)]);
    expect(read('server.log')[0]).toMatch(/\] INFO \[KafkaServer id=0\] started \(kafka\.server\.KafkaServer\)$/);
    expect(read('controller.log')).toHaveLength(2);
    expect(read('controller.log')[0]).toMatch(/\] TRACE \[Controller id=0\] Starting controller \(kafka\.controller\.KafkaController\)$/);
    expect(read('state-change.log')).toEqual([expect.stringMatching(/INFO \[Broker id=0\] Add 1 partitions \(state\.change\.logger\)$/)]);
    expect(read('kafka-request.log')).toEqual([]);
    expect(read('log-cleaner.log')).toHaveLength(1);
  });

  it('prints exceptions after the line', () => {
    configureLogging({ mode: 'server', logDir: dir, log4jFile: writeConfig('log4j.rootLogger=INFO, f\nlog4j.appender.f=x.DailyRollingFileAppender\nlog4j.appender.f.File=${kafka.logs.dir}/server.log\n') });
    getLogger('kafka.zk.KafkaZkClient').error('Fatal error', new Error('boom'));
    closeLogging();
    const lines = read('server.log');
    expect(lines[0]).toMatch(/ERROR Fatal error \(kafka\.zk\.KafkaZkClient\)$/);
    expect(lines[1]).toBe('Error: boom');
    expect(lines[2]).toMatch(/^\s+at /);
  });

  it('rolls hourly into file.yyyy-MM-dd-HH', () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'old line\n');
    const past = new Date(2020, 0, 2, 3, 30);
    fs.utimesSync(file, past, past);
    configureLogging({ mode: 'server', logDir: dir, log4jFile: writeConfig('log4j.rootLogger=INFO, f\nlog4j.appender.f=x.DailyRollingFileAppender\nlog4j.appender.f.File=${kafka.logs.dir}/server.log\n') });
    getLogger('kafka.Kafka').info('new line');
    closeLogging();
    expect(fs.readFileSync(path.join(dir, 'server.log.2020-01-02-03'), 'utf8')).toBe('old line\n');
    expect(read('server.log')).toHaveLength(1);
  });

  it('writes the lines of one JavaScript turn together, in order, once the turn yields; close writes the rest', async () => {
    configureLogging({ mode: 'server', logDir: dir, log4jFile: writeConfig('log4j.rootLogger=INFO, f\nlog4j.appender.f=x.DailyRollingFileAppender\nlog4j.appender.f.File=${kafka.logs.dir}/server.log\n') });
    const log = getLogger('state.change.logger', '[Controller id=0 epoch=1] ');
    log.info('first');
    await new Promise((resolve) => setImmediate(resolve));
    expect(read('server.log')).toHaveLength(1);
    for (let p = 0; p < 1000; p++) log.info(`Changed partition t-${p} from OfflinePartition to OnlinePartition`);
    // Still within the turn: one write will carry them all.
    expect(read('server.log')).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(read('server.log')).toHaveLength(1001);
    log.info('last');
    closeLogging();
    const lines = read('server.log');
    expect(lines[1]).toMatch(/Changed partition t-0 from/);
    expect(lines[1000]).toMatch(/Changed partition t-999 from/);
    expect(lines[1001]).toMatch(/\] INFO \[Controller id=0 epoch=1\] last \(state\.change\.logger\)$/);
  });

  it('resolves levels by the nearest configured ancestor', () => {
    const c = parseLog4jConfig(STOCK_LOG4J_PROPERTIES);
    expect(c.loggers.get('kafka.controller')).toEqual({ level: 'trace', appenders: ['controllerAppender'], additive: false });
    expect(c.appenders.get('controllerAppender')).toEqual({ kind: 'file', fileName: 'controller.log' });
    expect(c.root.appenders).toEqual(['stdout', 'kafkaAppender']);
  });

  function writeConfig(text: string): string {
    const f = path.join(dir, 'log4j.properties');
    fs.writeFileSync(f, text);
    return f;
  }
});
