import { ErrorCode } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { getLogger } from '../common/logging/logging';
import { ApiDefinition } from '../protocol/api-definition';
import { ApiKey } from '../protocol/api-keys';
import { tpKey } from '../common/topic-partition';
import { apiByKey } from '../protocol/apis';
import { ApiVersionsApi } from '../protocol/apis/api-versions';
import { SaslHandshakeApi } from '../protocol/apis/sasl-handshake';
import { RequestHeader, readRequestHeaderPrefix, readRequestHeaderRest, writeResponseHeader } from '../protocol/headers';
import { ByteReader, requestObjectBudget } from '../protocol/primitives/byte-reader';
import { ByteWriter } from '../protocol/primitives/byte-writer';
import { ProtocolError } from '../protocol/protocol-error';
import { describeMessage } from '../protocol/schema/describe';
import { advertisedApiVersions, createApiVersionsHandler } from './handlers/api-versions';
import { ApiHandler, ApiHandlers, CLOSE_CONNECTION, ConnectionContext, NO_RESPONSE, RequestContext } from './network/api-handler';
import { nowMs, requestLogger } from './network/request-logger';
import { requestMetricName } from '../metrics/jmx-name';
import type { RequestMetrics, RequestTypeMetrics } from '../metrics/request-metrics';
import { errorName } from '../common/error-codes';

/** What the network layer does with one request once its handler has answered. */
export type DispatchOutcome =
  | { kind: 'send'; chunks: Buffer[]; log?: RequestLogEntry; throttleMs?: number; closeAfter?: string; timing?: RequestTiming; errorCode?: number }
  | { kind: 'none'; log?: RequestLogEntry; throttleMs?: number; timing?: RequestTiming; errorCode?: number }
  | { kind: 'close'; reason: string };

/** Set only with request metrics on: what the dispatcher measured; the connection adds the send times. */
export interface RequestTiming {
  readonly metrics: RequestTypeMetrics;
  readonly version: number;
  readonly dequeuedMs: number;
  readonly localDoneMs: number;
  completedMs: number;
}

/** Collected only while kafka.request.logger is at DEBUG. */
export interface RequestLogEntry {
  header: RequestHeader;
  apiName: string;
  requestDesc: string;
  responseDesc?: string;
  dequeueMs: number;
  completeMs: number;
}

type AnyHandler = ApiHandler<unknown, unknown>;

/**
 * Header -> registry lookup -> version check -> decode -> handler -> encode (Kafka's SocketServer request parsing
 * plus KafkaApis.handle). Rules, as Kafka 2.x applies them:
 *  - unknown API key (or an API this broker has no handler for): close the connection, log why;
 *  - unsupported version: ApiVersions gets UNSUPPORTED_VERSION in the v0 body shape with its own supported range
 *    (KIP-511), so clients can fall back; any other API is closed (its body cannot be parsed);
 *  - a body that does not decode: close the connection (Kafka's InvalidRequestException path);
 *  - a handler that throws or rejects: the API's error response (KafkaApis.handleError) with the KafkaError's
 *    code or UNKNOWN_SERVER_ERROR, or a close where the API has no error shape. Never an escaped exception.
 */
export class RequestDispatcher {
  private readonly handlers = new Map<number, AnyHandler>();
  private readonly apisLogger = getLogger('kafka.server.KafkaApis');

  constructor(
    handlers: ApiHandlers,
    /** Kafka's RequestMetrics, when kafka.metrics.port is set. */
    readonly requestMetrics?: RequestMetrics,
  ) {
    for (const [key, handler] of Object.entries(handlers)) {
      if (handler !== undefined) this.handlers.set(Number(key), handler as AnyHandler);
    }
    this.saslInstalled = this.handlers.has(SaslHandshakeApi.key);
    if (!this.saslInstalled) {
      // KafkaApis.handleSaslHandshakeRequest on a PLAINTEXT listener: ILLEGAL_SASL_STATE, no mechanisms. Not
      // advertised by a broker without SASL listeners; kafka-python sends it unconditionally when configured for
      // SASL, and then gives up cleanly.
      this.handlers.set(SaslHandshakeApi.key, () => ({ errorCode: ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms: [] }));
    }
    if (!this.handlers.has(ApiVersionsApi.key)) {
      this.handlers.set(ApiVersionsApi.key, createApiVersionsHandler(this.advertised()) as AnyHandler);
    }
  }

