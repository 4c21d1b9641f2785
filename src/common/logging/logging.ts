import * as fs from 'node:fs';
import * as path from 'node:path';
import winston from 'winston';
import { formatLog4jTimestamp } from '../time-format';
import {
  AppenderTarget,
  LEVEL_RANK,
  Log4jConfig,
  LogLevel,
  LoggerRule,
  parseLog4jConfig,
  STOCK_LOG4J_PROPERTIES,
  TOOLS_LOG4J_PROPERTIES,
} from './log4j-config';
import { HourlyRollingFileTransport } from './hourly-rolling-file-transport';

/**
 * Kafka-shaped logging on winston. Every logger has a Kafka logger name (`kafka.server.KafkaServer`,
 * `state.change.logger`, ...) and an optional per-instance prefix (`[KafkaServer id=0] `). Which files a line
 * reaches is decided by the log4j-style configuration, not by the caller, as in Kafka.
 */
export interface Logger {
  readonly name: string;
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string, error?: unknown): void;
  error(message: string, error?: unknown): void;
  /** The last line before the process exits (log4j's FATAL). */
  fatal(message: string, error?: unknown): void;
  isTraceEnabled(): boolean;
  isDebugEnabled(): boolean;
  /** The same logger name with another per-instance prefix. */
  withPrefix(prefix: string): Logger;
}

const WINSTON_LEVELS = { fatal: 0, error: 1, warn: 2, info: 3, debug: 4, trace: 5 };

interface Route {
  level: LogLevel;
  sinks: winston.Logger[];
}

interface LoggingState {
  config: Log4jConfig;
  logDir: string;
  sinks: Map<string, winston.Logger>;
  routes: Map<string, Route>;
  /** Levels set at run time (BROKER_LOGGER): a name's own level, or null where it was removed. */
  assigned: Map<string, LogLevel | null>;
}

let state: LoggingState | undefined;

/** Every logger name asked for, as log4j's LogManager.getCurrentLoggers knows every logger created so far. */
const createdLoggers = new Set<string>();

export interface LoggingOptions {
  /** `server` uses config/log4j.properties (or Kafka's stock routing); `tool` logs WARN+ to stderr. */
  mode: 'server' | 'tool';
  /** Directory for the log files (Kafka's kafka.logs.dir); default env LOG_DIR or ./logs. */
  logDir?: string;
  /** A log4j.properties file to read instead of the stock routing. */
  log4jFile?: string;
  /** log4j.properties text to use instead of the mode's routing (a tool that logs as Kafka's does at INFO). */
  log4jProperties?: string;
}

export function configureLogging(options: LoggingOptions): void {
  closeLogging();
  let text = options.mode === 'tool' ? TOOLS_LOG4J_PROPERTIES : STOCK_LOG4J_PROPERTIES;
  if (options.log4jProperties !== undefined) text = options.log4jProperties;
  if (options.log4jFile !== undefined) text = fs.readFileSync(options.log4jFile, 'utf8');
  const logDir = path.resolve(options.logDir ?? process.env['LOG_DIR'] ?? 'logs');
  state = { config: parseLog4jConfig(text), logDir, sinks: new Map(), routes: new Map(), assigned: new Map() };
}

/** Flushes and closes every file; later log calls go to the default (tool) routing. */
export function closeLogging(): void {
  if (state === undefined) return;
  for (const sink of state.sinks.values()) sink.close();
  state = undefined;
}

function currentState(): LoggingState {
  if (state === undefined) configureLogging({ mode: 'tool' });
  return state as LoggingState;
}

function lineFormat(): winston.Logform.Format {
  return winston.format.printf((info) => {
    const line = `[${String(info['ts'])}] ${String(info.level).toUpperCase()} ${String(info.message)} (${String(info['logger'])})`;
    const err = info['err'];
    return err === undefined ? line : `${line}\n${renderError(err)}`;
  });
}

function renderError(err: unknown): string {
  if (err instanceof Error) {
    let text = err.stack ?? `${err.name}: ${err.message}`;
    if (err.cause !== undefined) text += `\nCaused by: ${renderError(err.cause)}`;
    return text;
  }
  return String(err);
}

function sinkFor(s: LoggingState, appender: string): winston.Logger | undefined {
  const existing = s.sinks.get(appender);
  if (existing) return existing;
  const target: AppenderTarget | undefined = s.config.appenders.get(appender);
  if (target === undefined) return undefined;
  let transport: winston.transport;
  if (target.kind === 'file') {
    transport = new HourlyRollingFileTransport({ file: path.join(s.logDir, target.fileName) });
  } else {
    transport = new winston.transports.Stream({ stream: target.kind === 'stderr' ? process.stderr : process.stdout });
  }
  const sink = winston.createLogger({ levels: WINSTON_LEVELS, level: 'trace', format: lineFormat(), transports: [transport] });
  s.sinks.set(appender, sink);
  return sink;
}

