import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { parseProperties } from '../common/config/properties';
import { CompressionType } from '../records';
import { newProducer } from './new-producer';
import { CliError } from './cli';
import { toolClientConnection } from './tool-client-connection';
import { intOption, parseBrokerList, parseKeyValueArgs } from './tool-properties';

export interface ConsoleProducerOptions {
  brokerList?: string;
  bootstrapServer?: string;
  topic: string;
  sync?: boolean;
  compressionCodec?: string | true;
  requestRequiredAcks?: string;
  requestTimeoutMs?: string;
  timeout?: string;
  maxPartitionMemoryBytes?: string;
  messageSendMaxRetries?: string;
  retryBackoffMs?: string;
  property: string[];
  producerProperty: string[];
  producerConfig?: string;
}

const CODECS: Record<string, CompressionType> = {
  none: CompressionType.NONE,
  gzip: CompressionType.GZIP,
  snappy: CompressionType.SNAPPY,
  lz4: CompressionType.LZ4,
  zstd: CompressionType.ZSTD,
};

/**
 * Kafka's ConsoleProducer: one record per line of standard input (key before key.separator with
 * parse.key=true), sent with the project's producer; at end of input everything is flushed. A failed send is
 * printed and makes the tool exit non-zero.
 */
export async function runConsoleProducer(o: ConsoleProducerOptions, input: NodeJS.ReadableStream, err: (line: string) => void): Promise<number> {
  const servers = o.bootstrapServer ?? o.brokerList;
  if (servers === undefined) throw new CliError('Missing required option(s) [bootstrap-server]');
  const fileProps = o.producerConfig === undefined ? new Map<string, string>() : readConfig(o.producerConfig);
  const producerProps = new Map([...fileProps, ...parseKeyValueArgs(o.producerProperty, '--producer-property')]);
  const reader = parseKeyValueArgs(o.property, '--property');
  const parseKey = (reader.get('parse.key') ?? 'false').trim().toLowerCase() === 'true';
  const separator = reader.get('key.separator') ?? '\t';
  const ignoreError = (reader.get('ignore.error') ?? 'false').trim().toLowerCase() === 'true';
  const codecName = o.compressionCodec === true ? 'gzip' : (o.compressionCodec ?? producerProps.get('compression.type') ?? 'none');
  const compression = CODECS[codecName];
  if (compression === undefined) throw new CliError(`Invalid --compression-codec ${codecName}: expected none, gzip, snappy, lz4 or zstd`);
  const acksText = o.requestRequiredAcks ?? producerProps.get('acks') ?? '1';
  const acks = acksText === 'all' ? -1 : intOption(acksText, '--request-required-acks', 1);
  if (![0, 1, -1].includes(acks)) throw new CliError(`Invalid --request-required-acks ${acksText}: expected 0, 1, -1 or all`);
  const transactionalId = producerProps.get('transactional.id');
  const producer = newProducer({
    bootstrapServers: parseBrokerList(servers, o.bootstrapServer !== undefined ? '--bootstrap-server' : '--broker-list'),
    clientId: producerProps.get('client.id') ?? 'console-producer',
    acks,
    compression,
    lingerMs: intOption(o.timeout ?? producerProps.get('linger.ms'), '--timeout', 1000),
    batchSize: intOption(o.maxPartitionMemoryBytes ?? producerProps.get('batch.size'), '--max-partition-memory-bytes', 16384),
    requestTimeoutMs: intOption(o.requestTimeoutMs ?? producerProps.get('request.timeout.ms'), '--request-timeout-ms', 1500),
    retryBackoffMs: intOption(o.retryBackoffMs ?? producerProps.get('retry.backoff.ms'), '--retry-backoff-ms', 100),
    deliveryTimeoutMs: intOption(producerProps.get('delivery.timeout.ms'), 'delivery.timeout.ms', 120000),
    maxInFlightRequestsPerConnection: intOption(producerProps.get('max.in.flight.requests.per.connection'), 'max.in.flight.requests.per.connection', 5),
    maxRequestSize: intOption(producerProps.get('max.request.size'), 'max.request.size', 1048576),
    ...toolClientConnection(producerProps, '--producer.config / --producer-property'),
    // As Kafka's console producer, --request-required-acks (default 1) is always set: idempotence needs acks=all too.
    ...(producerProps.get('enable.idempotence') === undefined ? {} : { enableIdempotence: producerProps.get('enable.idempotence') === 'true' }),
    ...(transactionalId === undefined ? {} : { transactionalId }),
  });
  // Kafka's console producer never begins a transaction; with transactional.id its sends would all be refused.
  // Here the whole input is one transaction, committed at the end of input (aborted if a record failed).
  if (transactionalId !== undefined) {
    await producer.initTransactions();
    producer.beginTransaction();
  }
  let failed = 0;
  const pending: Promise<void>[] = [];
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    let key: Buffer | null = null;
    let value = line;
    if (parseKey) {
      const at = line.indexOf(separator);
      if (at < 0) {
        if (!ignoreError) {
          err(`No key found on line ${lineNumber}: ${line}`);
          failed++;
          break;
        }
      } else {
        key = Buffer.from(line.slice(0, at));
        value = line.slice(at + separator.length);
      }
    }
    const sent = producer.send(o.topic, key, Buffer.from(value)).then(
      () => undefined,
      (e: unknown) => {
        failed++;
        err(`Error when sending message to topic ${o.topic} with key: ${key === null ? 'null' : `${key.length} bytes`}, value: ${Buffer.byteLength(value)} bytes with error: ${(e as Error).message}`);
      },
    );
    if (o.sync) {
      // Synchronous mode waits for each record's acknowledgement, so nothing should linger in a batch.
      await producer.flush();
      await sent;
    } else {
      pending.push(sent);
    }
  }
  await producer.flush().catch(() => undefined);
  await Promise.all(pending);
  if (transactionalId !== undefined) {
    try {
      if (failed === 0) await producer.commitTransaction();
      else await producer.abortTransaction();
    } catch (e) {
      err(`Error when completing the transaction of transactional.id ${transactionalId}: ${(e as Error).message}`);
      failed++;
    }
  }
  await producer.close().catch(() => undefined);
  return failed === 0 ? 0 : 1;
}

function readConfig(file: string): Map<string, string> {
  try {
    return parseProperties(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