  private readonly saslInstalled: boolean;

  /** The ApiVersions table this dispatcher advertises. */
  advertised(): ReturnType<typeof advertisedApiVersions> {
    return advertisedApiVersions((k) => this.handlers.has(k) && (k !== SaslHandshakeApi.key || this.saslInstalled));
  }

  handle(frame: Buffer, connection: ConnectionContext): DispatchOutcome | Promise<DispatchOutcome> {
    const metrics = this.requestMetrics;
    if (metrics === undefined || frame.length < 4) return this.dispatch(frame, connection);
    // LocalTimeMs is the handler's synchronous part (decode included); what it awaits after that (log writes,
    // replication for acks=all, a long-poll fetch) counts as RemoteTimeMs.
    const dequeuedMs = performance.now();
    const result = this.dispatch(frame, connection);
    const localDoneMs = performance.now();
    const apiKey = frame.readInt16BE(0);
    const api = apiByKey(apiKey);
    if (api === undefined) return result;
    const timing: RequestTiming = { metrics: metrics.forApi(apiKey, requestMetricName(api.name)), version: frame.readInt16BE(2), dequeuedMs, localDoneMs, completedMs: localDoneMs };
    const stamp = (outcome: DispatchOutcome): DispatchOutcome => {
      if (outcome.kind === 'close') return outcome;
      timing.completedMs = performance.now();
      outcome.timing = timing;
      return outcome;
    };
    return result instanceof Promise ? result.then(stamp) : stamp(result);
  }

  /** The response's top-level error, for RequestMetrics' ErrorsPerSec (NONE when the body has none). */
  static errorOf(outcome: DispatchOutcome): string {
    return outcome.kind === 'close' ? 'NONE' : errorName(outcome.errorCode ?? 0);
  }

  private dispatch(frame: Buffer, connection: ConnectionContext): DispatchOutcome | Promise<DispatchOutcome> {
    const r = new ByteReader(frame);
    let header: RequestHeader;
    let api: ApiDefinition | undefined;
    try {
      const prefix = readRequestHeaderPrefix(r);
      api = apiByKey(prefix.apiKey);
      if (api === undefined || !this.handlers.has(api.key)) {
        return { kind: 'close', reason: `Unknown API key ${prefix.apiKey}` };
      }
      if (!api.isSupported(prefix.apiVersion)) {
        if (api.key === ApiVersionsApi.key) return this.unsupportedApiVersions(prefix.correlationId);
        return { kind: 'close', reason: `Unsupported version ${prefix.apiVersion} of API ${api.name} (supported: ${api.minVersion}-${api.maxVersion})` };
      }
      header = { ...prefix, clientId: readRequestHeaderRest(r, api.requestHeaderVersion(prefix.apiVersion)) };
    } catch (e) {
      return { kind: 'close', reason: `Invalid request header: ${(e as Error).message}` };
    }
    let body: unknown;
    try {
      r.limitObjects(requestObjectBudget(frame.length));
      body = api.decodeRequest(header.apiVersion, r);
    } catch (e) {
      const why = e instanceof ProtocolError ? e.message : String(e);
      return { kind: 'close', reason: `Error getting request for apiKey: ${api.name}, apiVersion: ${header.apiVersion}, correlationId: ${header.correlationId}: ${why}` };
    }
    const context: RequestContext = { header, connection, requestSize: frame.length, throttleTimeMs: 0 };
    const logging = requestLogger.isDebugEnabled();
    const dequeueMs = logging ? nowMs() : 0;
    const handler = this.handlers.get(api.key) as AnyHandler;
    let result: unknown;
    try {
      result = handler(body, context);
    } catch (e) {
      return this.failed(api, header, body, e, logging, dequeueMs);
    }
    if (result instanceof Promise) {
      const a = api;
      return result.then(
        (res) => this.finish(a, header, body, res, logging, dequeueMs, context.throttleTimeMs),
        (e) => this.failed(a, header, body, e, logging, dequeueMs),
      );
    }
    return this.finish(api, header, body, result, logging, dequeueMs, context.throttleTimeMs);
  }

