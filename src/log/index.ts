/** Public surface of src/log (what the broker wires up). Its configuration, LogConfig, lives in common/config. */
export { LogManager } from './log-manager';
export type { LogManagerParams } from './log-manager';
export { DEFAULT_LOG_MANAGER_CONFIG, logManagerConfigFrom } from './log-manager-config';
export type { LogManagerConfig } from './log-manager-config';
export { Log, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from './log';
export type { FetchDataInfo, LogAppendInfo, LogOpenParams, TimestampAndOffset } from './log';
export { LogDirFailureChannel } from './log-dir-failure-channel';
export type { AppendOrigin } from './log-validator';
export { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from './leader-epoch-file-cache';
export type { EpochEntry } from './leader-epoch-file-cache';
export { LogCleaner } from './log-cleaner';
export type { CleanerStats } from './log-cleaner';
