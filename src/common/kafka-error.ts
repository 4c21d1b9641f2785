import { ErrorCode, ErrorName, errorNameOf } from './error-codes';

/**
 * An outcome that travels to a client as a Kafka error code. Anything that is not a KafkaError reaching a
 * request handler is a bug or an environmental failure and is answered with UNKNOWN_SERVER_ERROR.
 */
export class KafkaError extends Error {
  readonly errorName: ErrorName;
  readonly code: number;
  readonly retriable: boolean;

  constructor(errorName: ErrorName, message?: string, options?: { cause?: unknown }) {
    super(message ?? ErrorCode[errorName].message, options);
    this.name = 'KafkaError';
    this.errorName = errorName;
    this.code = ErrorCode[errorName].code;
    this.retriable = ErrorCode[errorName].retriable;
  }

  /**
   * The error a response's code stands for (kafkajs's createErrorFromCode, Kafka's Errors.forCode). A code newer
   * than the table becomes UNKNOWN_SERVER_ERROR with the number in its message, as Kafka's client reports it.
   */
  static fromCode(code: number, message?: string): KafkaError {
    const name = errorNameOf(code);
    if (name === undefined) return new KafkaError('UNKNOWN_SERVER_ERROR', message ?? `Unknown error code ${code}`);
    return new KafkaError(name, message);
  }
}

/** A rejection reason as an Error, for log lines that print a cause (a rejection may carry anything). */
export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