  private finish(api: ApiDefinition, header: RequestHeader, body: unknown, result: unknown, logging: boolean, dequeueMs: number, throttleMs: number): DispatchOutcome {
    if (result === CLOSE_CONNECTION) return { kind: 'close', reason: `${api.name} handler asked to close the connection` };
    const log = logging ? this.logEntry(api, header, body, result, dequeueMs) : undefined;
    if (result === NO_RESPONSE) return { kind: 'none', log, throttleMs };
    try {
      const errorCode = this.requestMetrics === undefined ? undefined : (result as { errorCode?: unknown } | null)?.errorCode;
      return { kind: 'send', chunks: encodeResponse(api, header.apiVersion, header.correlationId, result), log, throttleMs, ...(typeof errorCode === 'number' ? { errorCode } : {}) };
    } catch (e) {
      return this.failed(api, header, body, e, logging, dequeueMs);
    }
  }

  private failed(api: ApiDefinition, header: RequestHeader, body: unknown, error: unknown, logging: boolean, dequeueMs: number): DispatchOutcome {
    this.apisLogger.error(
      `Error when handling request: clientId=${header.clientId ?? ''}, correlationId=${header.correlationId}, api=${api.name}, version=${header.apiVersion}, body=${describeMessage(api.spec.request, header.apiVersion, body, 500)}`,
      error,
    );
    const code = error instanceof KafkaError ? error.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
    // acks=0: the client expects no response, so a failure can only be signalled by closing (KafkaApis
    // closeConnection for produce requests with acks=0).
    if (api.key === ApiKey.PRODUCE && (body as { acks?: number } | undefined)?.acks === 0) {
      return { kind: 'close', reason: `Produce with acks=0 failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    try {
      const response = api.errorResponse(body, header.apiVersion, code);
      if (response === null) return { kind: 'close', reason: `${api.name} handler failed and the API has no error response` };
      const log = logging ? this.logEntry(api, header, body, response, dequeueMs) : undefined;
      return { kind: 'send', chunks: encodeResponse(api, header.apiVersion, header.correlationId, response), log, errorCode: code };
    } catch (e) {
      return { kind: 'close', reason: `Could not build an error response for ${api.name}: ${String(e)}` };
    }
  }

  /** KIP-511: a v0-shaped body listing only ApiVersions' own range, under response header v0. */
  private unsupportedApiVersions(correlationId: number): DispatchOutcome {
    const body = {
      errorCode: ErrorCode.UNSUPPORTED_VERSION.code,
      apiKeys: [{ apiKey: ApiVersionsApi.key, minVersion: ApiVersionsApi.minVersion, maxVersion: ApiVersionsApi.maxVersion }],
      throttleTimeMs: 0,
    };
    return { kind: 'send', chunks: encodeResponse(ApiVersionsApi as ApiDefinition, 0, correlationId, body) };
  }

  private logEntry(api: ApiDefinition, header: RequestHeader, body: unknown, response: unknown, dequeueMs: number): RequestLogEntry {
    return {
      header,
      apiName: api.name,
      requestDesc: describeRequest(api, header.apiVersion, body),
      responseDesc: requestLogger.isTraceEnabled() && response !== NO_RESPONSE ? describeMessage(api.spec.response, header.apiVersion, response) : undefined,
      dequeueMs,
      completeMs: nowMs(),
    };
  }
}

/** Size prefix + response header + body, as chunks ready for socket.writev. */
export function encodeResponse(api: ApiDefinition, version: number, correlationId: number, body: unknown): Buffer[] {
  const w = new ByteWriter(512);
  w.int32(0);
  writeResponseHeader(w, correlationId, api.responseHeaderVersion(version));
  api.encodeResponse(version, w, body);
  w.patchInt32(0, w.length - 4);
  return w.toChunks();
}

/** Kafka prints Produce requests without their records: `{acks=-1,timeout=30000,partitionSizes=[t-0=70]}`. */
function describeRequest(api: ApiDefinition, version: number, body: unknown): string {
  if (api.key !== ApiKey.PRODUCE) return describeMessage(api.spec.request, version, body);
  const b = body as { acks: number; timeoutMs: number; topicData: { name: string; partitionData: { index: number; records: Buffer | null }[] }[] };
  const sizes = b.topicData.flatMap((t) => t.partitionData.map((p) => `${tpKey(t.name, p.index)}=${p.records?.length ?? 0}`));
  return `{acks=${b.acks},timeout=${b.timeoutMs},partitionSizes=[${sizes.join(',')}]}`;
}
