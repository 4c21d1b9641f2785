import type { ErrorName } from '../common/error-codes';

/** One record the coordinator writes: a key and a value (null: a tombstone). */
export interface OffsetsLogRecord {
  key: Buffer;
  value: Buffer | null;
  timestamp: number;
}

/** A batch of `__consumer_offsets` as the load reads it: the header fields it needs and the records. */
export interface OffsetsLogBatch {
  nextOffset: number;
  producerId: number;
  isTransactional: boolean;
  /** A control batch's marker (COMMIT or ABORT, another control type is OTHER); null for a data batch. */
  marker: 'COMMIT' | 'ABORT' | 'OTHER' | null;
  records: { offset: number; key: Buffer | null; value: Buffer | null }[];
}

/**
 * The group coordinator's view of its `__consumer_offsets` partitions (Kafka's GroupMetadataManager uses
 * ReplicaManager for this). The broker implements it over the local replica manager
 * (src/broker/offsets-log-access.ts) and owns the batch format, so this folder imports neither the broker nor
 * src/records: `append` writes one batch (transactional for a producer) as the partition's leader and resolves once
 * the whole ISR has it (offsets.commit.required.acks -1), with the partition's error otherwise; `read` and `bounds`
 * serve the load of a partition whose leadership arrives.
 */
export interface OffsetsLog {
  append(partition: number, records: readonly OffsetsLogRecord[], producer: { producerId: number; producerEpoch: number } | undefined, timeoutMs: number): Promise<ErrorName | undefined>;
  bounds(partition: number): { logStartOffset: number; logEndOffset: number } | undefined;
  read(partition: number, fromOffset: number, maxBytes: number): OffsetsLogBatch[];
}
