import { checkLeaderElectionArgs, parseElectionType, parseReplicaElectionData, renderElectionResults } from '../../../src/tools/leader-election-command';
import { checkLogDirsArgs, formatLogDirsJson, parseLogDirsBrokerList } from '../../../src/tools/log-dirs-command';
import { javaStringHash, scalaHashMapOrder, topicPartitionHash } from '../../../src/tools/java-rendering';

describe('kafka-leader-election argument rules (LeaderElectionCommand.validate)', () => {
  const base = { bootstrapServer: 'h:1', electionType: 'preferred' };
  it.each([
    [{}, 'Missing required option(s): election-type, bootstrap-server'],
    [{ bootstrapServer: 'h:1' }, 'Missing required option(s): election-type'],
    [{ ...base }, 'One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file'],
    [{ ...base, topic: 't', allTopicPartitions: true }, 'One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file'],
    [{ ...base, topic: 't' }, 'Missing required option(s): partition'],
    [{ ...base, allTopicPartitions: true, partition: '1' }, 'Option partition is only allowed if topic is used'],
  ])('%j -> %s', (o, message) => {
    expect(() => checkLeaderElectionArgs(o)).toThrow(`Exception in thread "main" kafka.common.AdminCommandFailedException: ${message}`);
  });

  it('accepts one selection, and the election type in any case', () => {
    expect(() => checkLeaderElectionArgs({ ...base, topic: 't', partition: '0' })).not.toThrow();
    expect(parseElectionType('Unclean')).toBe('UNCLEAN');
    expect(() => parseElectionType('random')).toThrow("Cannot parse argument 'random' of option election-type");
  });

  it('reads the JSON file as Kafka does, refusing duplicates', () => {
    expect(parseReplicaElectionData('{"partitions":[{"topic":"foo","partition":1},{"topic":"bar","partition":0}]}')).toEqual([{ topic: 'foo', partition: 1 }, { topic: 'bar', partition: 0 }]);
    expect(() => parseReplicaElectionData('{}')).toThrow('kafka.admin.AdminOperationException: Replica election data is missing "partitions" field');
    expect(() => parseReplicaElectionData('{"partitions":[{"topic":"a","partition":1},{"topic":"a","partition":1}]}')).toThrow('Replica election data contains duplicate partitions: a-1');
  });

  it('renders results in Kafka\'s three groups, failures with the client exception and a failing exit', () => {
    const { lines, failure } = renderElectionResults('PREFERRED', {
      throttleTimeMs: 0,
      errorCode: 0,
      replicaElectionResults: [
        { topic: 't', partitionResult: [{ partitionId: 0, errorCode: 0, errorMessage: null }, { partitionId: 1, errorCode: 84, errorMessage: null }, { partitionId: 2, errorCode: 80, errorMessage: 'Failed to elect leader for partition t-2 under strategy PreferredReplicaPartitionLeaderElectionStrategy' }] },
      ],
    });
    expect(lines).toEqual([
      'Successfully completed leader election (PREFERRED) for partitions t-0',
      'Valid replica already elected for partitions t-1',
      'Error completing leader election (PREFERRED) for partition: t-2: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: Failed to elect leader for partition t-2 under strategy PreferredReplicaPartitionLeaderElectionStrategy',
    ]);
    expect(failure?.message).toBe('Exception in thread "main" kafka.common.AdminCommandFailedException: 1 replica(s) could not be elected');
    const timedOut = renderElectionResults('UNCLEAN', { throttleTimeMs: 0, errorCode: 0, replicaElectionResults: [{ topic: 't', partitionResult: [{ partitionId: 0, errorCode: 7, errorMessage: null }] }] });
    expect(timedOut.lines).toEqual(['Error completing leader election (UNCLEAN) for partition: t-0: org.apache.kafka.common.errors.TimeoutException: The request timed out.']);
  });
});

describe('kafka-log-dirs (LogDirsCommand)', () => {
  it('requires --bootstrap-server and --describe, and reads --broker-list as integers', () => {
    expect(() => checkLogDirsArgs({ describe: true })).toThrow('Missing required argument "[bootstrap-server]"');
    expect(() => checkLogDirsArgs({ bootstrapServer: 'h:1' })).toThrow('Missing required argument "[describe]"');
    expect(parseLogDirsBrokerList('2,0,,2')).toEqual([2, 0]);
    expect(() => parseLogDirsBrokerList('0,x')).toThrow('java.lang.NumberFormatException: For input string: "x"');
  });

  it('prints Kafka\'s JSON: key order, error class names, topic filter, hash-map order of partitions', () => {
    const json = formatLogDirsJson(
      [
        { broker: 1, logDirs: [{ errorCode: 56, logDir: '/bad', topics: [] }] },
        {
          broker: 0,
          logDirs: [
            {
              errorCode: 0,
              logDir: '/data',
              topics: [
                { name: 't3', partitions: [0, 1, 2, 3].map((p) => ({ partitionIndex: p, partitionSize: 10 * p, offsetLag: 0, isFutureKey: false })) },
                { name: 'other', partitions: [{ partitionIndex: 0, partitionSize: 5, offsetLag: 0, isFutureKey: false }] },
              ],
            },
          ],
        },
      ],
      new Set(['t3']),
    );
    expect(json.startsWith('{"version":1,"brokers":[{"broker":0,"logDirs":[{"logDir":"/data","error":null,"partitions":[{"partition":"t3-')).toBe(true);
    expect(json).toContain('{"broker":1,"logDirs":[{"logDir":"/bad","error":"org.apache.kafka.common.errors.KafkaStorageException","partitions":[]}]}');
    expect(json).not.toContain('other-0');
    const order = [...json.matchAll(/"partition":"(t3-\d)"/g)].map((m) => m[1]);
    expect(order).toEqual(scalaHashMapOrder(['t3-0', 't3-1', 't3-2', 't3-3'], (s) => topicPartitionHash('t3', Number(s.slice(3)))));
  });

  it('hashes as Java does', () => {
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('')).toBe(0);
    expect(topicPartitionHash('', 0)).toBe(961);
  });
});
