import { ConfigException } from '../config/config-def';
import { ConfigOp, OP_APPEND, OP_DELETE, OP_SET, OP_SUBTRACT } from '../config/incremental-config-ops';
import { KafkaError } from '../kafka-error';
import { loggerExists, ROOT_LOGGER, setLoggerLevel } from './logging';

/**
 * LogLevelConfig.VALID_LOG_LEVELS (KIP-412), in the order Kafka 2.8's HashSet of them iterates, which is the order
 * its "Valid log levels are ..." message lists them in. OFF and ALL are log4j levels but not settable here.
 */
export const VALID_LOG_LEVELS: readonly string[] = ['TRACE', 'ERROR', 'INFO', 'FATAL', 'DEBUG', 'WARN'];

/**
 * ZkAdminManager.validateLogLevelConfigs for a BROKER_LOGGER resource of IncrementalAlterConfigs: SET needs an
 * existing logger and one of the upper-case levels, DELETE an existing logger other than root; APPEND and
 * SUBTRACT are refused. ConfigException becomes the resource's INVALID_REQUEST "Invalid config value ..." in the
 * handler, as in Kafka.
 */
export function validateLogLevelOps(ops: readonly ConfigOp[]): void {
  const mustExist = (name: string): void => {
    if (!loggerExists(name)) throw new ConfigException(`Logger ${name} does not exist!`);
  };
  for (const o of ops) {
    if (o.op === OP_SET) {
      mustExist(o.name);
      if (o.value === null || !VALID_LOG_LEVELS.includes(o.value)) {
        throw new ConfigException(
          `Cannot set the log level of ${o.name} to ${String(o.value)} as it is not a supported log level. Valid log levels are ${VALID_LOG_LEVELS.join(', ')}`,
        );
      }
    } else if (o.op === OP_DELETE) {
      mustExist(o.name);
      if (o.name === ROOT_LOGGER) throw new KafkaError('INVALID_REQUEST', `Removing the log level of the ${ROOT_LOGGER} logger is not allowed`);
    } else if (o.op === OP_APPEND) {
      throw new KafkaError('INVALID_REQUEST', 'APPEND operation is not allowed for the BROKER_LOGGER resource');
    } else if (o.op === OP_SUBTRACT) {
      throw new KafkaError('INVALID_REQUEST', 'SUBTRACT operation is not allowed for the BROKER_LOGGER resource');
    }
  }
}

/** ZkAdminManager.alterLogLevelConfigs: applies validated ops to the live loggers (Log4jController). */
export function applyLogLevelOps(ops: readonly ConfigOp[]): void {
  for (const o of ops) {
    if (o.op === OP_SET && o.value !== null) setLoggerLevel(o.name, o.value);
    else if (o.op === OP_DELETE) setLoggerLevel(o.name, null);
  }
}

