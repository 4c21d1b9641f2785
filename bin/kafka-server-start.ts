#!/bin/sh
':' //; exec node ${KAFKA_NODE_HEAP_OPTS:---max-old-space-size=1024 --initial-old-space-size=128} $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import * as path from 'node:path';
import * as fs from 'node:fs';
import { runKafkaServer } from '../src/broker/kafka-main';
import { closeLogging, configureLogging } from '../src/common/logging/logging';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { daemonize } from '../src/tools/daemonize';
import { collect, loadServerProperties, takeDaemonFlag } from '../src/tools/server-args';

const baseDir = path.resolve(__dirname, '..');
const { argv, daemon } = takeDaemonFlag(process.argv);
process.argv = argv;

const program = createCli('kafka-server-start', 'Start a kafka-ts broker. USAGE: kafka-server-start [-daemon] server.properties [--override property=value]*')
  .argument('<server.properties>', 'the broker configuration file')
  .option('--override <property=value>', 'override a property of the file (repeatable)', collect, [] as string[]);

void runCli(program, async (p) => {
  const [file] = p.args as [string];
  const overrides = p.opts<{ override: string[] }>().override;
  const props = loadServerProperties(file, overrides);
  const logDir = path.resolve(process.env['LOG_DIR'] ?? path.join(baseDir, 'logs'));
  if (daemon) {
    daemonize('kafkaServer', argv.slice(1), logDir);
    return 0;
  }
  const log4j = process.env['KAFKA_LOG4J_OPTS']?.match(/-Dlog4j\.configuration=(?:file:)?(\S+)/)?.[1] ?? path.join(baseDir, 'config', 'log4j.properties');
  if (process.env['KAFKA_LOG4J_OPTS'] !== undefined && !fs.existsSync(log4j)) throw new CliError(`log4j configuration ${log4j} not found`);
  configureLogging({ mode: 'server', logDir, ...(fs.existsSync(log4j) ? { log4jFile: log4j } : {}) });
  const code = await runKafkaServer(props);
  closeLogging();
  return code;
});
