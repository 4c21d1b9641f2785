import { getLogger } from '../../common/logging/logging';
import { RequestHeader, formatRequestHeader } from '../../protocol/headers';

/**
 * Kafka's request logger (`kafka.request.logger`, routed to kafka-request.log): at DEBUG one
 * `Completed request:` line per request with the timing breakdown RequestChannel.updateRequestMetrics prints; at
 * TRACE the response body too. Callers check `isDebugEnabled()` before collecting anything (hot path).
 */
export const requestLogger = getLogger('kafka.request.logger');

export interface RequestTimings {
  /** Frame fully received. */
  startMs: number;
  /** Handler called. */
  dequeueMs: number;
  /** Handler answered. */
  completeMs: number;
  /** Response handed to the socket (after any earlier responses on the connection). */
  sendStartMs: number;
  /** Socket accepted the last byte. */
  endMs: number;
}

export interface CompletedRequest {
  header: RequestHeader;
  apiName: string;
  requestDesc: string;
  responseDesc?: string;
  connectionId: string;
  securityProtocol: string;
  listenerName: string;
  /** `User:alice`: the connection's principal in Kafka's printed form. */
  principal: string;
  clientSoftwareName: string;
  clientSoftwareVersion: string;
  timings: RequestTimings;
}

function ms(n: number): string {
  return n.toFixed(3);
}

export function logCompletedRequest(r: CompletedRequest): void {
  const t = r.timings;
  const response = r.responseDesc !== undefined ? `,response:${r.responseDesc}` : '';
  requestLogger.debug(
    `Completed request:${formatRequestHeader(r.header, r.apiName)} -- ${r.requestDesc}${response} from connection ${r.connectionId};` +
      `totalTime:${ms(t.endMs - t.startMs)},requestQueueTime:${ms(t.dequeueMs - t.startMs)},localTime:${ms(t.completeMs - t.dequeueMs)},` +
      `remoteTime:0.000,throttleTime:0,responseQueueTime:${ms(t.sendStartMs - t.completeMs)},sendTime:${ms(t.endMs - t.sendStartMs)},` +
      `securityProtocol:${r.securityProtocol},principal:${r.principal},listener:${r.listenerName},` +
      `clientInformation:ClientInformation(softwareName=${r.clientSoftwareName}, softwareVersion=${r.clientSoftwareVersion})`,
  );
}

/** Monotonic milliseconds with sub-ms precision for the timing fields. */
export function nowMs(): number {
  return performance.now();
}
