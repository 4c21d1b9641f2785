import { SYSTEM_CLOCK } from '../common/time';
import { KafkaError } from '../common/kafka-error';
import { Producer } from '../client/producer';
import { Argparse4j } from './argparse4j';
import { exceptionClassFor, javaDouble } from './java-rendering';
import { intOption, parseBrokerList } from './tool-properties';
import { toolClientConnection } from './tool-client-connection';

const ARGS = new Argparse4j('verifiable-producer');

/** What bin/kafka-verifiable-producer.ts hands over (commander's option names). */
export interface VerifiableProducerOptions {
  topic?: string;
  bootstrapServer?: string;
  brokerList?: string;
  maxMessages?: string;
  throughput?: string;
  acks?: string;
  producerConfig?: string;
  messageCreateTime?: string;
  valuePrefix?: string;
  repeatingKeys?: string;
}

/*
 * The JSON events, with the field order of Kafka's Jackson beans: @JsonPropertyOrder({"timestamp", "name"}) on
 * the base class, then each bean's fields in declaration order, then the getters without a field.
 */

export function startupComplete(timestamp: number): string {
  return JSON.stringify({ timestamp, name: 'startup_complete' });
}

export function shutdownComplete(timestamp: number): string {
  return JSON.stringify({ timestamp, name: 'shutdown_complete' });
}

export function producerSendSuccess(timestamp: number, key: string | null, value: string, topic: string, partition: number, offset: number): string {
  return JSON.stringify({ timestamp, name: 'producer_send_success', key, value, topic, partition, offset });
}

/** FailedSend's fields are topic, key, value, exception; `exception` is Class.toString ("class a.b.C"). */
export function producerSendError(timestamp: number, key: string | null, value: string, topic: string, exceptionClass: string, message: string | null): string {
  return JSON.stringify({ timestamp, name: 'producer_send_error', topic, key, value, exception: `class ${exceptionClass}`, message });
}

/** avg_throughput is a Java double, printed as Jackson prints one (Double.toString: `0.0`, `1234.5`). */
export function toolData(timestamp: number, sent: number, acked: number, targetThroughput: number, avgThroughput: number): string {
  const head = JSON.stringify({ timestamp, name: 'tool_data', sent, acked, target_throughput: targetThroughput });
  return `${head.slice(0, -1)},"avg_throughput":${javaDouble(avgThroughput)}}`;
}

/** Kafka's ThroughputThrottler: throttles when the average rate since the start exceeds the target. */
export class ThroughputThrottler {
  private readonly sleepTimeNs: number;

  constructor(private readonly targetThroughput: number, private readonly startMs: number) {
    this.sleepTimeNs = targetThroughput > 0 ? 1e9 / targetThroughput : Number.MAX_SAFE_INTEGER;
  }

  shouldThrottle(amountSoFar: number, sendStartMs: number): boolean {
    if (this.targetThroughput < 0) return false;
    const elapsedSec = (sendStartMs - this.startMs) / 1000;
    return elapsedSec > 0 && amountSoFar / elapsedSec > this.targetThroughput;
  }

  async throttle(stop: { stopped: boolean }): Promise<void> {
    if (this.targetThroughput === 0) {
      while (!stop.stopped) await SYSTEM_CLOCK.sleep(100);
      return;
    }
    await SYSTEM_CLOCK.sleep(Math.max(1, Math.floor(this.sleepTimeNs / 1e6)));
  }
}

/** The value of message `i`: `prefix.i` with --value-prefix, else `i`. */
export function verifiableValue(i: number, valuePrefix: number | undefined): string {
  return valuePrefix === undefined ? String(i) : `${valuePrefix}.${i}`;
}

/**
 * Kafka's VerifiableProducer: increasing integers to --topic, one JSON line per acknowledged or failed send, no
 * retries; at the end (or on SIGTERM/SIGINT) the producer is closed, then shutdown_complete and tool_data.
 */
