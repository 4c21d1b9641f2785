/** Whether a timestamp was set by the producer or by the broker on append (attribute bit 3; message.timestamp.type). */
export enum TimestampType {
  NO_TIMESTAMP_TYPE = -1,
  CREATE_TIME = 0,
  LOG_APPEND_TIME = 1,
}

/** Kafka's "no timestamp" value (RecordBatch.NO_TIMESTAMP). */
export const NO_TIMESTAMP = -1;