/** A logger's own level (log4j's getLevel): set at run time, else from the configuration, else none. */
function assignedLevel(s: LoggingState, name: string): LogLevel | null {
  if (name === ROOT_LOGGER) return s.assigned.get(ROOT_LOGGER) ?? s.config.root.level;
  const assigned = s.assigned.get(name);
  if (assigned !== undefined) return assigned;
  return s.config.loggers.get(name)?.level ?? null;
}

/**
 * log4j's resolution: the nearest ancestor with a level of its own gives the level; appenders (from the
 * configuration) add up until additivity stops.
 */
function routeFor(s: LoggingState, name: string): Route {
  const cached = s.routes.get(name);
  if (cached) return cached;
  const chain: LoggerRule[] = [];
  let level: LogLevel | null = null;
  for (let prefix = name; prefix.length > 0; ) {
    const rule = s.config.loggers.get(prefix);
    if (rule) chain.push(rule);
    level ??= assignedLevel(s, prefix);
    const dot = prefix.lastIndexOf('.');
    prefix = dot < 0 ? '' : prefix.slice(0, dot);
  }
  chain.push(s.config.root);
  level ??= assignedLevel(s, ROOT_LOGGER) ?? 'info';
  const appenders: string[] = [];
  for (const rule of chain) {
    appenders.push(...rule.appenders);
    if (!rule.additive) break;
  }
  const sinks = [...new Set(appenders)].map((a) => sinkFor(s, a)).filter((x): x is winston.Logger => x !== undefined);
  const route = { level, sinks };
  s.routes.set(name, route);
  return route;
}

class KafkaLogger implements Logger {
  constructor(
    readonly name: string,
    private readonly prefix: string,
  ) {}

  private enabled(level: LogLevel): boolean {
    return LEVEL_RANK[routeFor(currentState(), this.name).level] >= LEVEL_RANK[level];
  }

  private write(level: Exclude<LogLevel, 'off'>, message: string, err?: unknown): void {
    const route = routeFor(currentState(), this.name);
    if (LEVEL_RANK[route.level] < LEVEL_RANK[level]) return;
    const ts = formatLog4jTimestamp(new Date());
    for (const sink of route.sinks) sink.log({ level, message: this.prefix + message, logger: this.name, ts, err });
  }

  trace(message: string): void {
    this.write('trace', message);
  }
  debug(message: string): void {
    this.write('debug', message);
  }
  info(message: string): void {
    this.write('info', message);
  }
  warn(message: string, error?: unknown): void {
    this.write('warn', message, error);
  }
  error(message: string, error?: unknown): void {
    this.write('error', message, error);
  }
  fatal(message: string, error?: unknown): void {
    this.write('fatal', message, error);
  }
  isTraceEnabled(): boolean {
    return this.enabled('trace');
  }
  isDebugEnabled(): boolean {
    return this.enabled('debug');
  }
  withPrefix(prefix: string): Logger {
    return new KafkaLogger(this.name, prefix);
  }
}

/** A logger under Kafka's name for the concept (e.g. `kafka.controller.KafkaController`). */
export function getLogger(name: string, prefix = ''): Logger {
  createdLoggers.add(name);
  return new KafkaLogger(name, prefix);
}

/** log4j's name for the root logger, as Kafka's Log4jController and the BROKER_LOGGER resource spell it. */
export const ROOT_LOGGER = 'root';

/**
 * Kafka 2.8's Log4jController.loggers: root first, then every logger created in code or named in the
 * configuration, each with its own level or, when it has none, the root logger's (not the inherited one: 2.8
 * reports it so). Levels in log4j's upper case.
 */
export function currentLoggerLevels(): Map<string, string> {
  const s = currentState();
  const root = (assignedLevel(s, ROOT_LOGGER) ?? 'info').toUpperCase();
  const levels = new Map<string, string>([[ROOT_LOGGER, root]]);
  const names = new Set([...s.config.loggers.keys(), ...createdLoggers, ...s.assigned.keys()]);
  for (const name of [...names].sort()) {
    if (name !== ROOT_LOGGER) levels.set(name, assignedLevel(s, name)?.toUpperCase() ?? root);
  }
  return levels;
}

/** Log4jController.loggerExists: root, or a logger that has been created (LogManager.exists). */
export function loggerExists(name: string): boolean {
  return name === ROOT_LOGGER || createdLoggers.has(name) || currentState().config.loggers.has(name) || currentState().assigned.has(name);
}

/**
 * Log4jController.logLevel / unsetLogLevel: gives an existing logger its own level, or (null) removes it so that
 * it inherits again; lines are routed by the new level from the next call on. False for an unknown logger, a
 * blank name, or a level log4j would not parse.
 */
export function setLoggerLevel(name: string, level: string | null): boolean {
  if (name.trim() === '' || !loggerExists(name)) return false;
  const s = currentState();
  if (level === null) {
    if (name === ROOT_LOGGER) return false;
    s.assigned.set(name, null);
  } else {
    const lower = level.trim().toLowerCase();
    if (!(lower in LEVEL_RANK)) return false;
    s.assigned.set(name, lower as LogLevel);
  }
  s.routes.clear();
  return true;
}
