/** Public surface of src/log (what the broker wires up). */
export { LogManager } from './log-manager';
export type { LogManagerParams } from './log-manager';
export { DEFAULT_LOG_MANAGER_CONFIG, logManagerConfigFromProps } from './log-manager-config';
export type { LogManagerConfig } from './log-manager-config';
export { Log, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from './log';
export type { FetchDataInfo, LogAppendInfo, LogOpenParams, TimestampAndOffset } from './log';
export { brokerLogConfigDefaults, createLogConfig, DEFAULT_LOG_CONFIG, isCompactPolicy, isDeletePolicy, LOG_CONFIG_KEYS } from './log-config';
export type { CleanupPolicy, LogConfig } from './log-config';
export { LogDirFailureChannel } from './log-dir-failure-channel';
export type { AppendOrigin } from './log-validator';
export type { TopicPartition } from '../common/topic-partition';
export { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from './leader-epoch-file-cache';
export type { EpochEntry } from './leader-epoch-file-cache';
export { LogCleaner } from './log-cleaner';
export type { CleanerStats } from './log-cleaner';
