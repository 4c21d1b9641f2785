import { checkTopicCommandArgs, TopicCommandOptions } from '../../../src/tools/topic-command';
import { checkConsumerGroupsArgs, ConsumerGroupsOptions } from '../../../src/tools/consumer-groups-command';
import { exportOffsetsToCsv, formatResetRow, parseDateTime, parseDuration, parseResetPlan } from '../../../src/tools/consumer-groups-reset';
import { checkStreamsResetterArgs, matchesInternalTopicFormat } from '../../../src/tools/streams-resetter';

const topicOpts = (o: Partial<TopicCommandOptions>): TopicCommandOptions => ({ bootstrapServer: 'b:9092', config: [], deleteConfig: [], ...o });
const groupOpts = (o: Partial<ConsumerGroupsOptions>): ConsumerGroupsOptions => ({ bootstrapServer: 'b:9092', topic: [], ...o });

describe('kafka-topics --bootstrap-server option checks (TopicCommandOptions.checkArgs)', () => {
  it('creates with the cluster defaults when partitions or replication factor are left out', () => {
    expect(() => checkTopicCommandArgs(topicOpts({ create: true, topic: 't' }))).not.toThrow();
    expect(() => checkTopicCommandArgs({ ...topicOpts({ create: true, topic: 't' }), bootstrapServer: undefined, zookeeper: 'z:2181' })).toThrow('Missing required argument "[partitions]"');
  });
  it('refuses --alter --config and --delete-config, and --alter without --partitions', () => {
    expect(() => checkTopicCommandArgs(topicOpts({ alter: true, topic: 't', config: ['a=b'] }))).toThrow(
      'Option combination "[bootstrap-server],[config]" can\'t be used with option "[alter]" (the kafka-configs CLI supports altering topic configs with a --bootstrap-server option)',
    );
    expect(() => checkTopicCommandArgs(topicOpts({ alter: true, topic: 't' }))).toThrow('Missing required argument "[partitions]"');
    expect(() => checkTopicCommandArgs(topicOpts({ alter: true, topic: 't', partitions: '3', deleteConfig: ['a'] }))).toThrow('Option "[delete-config]" can\'t be used with option "[bootstrap-server]"');
  });
  it('keeps the min-ISR reports to --describe --bootstrap-server, one report at a time', () => {
    expect(() => checkTopicCommandArgs(topicOpts({ describe: true, underMinIsrPartitions: true }))).not.toThrow();
    expect(() => checkTopicCommandArgs({ ...topicOpts({ describe: true, atMinIsrPartitions: true }), bootstrapServer: undefined, zookeeper: 'z:2181' })).toThrow('Option "[at-min-isr-partitions]" can\'t be used with option "[zookeeper]"');
    expect(() => checkTopicCommandArgs(topicOpts({ describe: true, underReplicatedPartitions: true, unavailablePartitions: true }))).toThrow('Option "[under-replicated-partitions]" can\'t be used with option "[unavailable-partitions]"');
  });
});

describe('kafka-consumer-groups reset options', () => {
  it('checks group selection, scenarios and scopes with Kafka messages', () => {
    expect(() => checkConsumerGroupsArgs(groupOpts({ resetOffsets: true, toEarliest: true, allTopics: true }))).toThrow('Option [reset-offsets] takes one of these options: [group], [all-groups]');
    expect(() => checkConsumerGroupsArgs(groupOpts({ describe: true, group: 'g', allGroups: true }))).toThrow('Option "[group]" can\'t be used with option "[all-groups]"');
    expect(() => checkConsumerGroupsArgs(groupOpts({ resetOffsets: true, group: 'g', toEarliest: true, toDatetime: '2020-01-01T00:00:00.000', allTopics: true }))).toThrow('Option "[to-datetime]" can\'t be used with option "[to-earliest]"');
    expect(() => checkConsumerGroupsArgs(groupOpts({ resetOffsets: true, group: 'g', toEarliest: true }))).toThrow('One of the reset scopes should be defined: --all-topics, --topic.');
    expect(() => checkConsumerGroupsArgs(groupOpts({ resetOffsets: true, group: 'g', fromFile: 'x.csv' }))).not.toThrow();
    expect(() => checkConsumerGroupsArgs(groupOpts({ resetOffsets: true, group: 'g', toEarliest: true, allTopics: true, dryRun: true, execute: true }))).toThrow('Option [reset-offsets] only accepts one of [execute] and [dry-run]');
  });
  it('parses datetimes (UTC without a zone) and ISO-8601 durations', () => {
    expect(parseDateTime('2021-03-04T05:06:07.089')).toBe(Date.UTC(2021, 2, 4, 5, 6, 7, 89));
    expect(parseDateTime('2021-03-04T05:06:07.089+01:00')).toBe(Date.UTC(2021, 2, 4, 4, 6, 7, 89));
    expect(() => parseDateTime('2021-03-04')).toThrow("Error parsing timestamp. It does not contain a 'T' according to ISO8601 format");
    expect(parseDuration('P1DT2H3M4.5S')).toBe(86_400_000 + 2 * 3_600_000 + 3 * 60_000 + 4500);
    expect(parseDuration('PT30M')).toBe(1_800_000);
    expect(() => parseDuration('30m')).toThrow('Text cannot be parsed to a Duration');
  });
  it('reads both CSV plan formats, exports CSV and pads the NEW-OFFSET table', () => {
    expect(parseResetPlan('t,0,5\nt,1,6\n', 'g')).toEqual(new Map([['g', [{ topic: 't', partition: 0, offset: 5 }, { topic: 't', partition: 1, offset: 6 }]]]));
    expect(parseResetPlan('g1,t,0,5\ng2,t,0,7', undefined).get('g2')).toEqual([{ topic: 't', partition: 0, offset: 7 }]);
    const assignments = new Map([['g', [{ topic: 't', partition: 0, offset: 5 }]]]);
    expect(exportOffsetsToCsv(assignments, true)).toBe('t,0,5\n');
    expect(exportOffsetsToCsv(assignments, false)).toBe('g,t,0,5\n');
    expect(formatResetRow('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET')).toBe(`${'GROUP'.padEnd(30)} ${'TOPIC'.padEnd(30)} PARTITION  NEW-OFFSET     `);
  });
});

describe('kafka-streams-application-reset', () => {
  it('needs an application id, one of --dry-run/--execute, one scenario', () => {
    const base = { bootstrapServers: 'b:9092', inputTopics: [], intermediateTopics: [], internalTopics: [] };
    expect(() => checkStreamsResetterArgs(base)).toThrow('Missing required argument "[application-id]"');
    expect(() => checkStreamsResetterArgs({ ...base, applicationId: 'a', dryRun: true, execute: true })).toThrow('Only one of --dry-run and --execute can be specified');
    expect(() => checkStreamsResetterArgs({ ...base, applicationId: 'a', toEarliest: true, toLatest: true })).toThrow('Option "[to-earliest]" can\'t be used with option "[to-latest]"');
  });
  it("recognises Kafka Streams' internal topic names", () => {
    expect(matchesInternalTopicFormat('app-store-changelog')).toBe(true);
    expect(matchesInternalTopicFormat('app-KSTREAM-AGGREGATE-0000000003-repartition')).toBe(true);
    expect(matchesInternalTopicFormat('app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic')).toBe(true);
    expect(matchesInternalTopicFormat('app-notes')).toBe(false);
  });
});
