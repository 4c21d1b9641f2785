import { createAlterConfigsHandlers } from '../../../src/broker/handlers/alter-configs';
import { brokerLoggerEntries, createDescribeConfigsHandler } from '../../../src/broker/handlers/describe-configs';
import { HandlerContext } from '../../../src/broker/handlers/handler-context';
import { RequestContext } from '../../../src/broker/network/api-handler';
import { ErrorCode } from '../../../src/common/error-codes';
import { applyLogLevelOps, VALID_LOG_LEVELS, validateLogLevelOps } from '../../../src/common/logging/broker-logger-config';
import { closeLogging, configureLogging, currentLoggerLevels, getLogger, loggerExists, setLoggerLevel } from '../../../src/common/logging/logging';
import { ConfigException } from '../../../src/common/config/config-def';
import { KafkaError } from '../../../src/common/kafka-error';
import { DescribeConfigsResponse } from '../../../src/protocol/apis/describe-configs';
import { IncrementalAlterConfigsResponse } from '../../../src/protocol/apis/incremental-alter-configs';
import { AlterConfigsResponse } from '../../../src/protocol/apis/alter-configs';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const rc = {} as RequestContext;
const code = (name: keyof typeof ErrorCode): number => ErrorCode[name].code;
const ctx = { brokerId: 1 } as unknown as HandlerContext;

