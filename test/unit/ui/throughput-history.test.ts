import { brokerWideCounter, ThroughputHistory } from '../../../src/ui/throughput-history';

const exposition = (messages: number, bytes: number): string =>
  [
    '# HELP kafka_server_brokertopicmetrics_messagesin_total Messages in',
    '# TYPE kafka_server_brokertopicmetrics_messagesin_total counter',
    `kafka_server_brokertopicmetrics_messagesin_total{topic="t"} ${messages * 10}`,
    `kafka_server_brokertopicmetrics_messagesin_total ${messages}`,
    `kafka_server_brokertopicmetrics_bytesin_total ${bytes}`,
    'kafka_server_brokertopicmetrics_bytesin_total_extra 99',
  ].join('\n');

describe('the sparklines throughput history', () => {
  it('reads the broker-wide counter, not a per-topic line or a longer name', () => {
    expect(brokerWideCounter(exposition(7, 300), 'kafka_server_brokertopicmetrics_messagesin_total')).toBe(7);
    expect(brokerWideCounter(exposition(7, 300), 'kafka_server_brokertopicmetrics_bytesin_total')).toBe(300);
    expect(brokerWideCounter(exposition(7, 300), 'kafka_server_brokertopicmetrics_bytesout_total')).toBeUndefined();
  });

  it('turns samples into per-second rates, and starts over when a counter goes down (a restart)', () => {
    const h = new ThroughputHistory(2);
    h.add(1, 1000, exposition(0, 0));
    h.add(1, 3000, exposition(20, 1000));
    expect(h.snapshot()['1']).toEqual({ MessagesInPerSec: [10], BytesInPerSec: [500], BytesOutPerSec: [] });
    h.add(1, 4000, exposition(5, 100));
    expect(h.snapshot()['1']?.MessagesInPerSec).toEqual([10]);
    h.add(1, 5000, exposition(8, 200));
    h.add(1, 6000, exposition(9, 300));
    // At most `capacity` points, oldest dropped.
    expect(h.snapshot()['1']?.MessagesInPerSec).toEqual([3, 1]);
  });
});