export async function runVerifiableProducer(o: VerifiableProducerOptions, out: (line: string) => void, stop: { stopped: boolean }): Promise<number> {
  if (o.topic === undefined) throw ARGS.error('argument --topic is required');
  if (o.bootstrapServer === undefined && o.brokerList === undefined) throw ARGS.error('one of the arguments --bootstrap-server --broker-list is required');
  if (o.bootstrapServer !== undefined && o.brokerList !== undefined) throw ARGS.error('argument --broker-list: not allowed with argument --bootstrap-server');
  const maxMessages = ARGS.int(o.maxMessages, '--max-messages', -1);
  const throughput = ARGS.int(o.throughput, '--throughput', -1);
  const acks = ARGS.int(o.acks, '--acks', -1);
  if (acks !== 0 && acks !== 1 && acks !== -1) throw ARGS.error(`argument --acks: invalid choice: '${o.acks}' (choose from {0, 1, -1})`);
  const createTimeArg = ARGS.int(o.messageCreateTime, '--message-create-time', -1, 'Long');
  const valuePrefix = o.valuePrefix === undefined ? undefined : ARGS.int(o.valuePrefix, '--value-prefix', 0);
  const repeatingKeys = o.repeatingKeys === undefined ? undefined : ARGS.int(o.repeatingKeys, '--repeating-keys', 0);
  const props = ARGS.propertiesFile(o.producerConfig);
  // Kafka sets bootstrap.servers, acks and retries=0 first and then adds the file's properties: the file wins.
  const servers = props.get('bootstrap.servers') ?? (o.bootstrapServer ?? o.brokerList)!;
  const fileAcks = props.get('acks');
  const producer = new Producer({
    bootstrapServers: parseBrokerList(servers, o.bootstrapServer !== undefined ? '--bootstrap-server' : '--broker-list'),
    clientId: props.get('client.id') ?? 'producer-1',
    acks: fileAcks === undefined ? acks : fileAcks === 'all' ? -1 : intOption(fileAcks, 'acks', -1),
    retries: intOption(props.get('retries'), 'retries', 0),
    batchSize: intOption(props.get('batch.size'), 'batch.size', 16384),
    lingerMs: intOption(props.get('linger.ms'), 'linger.ms', 0),
    requestTimeoutMs: intOption(props.get('request.timeout.ms'), 'request.timeout.ms', 30000),
    deliveryTimeoutMs: intOption(props.get('delivery.timeout.ms'), 'delivery.timeout.ms', 120000),
    maxInFlightRequestsPerConnection: intOption(props.get('max.in.flight.requests.per.connection'), 'max.in.flight.requests.per.connection', 5),
    ...toolClientConnection(props, '--producer.config'),
  });
  const startTime = SYSTEM_CLOCK.nowMs();
  let createTime = createTimeArg === -1 ? undefined : createTimeArg;
  let numSent = 0;
  let numAcked = 0;
  let keyCounter = 0;
  const startMs = SYSTEM_CLOCK.nowMs();
  const throttler = new ThroughputThrottler(throughput, startMs);
  out(startupComplete(SYSTEM_CLOCK.nowMs()));
  const limit = maxMessages < 0 ? Number.MAX_SAFE_INTEGER : maxMessages;
  try {
    for (let i = 0; i < limit && !stop.stopped; i++) {
      const sendStartMs = SYSTEM_CLOCK.nowMs();
      let key: string | null = null;
      if (repeatingKeys !== undefined) {
        key = String(keyCounter++);
        if (keyCounter === repeatingKeys) keyCounter = 0;
      }
      const value = verifiableValue(i, valuePrefix);
      const timestamp = createTime;
      // Kafka moves the create time on by the time elapsed since start-up after each send.
      if (createTime !== undefined) createTime += SYSTEM_CLOCK.nowMs() - startTime;
      numSent++;
      producer.sendWithCallback(
        o.topic,
        key === null ? null : Buffer.from(key),
        Buffer.from(value),
        (err, topic, partition, offset) => {
          if (err === null) {
            numAcked++;
            out(producerSendSuccess(SYSTEM_CLOCK.nowMs(), key, value, topic, partition, offset));
          } else {
            const exceptionClass = err instanceof KafkaError ? exceptionClassFor(err.code) : 'org.apache.kafka.common.KafkaException';
            out(producerSendError(SYSTEM_CLOCK.nowMs(), key, value, o.topic as string, exceptionClass, err.message));
          }
        },
        0,
        undefined,
        timestamp,
      );
      if (throttler.shouldThrottle(i, sendStartMs)) await throttler.throttle(stop);
      // The event loop is also the producer's sender: give it a turn now and then.
      else if (i % 256 === 255) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    // Kafka's shutdown hook: close (flushing what is pending), shutdown_complete, then the summary.
    await producer.close();
    out(shutdownComplete(SYSTEM_CLOCK.nowMs()));
    const stopMs = SYSTEM_CLOCK.nowMs();
    out(toolData(stopMs, numSent, numAcked, throughput, (1000 * numAcked) / (stopMs - startMs)));
  }
  return 0;
}