describe('broker loggers (Log4jController and BROKER_LOGGER)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'broker-logger-test-'));
    configureLogging({ mode: 'server', logDir: dir });
  });
  afterEach(() => {
    closeLogging();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists root first, then configured and created loggers with their own level or root\'s (2.8)', () => {
    getLogger('kafka.server.ReplicaManager');
    const levels = currentLoggerLevels();
    expect([...levels.keys()][0]).toBe('root');
    expect(levels.get('root')).toBe('INFO');
    expect(levels.get('kafka.controller')).toBe('TRACE');
    expect(levels.get('kafka.request.logger')).toBe('WARN');
    expect(levels.get('state.change.logger')).toBe('INFO');
    // No level of its own: Kafka 2.8 reports root's level, not the inherited one.
    expect(levels.get('kafka.server.ReplicaManager')).toBe('INFO');
    expect(loggerExists('kafka.server.ReplicaManager')).toBe(true);
    expect(loggerExists('kafka.server')).toBe(false);
  });

  it('applies a level live and DELETE makes the logger inherit again', () => {
    const l = getLogger('kafka.server.ReplicaManager');
    expect(l.isDebugEnabled()).toBe(false);
    applyLogLevelOps([{ name: 'kafka.server.ReplicaManager', op: 0, value: 'DEBUG' }]);
    expect(l.isDebugEnabled()).toBe(true);
    expect(currentLoggerLevels().get('kafka.server.ReplicaManager')).toBe('DEBUG');
    applyLogLevelOps([{ name: 'kafka.server.ReplicaManager', op: 1, value: '' }]);
    expect(l.isDebugEnabled()).toBe(false);
    // A configured logger's level removed: it inherits from `kafka` (INFO) and keeps its appender.
    const controller = getLogger('kafka.controller.KafkaController');
    expect(controller.isTraceEnabled()).toBe(true);
    applyLogLevelOps([{ name: 'kafka.controller', op: 1, value: '' }]);
    expect(controller.isTraceEnabled()).toBe(false);
    expect(currentLoggerLevels().get('kafka.controller')).toBe('INFO');
    controller.info('still to controller.log');
    closeLogging();
    expect(fs.readFileSync(path.join(dir, 'controller.log'), 'utf8')).toMatch(/INFO still to controller.log \(kafka\.controller\.KafkaController\)/);
  });

  it('root governs loggers without a level of their own', () => {
    const l = getLogger('kafka.server.ReplicaManager');
    expect(setLoggerLevel('kafka', null)).toBe(true);
    expect(setLoggerLevel('root', 'TRACE')).toBe(true);
    expect(l.isTraceEnabled()).toBe(true);
    expect(currentLoggerLevels().get('kafka.server.ReplicaManager')).toBe('TRACE');
    expect(setLoggerLevel('root', null)).toBe(false);
    expect(setLoggerLevel('no.such.logger', 'INFO')).toBe(false);
  });

  it.each([
    ['an unknown logger', [{ name: 'x.y', op: 0, value: 'INFO' }], ConfigException, 'Logger x.y does not exist!'],
    ['an unknown logger (DELETE)', [{ name: 'x.y', op: 1, value: '' }], ConfigException, 'Logger x.y does not exist!'],
    [
      'a level outside LogLevelConfig (case matters)',
      [{ name: 'root', op: 0, value: 'debug' }],
      ConfigException,
      'Cannot set the log level of root to debug as it is not a supported log level. Valid log levels are TRACE, ERROR, INFO, FATAL, DEBUG, WARN',
    ],
    ['OFF', [{ name: 'root', op: 0, value: 'OFF' }], ConfigException, 'Cannot set the log level of root to OFF as it is not a supported log level. Valid log levels are TRACE, ERROR, INFO, FATAL, DEBUG, WARN'],
    ['removing root', [{ name: 'root', op: 1, value: '' }], KafkaError, 'Removing the log level of the root logger is not allowed'],
    ['APPEND', [{ name: 'root', op: 2, value: 'INFO' }], KafkaError, 'APPEND operation is not allowed for the BROKER_LOGGER resource'],
    ['SUBTRACT', [{ name: 'root', op: 3, value: 'INFO' }], KafkaError, 'SUBTRACT operation is not allowed for the BROKER_LOGGER resource'],
  ])('refuses %s', (_n, ops, type, message) => {
    expect(() => validateLogLevelOps(ops)).toThrow(type);
    expect(() => validateLogLevelOps(ops)).toThrow(message);
  });

  it('accepts each of Kafka\'s six levels', () => {
    for (const level of VALID_LOG_LEVELS) expect(() => validateLogLevelOps([{ name: 'root', op: 0, value: level }])).not.toThrow();
  });

  it('DescribeConfigs: entries as ZkAdminManager reports them, and its broker id checks', async () => {
    const describe = createDescribeConfigsHandler(ctx);
    const r = (await describe({ resources: [
      { resourceType: 8, resourceName: '1', configurationKeys: ['root', 'kafka.controller'] },
      { resourceType: 8, resourceName: '', configurationKeys: null },
      { resourceType: 8, resourceName: '2', configurationKeys: null },
      { resourceType: 8, resourceName: 'x', configurationKeys: null },
    ], includeSynonyms: true, includeDocumentation: false }, rc)) as DescribeConfigsResponse;
    expect(r.results[0]?.configs).toEqual([
      { name: 'root', value: 'INFO', readOnly: false, isDefault: false, configSource: 6, isSensitive: false, synonyms: [], configType: 0, documentation: null },
      { name: 'kafka.controller', value: 'TRACE', readOnly: false, isDefault: false, configSource: 6, isSensitive: false, synonyms: [], configType: 0, documentation: null },
    ]);
    expect(r.results.slice(1).map((x) => [x.errorCode, x.errorMessage])).toEqual([
      [code('INVALID_REQUEST'), 'Broker id must not be empty'],
      [code('INVALID_REQUEST'), 'Unexpected broker id, expected 1 but received 2'],
      [code('INVALID_REQUEST'), 'Broker id must be an integer, but it is: x'],
    ]);
    expect(brokerLoggerEntries().length).toBe(currentLoggerLevels().size);
  });

  it('IncrementalAlterConfigs sets levels (validate_only does not); AlterConfigs refuses BROKER_LOGGER whole', async () => {
    const h = createAlterConfigsHandlers(ctx);
    const set = { resourceType: 8, resourceName: '1', configs: [{ name: 'kafka.controller', configOperation: 0, value: 'DEBUG' }] };
    let r = (await h.incrementalAlterConfigs({ resources: [set], validateOnly: true }, rc)) as IncrementalAlterConfigsResponse;
    expect(r.responses[0]?.errorCode).toBe(0);
    expect(currentLoggerLevels().get('kafka.controller')).toBe('TRACE');
    r = (await h.incrementalAlterConfigs({ resources: [set], validateOnly: false }, rc)) as IncrementalAlterConfigsResponse;
    expect(r.responses[0]?.errorCode).toBe(0);
    expect(currentLoggerLevels().get('kafka.controller')).toBe('DEBUG');
    r = (await h.incrementalAlterConfigs({ resources: [{ resourceType: 8, resourceName: '1', configs: [{ name: 'root', configOperation: 1, value: '' }] }], validateOnly: false }, rc)) as IncrementalAlterConfigsResponse;
    expect([r.responses[0]?.errorCode, r.responses[0]?.errorMessage]).toEqual([code('INVALID_REQUEST'), 'Removing the log level of the root logger is not allowed']);
    r = (await h.incrementalAlterConfigs({ resources: [{ ...set, resourceName: '2' }], validateOnly: false }, rc)) as IncrementalAlterConfigsResponse;
    expect([r.responses[0]?.errorCode, r.responses[0]?.errorMessage]).toEqual([code('INVALID_REQUEST'), 'Unexpected broker id, expected 1, but received 2']);
    const a = (await h.alterConfigs({ resources: [{ resourceType: 8, resourceName: '1', configs: [{ name: 'root', value: 'DEBUG' }] }], validateOnly: false }, rc)) as AlterConfigsResponse;
    expect([a.responses[0]?.errorCode, a.responses[0]?.errorMessage]).toEqual([code('INVALID_REQUEST'), 'AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER']);
    expect(currentLoggerLevels().get('root')).toBe('INFO');
  });
});
