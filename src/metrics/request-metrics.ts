import { lazyChild } from './lazy-child';
import { Reservoir } from './reservoir';

/**
 * One request type's RequestMetrics (kafka.network:type=RequestMetrics,request=<name>): request counts by version,
 * error counts by error name and the time histograms. Created once per API on its first request and cached by
 * API key, so a request costs a map lookup, a few additions and one store per histogram.
 */
export class RequestTypeMetrics {
  readonly requestsByVersion: number[] = [];
  readonly errors = new Map<string, number>();
  readonly totalTimeMs = new Reservoir();
  readonly requestQueueTimeMs = new Reservoir();
  readonly localTimeMs = new Reservoir();
  readonly remoteTimeMs = new Reservoir();
  readonly responseQueueTimeMs = new Reservoir();
  readonly responseSendTimeMs = new Reservoir();

  constructor(readonly request: string) {}
}

/** Kafka's request time histograms, each kafka.network:type=RequestMetrics,name=<name>,request=<request>. */
export const REQUEST_TIME_HISTOGRAMS: readonly { readonly name: string; readonly field: keyof RequestTypeMetrics & `${string}Ms`; readonly help: string }[] = [
  { name: 'TotalTimeMs', field: 'totalTimeMs', help: 'Time from the request read to its response written' },
  { name: 'RequestQueueTimeMs', field: 'requestQueueTimeMs', help: 'Time the request waited in the request channel' },
  { name: 'LocalTimeMs', field: 'localTimeMs', help: 'Time the request was being handled' },
  { name: 'RemoteTimeMs', field: 'remoteTimeMs', help: 'Time the request waited in purgatory (acks=all produce, long-poll fetch)' },
  { name: 'ResponseQueueTimeMs', field: 'responseQueueTimeMs', help: 'Time the response waited to be written' },
  { name: 'ResponseSendTimeMs', field: 'responseSendTimeMs', help: 'Time the response took to be taken by the socket' },
];

/** The timestamps of one request, in milliseconds (performance.now()), taken by the network layer. */
export interface RequestTimes {
  readonly receivedMs: number;
  readonly dequeuedMs: number;
  /** When the handler's own work ended; the rest until completedMs is waiting in purgatory. */
  readonly localDoneMs: number;
  readonly completedMs: number;
  readonly sendStartMs: number;
  readonly sentMs: number;
}

export class RequestMetrics {
  private readonly byKey = new Map<number, RequestTypeMetrics>();

  /** The API's metrics; `name` is Kafka's ApiKeys name (Produce, Fetch, ...). */
  forApi(apiKey: number, name: string): RequestTypeMetrics {
    return lazyChild(this.byKey, apiKey, newRequestTypeMetrics, name);
  }

  /** In API key order. */
  all(): RequestTypeMetrics[] {
    return [...this.byKey.entries()].sort(([a], [b]) => a - b).map(([, m]) => m);
  }

  /**
   * One answered request: its version, its response's top-level error (NONE without one; Kafka's errorCounts
   * also count per-partition errors, which would need a walk over the response here), its times.
   */
  record(m: RequestTypeMetrics, version: number, error: string, t: RequestTimes): void {
    m.requestsByVersion[version] = (m.requestsByVersion[version] ?? 0) + 1;
    m.errors.set(error, (m.errors.get(error) ?? 0) + 1);
    m.requestQueueTimeMs.update(t.dequeuedMs - t.receivedMs);
    m.localTimeMs.update(t.localDoneMs - t.dequeuedMs);
    m.remoteTimeMs.update(t.completedMs - t.localDoneMs);
    m.responseQueueTimeMs.update(t.sendStartMs - t.completedMs);
    m.responseSendTimeMs.update(t.sentMs - t.sendStartMs);
    m.totalTimeMs.update(t.sentMs - t.receivedMs);
  }
}

function newRequestTypeMetrics(name: string): RequestTypeMetrics {
  return new RequestTypeMetrics(name);
}
