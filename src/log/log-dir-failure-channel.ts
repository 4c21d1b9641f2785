import { getLogger } from '../common/logging/logging';
import { KafkaError } from '../common/kafka-error';

/** Told the path of a log dir that has just gone offline. */
export type LogDirFailureListener = (logDir: string) => void;

const logger = getLogger('kafka.server.LogDirFailureChannel');

/**
 * Where an I/O failure in a log dir is reported (Kafka's LogDirFailureChannel). The first failure of a dir
 * marks it offline and notifies the listeners: the LogManager takes the dir's logs offline, and their
 * partitions answer KAFKA_STORAGE_ERROR. Nothing tells the controller yet: no listener writes
 * `/log_dir_event_notification` (Kafka's ReplicaManager.handleLogDirFailure does), so the controller does not
 * move the affected leaderships. Nothing is retried: an offline dir stays offline until restart.
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

  offlineLogDirs(): string[] {
    return [...this.offline];
  }

  maybeAddOfflineLogDir(logDir: string, message: string, error: unknown): void {
    logger.error(message, error);
    if (this.offline.has(logDir)) return;
    this.offline.add(logDir);
    for (const l of this.listeners) l(logDir);
  }
}

/** An fs error (errno-style `code`) as opposed to a bug or a Kafka error. */
export function isIoError(err: unknown): boolean {
  if (err instanceof KafkaError) return false;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

export function storageError(message: string, cause?: unknown): KafkaError {
  return new KafkaError('KAFKA_STORAGE_ERROR', message, { cause });
}
