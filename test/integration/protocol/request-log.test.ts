import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { closeLogging, configureLogging } from '../../../src/common/logging/logging';
import { ProtocolTestServer } from '../../helpers/protocol-test-server';
import { waitUntil } from '../../helpers/wait-until';

describe('kafka-request.log', () => {
  it('shows each request with its timing at DEBUG, like Kafka 2.x RequestChannel', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafka-ts-reqlog-'));
    const props = join(dir, 'log4j.properties');
    writeFileSync(
      props,
      [
        'log4j.rootLogger=OFF',
        'log4j.appender.requestAppender=org.apache.log4j.DailyRollingFileAppender',
        'log4j.appender.requestAppender.File=${kafka.logs.dir}/kafka-request.log',
        'log4j.logger.kafka.request.logger=DEBUG, requestAppender',
        'log4j.additivity.kafka.request.logger=false',
      ].join('\n'),
    );
    configureLogging({ mode: 'server', log4jFile: props, logDir: dir });
    const server = await new ProtocolTestServer().start();
    try {
      const producer = new Kafka({ clientId: 'logged', brokers: [server.bootstrap], logLevel: logLevel.NOTHING }).producer();
      await producer.connect();
      await producer.send({ topic: 'logged-topic', messages: [{ value: 'x' }] });
      await producer.disconnect();
      const read = (): string =>
        readdirSync(dir)
          .filter((f) => f.startsWith('kafka-request.log'))
          .map((f) => readFileSync(join(dir, f), 'utf8'))
          .join('');
      // The file transport writes asynchronously: wait for the PRODUCE line, then check everything that was logged.
      const text = await waitUntil(
        () => {
          const t = read();
          return /apiKey=PRODUCE/.test(t) ? t : false;
        },
        { timeoutMs: 5000, intervalMs: 20, message: 'the PRODUCE request to reach kafka-request.log' },
      );
      expect(text).toMatch(
        /DEBUG Completed request:RequestHeader\(apiKey=API_VERSIONS, apiVersion=2, clientId=logged, correlationId=0\) -- \{\} from connection 127\.0\.0\.1:\d+-127\.0\.0\.1:\d+-\d+;totalTime:[\d.]+,requestQueueTime:[\d.]+,localTime:[\d.]+,remoteTime:[\d.]+,throttleTime:0,responseQueueTime:[\d.]+,sendTime:[\d.]+,securityProtocol:PLAINTEXT,principal:User:ANONYMOUS,listener:PLAINTEXT,clientInformation:ClientInformation\(softwareName=unknown, softwareVersion=unknown\) \(kafka\.request\.logger\)/,
      );
      expect(text).toMatch(/apiKey=PRODUCE, apiVersion=7, clientId=logged, correlationId=\d+\) -- \{acks=-1,timeout=30000,partitionSizes=\[logged-topic-0=\d+\]\}/);
    } finally {
      await server.stop();
      closeLogging();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
