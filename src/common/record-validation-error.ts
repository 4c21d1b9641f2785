import { ErrorName } from './error-codes';
import { KafkaError } from './kafka-error';

/** One rejected record: its index in the batch and why (Kafka's ProduceResponse.RecordError). */
export interface RecordError {
  readonly batchIndex: number;
  readonly message: string | null;
}

/**
 * Kafka's RecordValidationException: LogValidator rejected records of a batch one by one (a keyless record on a
 * compacted topic, a timestamp out of range...). The partition answers the error with the message and, from
 * Produce v8 on, each rejected record's index and reason (KIP-467), so a client can tell which records failed.
 */
export class RecordValidationError extends KafkaError {
  constructor(
    errorName: ErrorName,
    message: string,
    readonly recordErrors: readonly RecordError[],
  ) {
    super(errorName, message);
  }
}
