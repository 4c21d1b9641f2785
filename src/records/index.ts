/** Public surface of src/records. */
export { CompressionType, compressionTypeName, compressionTypeForConfig } from './compression-type';
export { compress, decompress, inflateCap } from './compression';
export { crc32c } from './crc32c';
export { crc32 } from './crc32';
export { RecordBatch, batchesIn, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, MAGIC_OFFSET, CURRENT_MAGIC } from './record-batch';
export { recordPayloadSizes } from './record-payload-sizes';
export type { RecordPayloadSizes } from './record-payload-sizes';
export { RecordBatchBuilder } from './record-batch-builder';
export type { RecordBatchBuilderOptions, RecordInput } from './record-batch-builder';
export type { Record, RecordHeader } from './record';
export { TimestampType, NO_TIMESTAMP } from './timestamp-type';
export { readLegacyMessages, readLegacyRecords, writeLegacyEntry, legacyEntrySize, MESSAGE_OVERHEAD_V0 } from './legacy-message-set';
export type { LegacyMessage, LegacyRecord } from './legacy-message-set';
export { convertLegacyToRecordBatch, downConvert, downConvertUntilError } from './record-conversion';
export type { DownConversion } from './record-conversion';
