import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { TopicPartition, tpString } from '../common/topic-partition';

/**
 * File and directory names of a log dir, as Kafka names them (kafka.log.Log companion object).
 * A segment's files share its base offset written as 20 zero-padded decimal digits:
 * 00000000000000170410.log / .index / .timeindex.
 */
export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
/** A segment's aborted transactions (Kafka's Log.TxnIndexFileSuffix). */
export const TXN_INDEX_FILE_SUFFIX = '.txnindex';
/** Producer state snapshots (Kafka's Log.ProducerSnapshotFileSuffix). */
export const PRODUCER_SNAPSHOT_FILE_SUFFIX = '.snapshot';
/** A segment file waiting for asynchronous deletion. */
export const DELETED_FILE_SUFFIX = '.deleted';
/** The cleaner's output, then the cleaned segment being swapped in (LogCleaner, Log.replaceSegment). */
export const CLEANED_FILE_SUFFIX = '.cleaned';
export const SWAP_FILE_SUFFIX = '.swap';
/** Temporary file of a crash-safe write (checkpoints). */
export const TMP_FILE_SUFFIX = '.tmp';
/** A partition directory scheduled for deletion: `<topic>-<partition>.<32 hex>-delete`. */
export const DELETE_DIR_SUFFIX = '-delete';
export const FUTURE_DIR_SUFFIX = '-future';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';

export function filenamePrefixFromOffset(offset: number): string {
  return String(offset).padStart(20, '0');
}

export function logFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + LOG_FILE_SUFFIX + suffix);
}

export function offsetIndexFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + INDEX_FILE_SUFFIX + suffix);
}

export function timeIndexFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + TIME_INDEX_FILE_SUFFIX + suffix);
}

export function transactionIndexFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + TXN_INDEX_FILE_SUFFIX + suffix);
}

/** `<offset>.snapshot`: the producer state of everything below `offset`. */
export function producerSnapshotFile(dir: string, offset: number): string {
  return path.join(dir, filenamePrefixFromOffset(offset) + PRODUCER_SNAPSHOT_FILE_SUFFIX);
}

/** The base offset of a segment file name such as `00000000000000000042.log` (or NaN). */
export function offsetFromFileName(fileName: string): number {
  const prefix = fileName.split('.')[0] ?? '';
  return /^\d+$/.test(prefix) ? Number(prefix) : NaN;
}

export function logDirName(tp: TopicPartition): string {
  return tpString(tp);
}

/**
 * Parses a partition directory name. The partition is the text after the last `-` (topic names may contain
 * `-`); `-delete` and `-future` directories carry a `.<32 hex>` before the suffix. Undefined if not a log dir.
 */
export function parseTopicPartitionName(dirName: string): TopicPartition | undefined {
  let name = dirName;
  const special = /^(.*)\.[0-9a-f]{32}(-delete|-future)$/.exec(name);
  if (special) name = special[1] as string;
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return undefined;
  const topic = name.slice(0, dash);
  const partitionText = name.slice(dash + 1);
  if (!/^\d+$/.test(partitionText)) return undefined;
  return { topic, partition: Number(partitionText) };
}

/** Kafka's Log.logDirNameWithSuffix: `<topic>-<partition>.<uuid without dashes><suffix>`, unique per call. */
function logDirNameWithSuffix(tp: TopicPartition, suffix: string): string {
  return `${logDirName(tp)}.${crypto.randomUUID().replace(/-/g, '')}${suffix}`;
}

/** A replica being moved here from another log dir of this broker (AlterReplicaLogDirs). */
export function logFutureDirName(tp: TopicPartition): string {
  return logDirNameWithSuffix(tp, FUTURE_DIR_SUFFIX);
}

/** A partition directory renamed for asynchronous deletion. */
export function logDeleteDirName(tp: TopicPartition): string {
  return logDirNameWithSuffix(tp, DELETE_DIR_SUFFIX);
}

/**
 * Whether the future dir name of `tp` would exceed the 255 characters a file name may have (KAFKA-4893): Kafka
 * 2.8 refuses to move such a replica ("The topic name is too long.").
 */
export function futureDirNameTooLong(tp: TopicPartition): boolean {
  // `.` + 32 hex digits + `-future`.
  return logDirName(tp).length + 1 + 32 + FUTURE_DIR_SUFFIX.length > 255;
}

export function isDeleteDirName(dirName: string): boolean {
  return dirName.endsWith(DELETE_DIR_SUFFIX);
}

export function isFutureDirName(dirName: string): boolean {
  return dirName.endsWith(FUTURE_DIR_SUFFIX);
}
