import { formatNode, formatNodeApiVersions } from '../../../src/tools/broker-api-versions-command';
import { errorText, formatOutcome, parseOffsetJson } from '../../../src/tools/delete-records-command';
import { javaExceptionName } from '../../../src/tools/admin-client-config';
import { to32BitField } from '../../../src/broker/handlers/describe-cluster';
import { KAFKA_2_8_APIS } from '../../../src/protocol/kafka-api-versions';

describe('kafka-delete-records: the offset JSON file (DeleteRecordsCommand.parseOffsetJsonStringWithoutDedup)', () => {
  it('reads Kafka\'s format, version 1 or no version', () => {
    expect(parseOffsetJson('{"partitions":[{"topic":"t","partition":0,"offset":3},{"topic":"u","partition":2,"offset":-1}],"version":1}')).toEqual([
      { tp: { topic: 't', partition: 0 }, offset: 3 },
      { tp: { topic: 'u', partition: 2 }, offset: -1 },
    ]);
    expect(parseOffsetJson('{"partitions":[]}')).toEqual([]);
  });

  it.each([
    ['not json', 'The input string is not a valid JSON'],
    ['{"partitions":[],"version":2}', 'Not supported version field value 2'],
    ['{"version":1}', 'Missing partitions field'],
    ['{"partitions":[{"partition":0,"offset":3}]}', 'No such field exists: `topic`'],
    ['{"partitions":[{"topic":"t","offset":3}]}', 'No such field exists: `partition`'],
    ['{"partitions":[{"topic":"t","partition":0}]}', 'No such field exists: `offset`'],
    ['{"partitions":[{"topic":"t","partition":"0","offset":3}]}', 'Expected `Int` value, received "0"'],
    ['{"partitions":[{"topic":1,"partition":0,"offset":3}]}', 'Expected `String` value, received 1'],
    ['{"partitions":[{"topic":"t","partition":0,"offset":1.5}]}', 'Expected `Long` value, received 1.5'],
    ['{"partitions":[{"topic":"t","partition":0,"offset":1},{"topic":"t","partition":0,"offset":2},{"topic":"t","partition":1,"offset":2},{"topic":"t","partition":1,"offset":2}]}', 'Offset json file contains duplicate topic partitions: t-0,t-1'],
  ])('refuses %s: %s', (text, message) => {
    expect(() => parseOffsetJson(text)).toThrow(message);
  });
});

describe('kafka-delete-records: output', () => {
  it('prints a low watermark or the admin client\'s exception, as DeleteRecordsCommand does', () => {
    expect(formatOutcome({ topic: 't', partition: 0 }, { lowWatermark: 3 })).toBe('partition: t-0\tlow_watermark: 3');
    expect(formatOutcome({ topic: 't', partition: 1 }, { error: errorText(1) })).toBe(
      'partition: t-1\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server.',
    );
    expect(errorText(3)).toBe('org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.');
    expect(errorText(7)).toBe('org.apache.kafka.common.errors.TimeoutException: The request timed out.');
    expect(javaExceptionName('POLICY_VIOLATION')).toBe('org.apache.kafka.common.errors.PolicyViolationException');
    expect(javaExceptionName('NOT_LEADER_OR_FOLLOWER')).toBe('org.apache.kafka.common.errors.NotLeaderOrFollowerException');
  });
});

describe('kafka-broker-api-versions: NodeApiVersions.toString(true)', () => {
  it('prints each API with its range and usable version, Kafka 2.8\'s others as UNSUPPORTED, in key order', () => {
    const text = formatNodeApiVersions([
      { apiKey: 21, minVersion: 0, maxVersion: 2 },
      { apiKey: 0, minVersion: 0, maxVersion: 7 },
      { apiKey: 60, minVersion: 0, maxVersion: 0 },
      { apiKey: 1, minVersion: 0, maxVersion: 13 },
      { apiKey: 99, minVersion: 0, maxVersion: 1 },
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('(');
    expect(lines[1]).toBe('\tProduce(0): 0 to 7 [usable: 7],');
    // A node newer than Kafka 2.8: the usable version is 2.8's.
    expect(lines[2]).toBe('\tFetch(1): 0 to 13 [usable: 12],');
    expect(lines[3]).toBe('\tListOffsets(2): UNSUPPORTED,');
    expect(lines).toContain('\tDeleteRecords(21): 0 to 2 [usable: 2],');
    expect(lines).toContain('\tDescribeCluster(60): 0 [usable: 0],');
    expect(lines.at(-2)).toBe('\tUNKNOWN(99): 0 to 1');
    expect(lines.at(-1)).toBe(')');
    expect(lines).toHaveLength(KAFKA_2_8_APIS.length + 1 + 2);
  });

  it('says when no version is usable', () => {
    expect(formatNodeApiVersions([{ apiKey: 45, minVersion: 1, maxVersion: 2 }])).toContain('\tAlterPartitionReassignments(45): 1 to 2 [unusable: node too new],');
  });

  it('names a node as Kafka\'s Node.toString', () => {
    expect(formatNode({ nodeId: 0, host: '127.0.0.1', port: 9092, rack: null })).toBe('127.0.0.1:9092 (id: 0 rack: null)');
    expect(formatNode({ nodeId: 2, host: 'h', port: 1, rack: 'r1' })).toBe('h:1 (id: 2 rack: r1)');
  });
});

describe('DescribeCluster: clusterAuthorizedOperations', () => {
  it('is Kafka\'s Utils.to32BitField of the CLUSTER operations', () => {
    expect(to32BitField([5, 7, 8, 9, 10, 11, 12])).toBe(8096);
    expect(to32BitField([])).toBe(0);
  });
});
