import { ConfigException } from '../common/config/config-def';
import { KafkaConfig } from '../common/config/kafka-config';
import { closeLogging, getLogger, Logger } from '../common/logging/logging';
import { KafkaServer } from './kafka-server';

/**
 * What kafka.Kafka's main does once the properties are read: validate the config (a bad value stops here with
 * Kafka's message), start the broker, and shut it down cleanly on SIGTERM or SIGINT. Resolves with the exit code.
 */
export async function runKafkaServer(props: ReadonlyMap<string, string>): Promise<number> {
  const log = getLogger('kafka.Kafka$');
  exitOnUncaughtErrors(log);
  let config: KafkaConfig;
  try {
    config = KafkaConfig.fromProperties(props);
  } catch (err) {
    if (!(err instanceof ConfigException)) throw err;
    log.error(`Exiting Kafka due to fatal exception: ${err.message}`);
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
  const configLog = getLogger('kafka.server.KafkaConfig');
  for (const key of config.unknownKeys) configLog.warn(`The configuration '${key}' was supplied but isn't a known config.`);

  const server = new KafkaServer(config);
  let stopping: Promise<number> | undefined;
  const stop = (): Promise<number> => {
    stopping ??= server.shutdown().then(() => 0);
    return stopping;
  };
  const stopped = new Promise<number>((resolve) => {
    process.once('SIGTERM', () => void stop().then(resolve));
    process.once('SIGINT', () => void stop().then(resolve));
  });
  try {
    await server.startup();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  return stopped;
}

/**
 * An exception nothing caught (a bug: requests, timers and watches all catch their own) leaves the broker in a
 * state nobody can vouch for. Like Kafka's fatal path it is logged with its stack at FATAL, then the process
 * exits non-zero so that a supervisor restarts it; a broker that limps on could acknowledge and then lose data.
 */
function exitOnUncaughtErrors(log: Logger): void {
  const die = (what: string) => (err: unknown): void => {
    log.fatal(`Exiting Kafka due to fatal exception (${what})`, err);
    process.stderr.write(`Exiting Kafka due to fatal exception (${what}): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    closeLogging();
    process.exit(1);
  };
  process.on('uncaughtException', die('uncaught exception'));
  process.on('unhandledRejection', die('unhandled promise rejection'));
}
