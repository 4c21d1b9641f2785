// The options of kafka-console-consumer, in a file of their own so that each consumer mode (console-consumer-zk.ts,
// console-consumer-group.ts) can take them without importing console-consumer.ts, which imports the modes.
export interface ConsoleConsumerOptions {
  bootstrapServer?: string;
  zookeeper?: string;
  deleteConsumerOffsets?: boolean;
  topic?: string;
  whitelist?: string;
  partition?: string;
  offset?: string;
  fromBeginning?: boolean;
  maxMessages?: string;
  timeoutMs?: string;
  property: string[];
  consumerProperty: string[];
  /** --consumer.config: a client properties file, --consumer-property on top. */
  consumerConfig?: string;
  group?: string;
  /** --formatter: a formatter's Java class name (console-consumer-loop.ts lists them). */
  formatter?: string;
}
