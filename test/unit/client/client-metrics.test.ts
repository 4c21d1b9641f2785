import { ClientMetrics, formatMetrics } from '../../../src/client/client-metrics';
import { MockClock } from '../../helpers/mock-clock';

describe('ClientMetrics', () => {
  it("names metrics as Kafka's group:name:{client-id=...} with windowed avg/max, a total and a rate", () => {
    const clock = new MockClock();
    const metrics = new ClientMetrics('perf-1', clock);
    const throttle = metrics.sensor('producer-metrics', 'produce-throttle-time', ['avg', 'max']);
    const sends = metrics.sensor('producer-metrics', 'record-send', ['total', 'rate']);
    // Nothing recorded: avg and max are NaN, as Kafka prints them.
    expect(metrics.snapshot().get('producer-metrics:produce-throttle-time-avg:{client-id=perf-1}')).toBeNaN();
    throttle(0);
    throttle(300);
    sends(600);
    clock.advance(10_000);
    const now = metrics.snapshot();
    expect(now.get('producer-metrics:produce-throttle-time-avg:{client-id=perf-1}')).toBe(150);
    expect(now.get('producer-metrics:produce-throttle-time-max:{client-id=perf-1}')).toBe(300);
    expect(now.get('producer-metrics:record-send-total:{client-id=perf-1}')).toBe(600);
    // A young sensor's rate counts one full 30 s window besides its own age (Rate.windowSize).
    expect(now.get('producer-metrics:record-send-rate:{client-id=perf-1}')).toBeCloseTo(600 / 40, 6);
    // After two windows the samples have expired; the total stays.
    clock.advance(60_000);
    expect(metrics.snapshot().get('producer-metrics:produce-throttle-time-max:{client-id=perf-1}')).toBeNaN();
    expect(metrics.snapshot().get('producer-metrics:record-send-total:{client-id=perf-1}')).toBe(600);
  });

  it("prints as ToolsUtils.printMetrics: a blank line, the header, sorted names padded, values to 3 places", () => {
    const lines = formatMetrics(new Map([['b:x-max:{client-id=c}', NaN], ['a:longer-name-total:{client-id=c}', 2]]));
    expect(lines).toEqual([
      '',
      'Metric Name                         Value',
      'a:longer-name-total:{client-id=c} : 2.000',
      'b:x-max:{client-id=c}             : NaN',
    ]);
    expect(formatMetrics(new Map())).toEqual([]);
  });
});
