import { getLogger } from '../common/logging/logging';
import { KafkaError } from '../common/kafka-error';

/** Told the path of a log dir that has just gone offline. */
export type LogDirFailureListener = (logDir: string) => void;

const logger = getLogger('kafka.server.LogDirFailureChannel');

/**
 * Where an I/O failure in a log dir is reported (Kafka's LogDirFailureChannel). The first failure of a dir
 * marks it offline and tells the listeners, in registration order, synchronously: the LogManager stops the
 * dir's logs from touching the disk at once; the ReplicaManager then (off the failing call's stack, one dir at
 * a time, as Kafka's LogDirFailureHandler thread) stops serving the dir's replicas, has the LogManager drop
 * them (or halt the broker when no dir is left) and writes `/log_dir_event_notification/log_dir_event_<seq>`
 * so the controller moves the leaderships away. An offline dir stays offline until the broker restarts.
 *
 * Only errors that say the dir itself is failing come here (`isLogDirFailure`); a process or host running
 * short of a resource (`isResourceError`: EMFILE, ENOMEM, ...) fails one request and leaves the dir online.
 */
export class LogDirFailureChannel {
  private readonly offline = new Set<string>();
  private readonly listeners: LogDirFailureListener[] = [];

  onFailure(listener: LogDirFailureListener): void {
    this.listeners.push(listener);
  }

  isOffline(logDir: string): boolean {
    return this.offline.has(logDir);
  }

  /** Kafka's hasOfflineLogDir: whether any dir failed. */
  hasOfflineLogDir(): boolean {
    return this.offline.size > 0;
  }

  offlineLogDirs(): string[] {
    return [...this.offline];
  }

  /** Kafka's maybeAddOfflineLogDir: logs the error; the dir's first failure marks it offline and tells the listeners. */
  maybeAddOfflineLogDir(logDir: string, message: string, error: unknown): void {
    logger.error(message, error);
    if (this.offline.has(logDir)) return;
    this.offline.add(logDir);
    for (const l of this.listeners) l(logDir);
  }
}

/**
 * Errnos that say nothing about the disk: this process or the host ran short of something (descriptors, memory,
 * kernel buffers) or a call was interrupted or busy. The request that met one fails (KAFKA_STORAGE_ERROR, which
 * clients retry) and the log dir stays online. EBADF is a descriptor this process closed too early: a bug of
 * ours, not the disk's.
 *
 * Kafka takes the dir offline on every IOException, "Too many open files" included, so one broker hitting its
 * descriptor limit lost its log dirs for good; kafka-ts does not follow it there.
 */
export const RESOURCE_ERRNOS: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'ENOBUFS', 'EAGAIN', 'EWOULDBLOCK', 'EINTR', 'EBUSY', 'EBADF', 'ECANCELED']);

/**
 * The usual errnos of a failing dir (documentation and tests; classification does not need the list): every
 * errno not in RESOURCE_ERRNOS takes the dir offline, as every IOException does in Kafka.
 */
export const LOG_DIR_FAILURE_ERRNOS: readonly string[] = ['EIO', 'ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG', 'ENXIO', 'ENODEV', 'EUCLEAN', 'ESTALE', 'ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM'];

/** What an fs error means for its log dir; undefined for anything that is not an errno-style error (a bug, a KafkaError). */
export type IoErrorKind = 'log-dir-failure' | 'resource';

export function ioErrorKind(err: unknown): IoErrorKind | undefined {
  if (err instanceof KafkaError) return undefined;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return undefined;
  return RESOURCE_ERRNOS.has(code) ? 'resource' : 'log-dir-failure';
}

/** An fs error (errno-style `code`) as opposed to a bug or a Kafka error. */
export function isIoError(err: unknown): boolean {
  return ioErrorKind(err) !== undefined;
}

/** An fs error that takes the log dir offline (EIO, ENOSPC, EROFS, EDQUOT, ...). */
export function isLogDirFailure(err: unknown): boolean {
  return ioErrorKind(err) === 'log-dir-failure';
}

/** An fs error answered per request, leaving the dir online (EMFILE, ENFILE, ENOMEM, EAGAIN, ...). */
export function isResourceError(err: unknown): boolean {
  return ioErrorKind(err) === 'resource';
}

export function storageError(message: string, cause?: unknown): KafkaError {
  return new KafkaError('KAFKA_STORAGE_ERROR', message, { cause });
}

/**
 * KAFKA_STORAGE_ERROR for one request: a resource ran short (`isResourceError`) and the log dir is still online.
 * Clients retry it like any storage error; the broker does not report it to the controller as an offline replica.
 */
export class TransientStorageError extends KafkaError {
  constructor(message: string, cause?: unknown) {
    super('KAFKA_STORAGE_ERROR', message, { cause });
  }
}

export function isTransientStorageError(err: unknown): boolean {
  return err instanceof TransientStorageError;
}

/** The errno of an fs error, for log lines. */
export function errnoOf(err: unknown): string {
  return String((err as NodeJS.ErrnoException | undefined)?.code ?? 'unknown');
}
