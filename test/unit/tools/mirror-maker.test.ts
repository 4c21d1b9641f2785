import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import type { Logger } from '../../../src/common/logging/logging';
import { CliError } from '../../../src/tools/cli';
import { checkMirrorMakerOptions, consumerOverrides, includeListRegex, producerOverrides, whitelistMatcher } from '../../../src/tools/mirror-maker';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = {
    name: 'kafka.tools.MirrorMaker$',
    lines,
    trace: () => undefined,
    debug: () => undefined,
    info: (m: string) => lines.push(`INFO ${m}`),
    warn: (m: string) => lines.push(`WARN ${m}`),
    error: (m: string) => lines.push(`ERROR ${m}`),
    fatal: (m: string) => lines.push(`FATAL ${m}`),
    isTraceEnabled: () => false,
    isDebugEnabled: () => false,
    withPrefix: () => log,
  };
  return log;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-maker-unit-'));
const consumerFile = path.join(dir, 'consumer.properties');
const producerFile = path.join(dir, 'producer.properties');
fs.writeFileSync(consumerFile, 'bootstrap.servers=localhost:9092\ngroup.id=mm\n');
fs.writeFileSync(producerFile, 'bootstrap.servers=localhost:9093\n');

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function check(extra: Record<string, string | undefined>): { settings?: ReturnType<typeof checkMirrorMakerOptions>; error?: string; log: string[]; warnings: string[] } {
  const log = recordingLogger();
  const warnings: string[] = [];
  try {
    const settings = checkMirrorMakerOptions({ consumerConfig: consumerFile, producerConfig: producerFile, whitelist: 'a.*', ...extra }, log, (l) => warnings.push(l));
    return { settings, log: log.lines, warnings };
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    return { error: (e as Error).message, log: log.lines, warnings };
  }
}

describe('kafka-mirror-maker option checks', () => {
  it("has Kafka's defaults", () => {
    const { settings, warnings } = check({});
    expect(settings).toMatchObject({ numStreams: 1, offsetCommitIntervalMs: 60000, abortOnSendFailure: true, whitelist: 'a.*' });
    expect(warnings).toEqual([expect.stringMatching(/^WARNING: The default partition assignment strategy of the mirror maker will change from 'range' to 'roundrobin'/)]);
  });

  it('refuses what Kafka refuses, on one line', () => {
    expect(check({ consumerConfig: undefined }).error).toBe('Missing required argument "[consumer.config]"');
    expect(check({ producerConfig: undefined }).error).toBe('Missing required argument "[producer.config]"');
    const noWhitelist = check({ whitelist: undefined });
    expect(noWhitelist.error).toBe('whitelist must be specified');
    expect(noWhitelist.log).toEqual(['ERROR whitelist must be specified']);
    expect(check({ numStreams: 'two' }).error).toBe("Cannot parse argument 'two' of option num.streams");
    expect(check({ offsetCommitIntervalMs: '99999999999' }).error).toBe("Cannot parse argument '99999999999' of option offset.commit.interval.ms");
    expect(check({ abortOnSendFailure: 'yes' }).error).toBe('java.lang.IllegalArgumentException: For input string: "yes"');
    expect(check({ abortOnSendFailure: 'FALSE' }).settings?.abortOnSendFailure).toBe(false);
    expect(check({ consumerConfig: path.join(dir, 'missing') }).error).toBe(`java.io.FileNotFoundException: ${path.join(dir, 'missing')} (No such file or directory)`);
    for (const option of ['consumerRebalanceListener', 'rebalanceListenerArgs', 'messageHandler', 'messageHandlerArgs']) {
      expect(check({ [option]: 'com.example.Foo' }).error).toMatch(/^Option "\[(consumer\.rebalance\.listener|rebalance\.listener\.args|message\.handler|message\.handler\.args)\]" is not supported: kafka-ts runs no Java classes/);
    }
  });
});

describe('kafka-mirror-maker --whitelist (IncludeList)', () => {
  it('takes commas as alternatives, drops blanks and quotes, and matches whole names', () => {
    expect(includeListRegex(' "a, b.*" ')).toBe('a|b.*');
    const m = whitelistMatcher('orders,logs-.*')!;
    expect(m('orders')).toBe(true);
    expect(m('logs-eu')).toBe(true);
    expect(m('orders2')).toBe(false);
    expect(m('xlogs-eu')).toBe(false);
    expect(whitelistMatcher('a|b')!('b')).toBe(true);
    expect(whitelistMatcher('(unclosed')).toBeUndefined();
  });
});

describe('kafka-mirror-maker client overrides', () => {
  it("sets the producer's no-data-loss defaults and logs where the file differs", () => {
    const log = recordingLogger();
    const { props, sync } = producerOverrides(new Map([['bootstrap.servers', 'h:1']]), log);
    expect(sync).toBe(false);
    expect(Object.fromEntries(props)).toEqual({
      'bootstrap.servers': 'h:1',
      'delivery.timeout.ms': '2147483647',
      'max.block.ms': '9223372036854775807',
      acks: 'all',
      'max.in.flight.requests.per.connection': '1',
      'key.serializer': 'org.apache.kafka.common.serialization.ByteArraySerializer',
      'value.serializer': 'org.apache.kafka.common.serialization.ByteArraySerializer',
    });
    expect(log.lines).toEqual([]);

    const given = producerOverrides(new Map([['acks', '1'], ['producer.type', 'sync'], ['max.in.flight.requests.per.connection', '1']]), log);
    expect(given.sync).toBe(true);
    expect(given.props.get('acks')).toBe('1');
    expect(given.props.has('producer.type')).toBe(false);
    expect(log.lines).toEqual(['INFO Property acks is overridden to 1 - data loss or message reordering is possible.']);
  });

  it('turns auto commit off and names each stream <group.id>-<i>', () => {
    const log = recordingLogger();
    const group = consumerOverrides(new Map([['bootstrap.servers', 'h:1'], ['group.id', 'mm']]), 1, log);
    expect(group.get('enable.auto.commit')).toBe('false');
    expect(group.get('client.id')).toBe('mm-1');
    expect(group.get('value.deserializer')).toBe('org.apache.kafka.common.serialization.ByteArrayDeserializer');
    const zk = consumerOverrides(new Map([['zookeeper.connect', 'z:2181/c'], ['group.id', 'mm'], ['auto.commit.enable', 'true']]), 0, log);
    expect(zk.get('auto.commit.enable')).toBe('true');
    expect(zk.has('enable.auto.commit')).toBe(false);
    expect(zk.get('client.id')).toBe('mm-0');
    expect(log.lines).toEqual(['INFO Property auto.commit.enable is overridden to true - data loss or message reordering is possible.']);
  });
});
