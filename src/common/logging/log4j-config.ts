import { parseProperties } from '../config/properties';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'off';

export const LEVEL_RANK: Record<LogLevel, number> = { off: -1, fatal: 0, error: 1, warn: 2, info: 3, debug: 4, trace: 5 };

/** Where an appender writes: the console streams, or a file name inside the logs dir. */
export type AppenderTarget = { kind: 'stdout' } | { kind: 'stderr' } | { kind: 'file'; fileName: string };

export interface LoggerRule {
  level: LogLevel;
  appenders: string[];
  additive: boolean;
}

/**
 * The subset of a log4j 1.x properties file that Kafka's stock config/log4j.properties uses: a root logger,
 * named loggers with level and appenders, additivity, and console or (daily) rolling file appenders whose File
 * is `${kafka.logs.dir}/<name>`. Routing is by logger-name prefix, as log4j does it.
 */
export interface Log4jConfig {
  root: LoggerRule;
  loggers: Map<string, LoggerRule>;
  appenders: Map<string, AppenderTarget>;
}

function parseLevel(text: string | undefined, fallback: LogLevel): LogLevel {
  const level = (text ?? '').trim().toLowerCase();
  return level in LEVEL_RANK ? (level as LogLevel) : fallback;
}

function parseRule(value: string, additive: boolean): LoggerRule {
  const [level, ...appenders] = value.split(',').map((s) => s.trim());
  return { level: parseLevel(level, 'info'), appenders: appenders.filter((a) => a.length > 0), additive };
}

export function parseLog4jConfig(text: string): Log4jConfig {
  const props = parseProperties(text);
  const appenders = new Map<string, AppenderTarget>();
  const loggers = new Map<string, LoggerRule>();
  let root: LoggerRule = { level: 'info', appenders: ['stdout'], additive: true };
  for (const [key, value] of props) {
    const appender = /^log4j\.appender\.([^.]+)$/.exec(key);
    if (appender?.[1]) {
      const name = appender[1];
      if (/ConsoleAppender$/.test(value)) {
        const target = props.get(`log4j.appender.${name}.Target`) ?? 'System.out';
        appenders.set(name, { kind: target === 'System.err' ? 'stderr' : 'stdout' });
      } else {
        const file = props.get(`log4j.appender.${name}.File`) ?? `${name}.log`;
        appenders.set(name, { kind: 'file', fileName: file.replace(/^.*[/\\]/, '') });
      }
    }
  }
  for (const [key, value] of props) {
    if (key === 'log4j.rootLogger') root = parseRule(value, true);
    const named = /^log4j\.logger\.(.+)$/.exec(key);
    if (named?.[1]) {
      const additive = (props.get(`log4j.additivity.${named[1]}`) ?? 'true').trim() !== 'false';
      loggers.set(named[1], parseRule(value, additive));
    }
  }
  return { root, loggers, appenders };
}

/** Kafka 2.x's stock config/log4j.properties, used when no file is given. */
export const STOCK_LOG4J_PROPERTIES = `
log4j.rootLogger=INFO, stdout, kafkaAppender
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.kafkaAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.kafkaAppender.File=\${kafka.logs.dir}/server.log
log4j.appender.stateChangeAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.stateChangeAppender.File=\${kafka.logs.dir}/state-change.log
log4j.appender.requestAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.requestAppender.File=\${kafka.logs.dir}/kafka-request.log
log4j.appender.cleanerAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.cleanerAppender.File=\${kafka.logs.dir}/log-cleaner.log
log4j.appender.controllerAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.controllerAppender.File=\${kafka.logs.dir}/controller.log
log4j.appender.authorizerAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.authorizerAppender.File=\${kafka.logs.dir}/kafka-authorizer.log
log4j.logger.org.apache.zookeeper=INFO
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN, requestAppender
log4j.additivity.kafka.request.logger=false
log4j.logger.kafka.network.RequestChannel$=WARN, requestAppender
log4j.additivity.kafka.network.RequestChannel$=false
log4j.logger.kafka.controller=TRACE, controllerAppender
log4j.additivity.kafka.controller=false
log4j.logger.kafka.log.LogCleaner=INFO, cleanerAppender
log4j.additivity.kafka.log.LogCleaner=false
log4j.logger.state.change.logger=INFO, stateChangeAppender
log4j.additivity.state.change.logger=false
log4j.logger.kafka.authorizer.logger=INFO, authorizerAppender
log4j.additivity.kafka.authorizer.logger=false
`;

/** Kafka's config/tools-log4j.properties: command-line tools log WARN and above to stderr. */
export const TOOLS_LOG4J_PROPERTIES = `
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
`;
