import { CliError } from '../../../src/tools/cli';
import { ReplicaBuffer, includeListPattern } from '../../../src/tools/replica-verification-tool';
import { offsetsCommitted, partitionsEvent, recordData, recordsConsumed, summarize } from '../../../src/tools/verifiable-consumer';
import { producerSendError, producerSendSuccess, runVerifiableProducer, ThroughputThrottler, toolData, verifiableValue } from '../../../src/tools/verifiable-producer';
import { RecordBatchBuilder, batchesIn } from '../../../src/records';
import { TimestampType } from '../../../src/records';

describe('kafka-verifiable-producer events', () => {
  it('prints Jackson’s field order', () => {
    expect(producerSendSuccess(1, null, '0', 't', 2, 5)).toBe('{"timestamp":1,"name":"producer_send_success","key":null,"value":"0","topic":"t","partition":2,"offset":5}');
    expect(producerSendError(1, '3', '4', 't', 'org.apache.kafka.common.errors.TimeoutException', 'Expiring 1 record(s)')).toBe(
      '{"timestamp":1,"name":"producer_send_error","topic":"t","key":"3","value":"4","exception":"class org.apache.kafka.common.errors.TimeoutException","message":"Expiring 1 record(s)"}',
    );
  });

  it('writes avg_throughput as a Java double', () => {
    expect(toolData(9, 10, 10, -1, 0)).toBe('{"timestamp":9,"name":"tool_data","sent":10,"acked":10,"target_throughput":-1,"avg_throughput":0.0}');
    expect(toolData(9, 10, 10, 5, 1234.5)).toBe('{"timestamp":9,"name":"tool_data","sent":10,"acked":10,"target_throughput":5,"avg_throughput":1234.5}');
  });

  it('prefixes values with --value-prefix', () => {
    expect(verifiableValue(7, undefined)).toBe('7');
    expect(verifiableValue(7, 3)).toBe('3.7');
  });

  it('throttles only above the target rate, never with -1', () => {
    const t = new ThroughputThrottler(10, 0);
    expect(t.shouldThrottle(5, 1000)).toBe(false);
    expect(t.shouldThrottle(50, 1000)).toBe(true);
    expect(new ThroughputThrottler(-1, 0).shouldThrottle(1e9, 1)).toBe(false);
  });

  it.each([
    [{}, 'verifiable-producer: error: argument --topic is required'],
    [{ topic: 't' }, 'verifiable-producer: error: one of the arguments --bootstrap-server --broker-list is required'],
    [{ topic: 't', bootstrapServer: 'h:1', brokerList: 'h:1' }, 'verifiable-producer: error: argument --broker-list: not allowed with argument --bootstrap-server'],
    [{ topic: 't', bootstrapServer: 'h:1', acks: '2' }, "verifiable-producer: error: argument --acks: invalid choice: '2' (choose from {0, 1, -1})"],
    [{ topic: 't', bootstrapServer: 'h:1', maxMessages: 'x' }, 'verifiable-producer: error: argument --max-messages: could not convert \'x\' to Integer (For input string: "x")'],
  ])('refuses %j with argparse4j’s message', async (o, message) => {
    await expect(runVerifiableProducer(o, () => undefined, { stopped: false })).rejects.toThrow(new CliError(message));
  });
});

describe('kafka-verifiable-consumer events', () => {
  it('prints Jackson’s field order', () => {
    expect(partitionsEvent(1, 'partitions_assigned', [{ topic: 't', partition: 0 }])).toBe('{"timestamp":1,"name":"partitions_assigned","partitions":[{"topic":"t","partition":0}]}');
    expect(recordsConsumed(1, 3, [{ topic: 't', partition: 0, count: 3, minOffset: 4, maxOffset: 6 }])).toBe(
      '{"timestamp":1,"name":"records_consumed","count":3,"partitions":[{"topic":"t","partition":0,"count":3,"minOffset":4,"maxOffset":6}]}',
    );
    expect(recordData(1, null, 'v', 't', 0, 4)).toBe('{"timestamp":1,"name":"record_data","key":null,"value":"v","topic":"t","partition":0,"offset":4}');
    expect(offsetsCommitted(1, [{ topic: 't', partition: 0, offset: 7 }], null)).toBe('{"timestamp":1,"name":"offsets_committed","offsets":[{"topic":"t","partition":0,"offset":7}],"success":true}');
    expect(offsetsCommitted(1, [], 'boom')).toBe('{"timestamp":1,"name":"offsets_committed","offsets":[],"error":"boom","success":false}');
  });

  it('summarizes a poll by partition and cuts it at --max-messages', () => {
    const r = (partition: number, offset: number) => ({ topic: 't', partition, offset, key: null, value: null, timestamp: 0, timestampType: TimestampType.CREATE_TIME, headers: [] });
    const { summaries, taken } = summarize([r(1, 5), r(1, 6), r(0, 2), r(0, 3)], 3);
    expect(summaries).toEqual([
      { topic: 't', partition: 1, count: 2, minOffset: 5, maxOffset: 6 },
      { topic: 't', partition: 0, count: 1, minOffset: 2, maxOffset: 2 },
    ]);
    expect(taken).toHaveLength(3);
  });
});

describe('kafka-replica-verification', () => {
  it('reads the white list as Kafka’s IncludeList', () => {
    expect(includeListPattern('a,b').test('b')).toBe(true);
    expect(includeListPattern('"a.*"').test('abc')).toBe(true);
    expect(includeListPattern('a').test('ab')).toBe(false);
    expect(() => includeListPattern('(')).toThrow('( is an invalid regex.');
  });

  it('verifies batches up to the high watermark and reports the max lag', () => {
    const builder = new RecordBatchBuilder({ baseOffset: 0 });
    builder.append({ key: null, value: Buffer.from('x'), timestamp: 1 });
    const bytes = builder.build();
    const lines: string[] = [];
    let now = 0;
    const buffer = new ReplicaBuffer(new Map([['t-0', 2]]), [{ topic: 't', partition: 0 }], new Map([['t-0', 0]]), 10, (l) => lines.push(l), () => now);
    now = 100;
    const batches = batchesIn(bytes);
    expect(buffer.verify(new Map([['t-0', new Map([[0, { highWatermark: 1, batches }], [1, { highWatermark: 1, batches }]])]]))).toBe(true);
    expect(buffer.offset({ topic: 't', partition: 0 })).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}: max lag is 0 for partition t-0 at offset 1 among 1 partitions$/);
  });
});
