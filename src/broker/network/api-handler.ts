import { RequestOf, ResponseOf } from '../../protocol/api-definition';
import { ApiKeyOf, Apis } from '../../protocol/apis';
import { RequestHeader } from '../../protocol/headers';
import { KafkaPrincipal } from '../../security/kafka-principal';

/** A handler's answer meaning "send nothing": Produce with acks=0 (clients do not wait for a response). */
export const NO_RESPONSE: unique symbol = Symbol('NO_RESPONSE');
/**
 * A handler's answer meaning "close this connection without answering": Kafka's reply to a failed acks=0 produce,
 * so the client notices and refreshes its metadata.
 */
export const CLOSE_CONNECTION: unique symbol = Symbol('CLOSE_CONNECTION');

export type HandlerOutcome<Res> = Res | typeof NO_RESPONSE | typeof CLOSE_CONNECTION;

/** What a handler may know about the connection a request came from (Kafka's RequestContext). */
export interface ConnectionContext {
  /** Kafka's connection id: `localHost:localPort-remoteHost:remotePort-index`. */
  readonly connectionId: string;
  readonly listenerName: string;
  readonly securityProtocol: string;
  readonly clientAddress: string;
  readonly clientPort: number;
  /** From ApiVersions v3 (KIP-511); "unknown" until a client sends it. */
  clientSoftwareName: string;
  clientSoftwareVersion: string;
  /** Who the client is: `User:ANONYMOUS` until TLS or SASL says otherwise (Kafka's RequestContext.principal). */
  principal: KafkaPrincipal;
}

export interface RequestContext {
  readonly header: RequestHeader;
  readonly connection: ConnectionContext;
  /** Size of the request frame in bytes (without the size prefix). */
  readonly requestSize: number;
  /**
   * Set by a handler whose client went over its quota: the connection stays muted this long after the response
   * (KIP-219), also when there is no response (acks=0).
   */
  throttleTimeMs: number;
}

/**
 * A request handler for one API. It may answer synchronously or with a promise (long polls, purgatory); the
 * network layer releases responses strictly in request order per connection whichever way they complete.
 * Throwing a KafkaError answers with that code in the API's error shape; any other exception answers
 * UNKNOWN_SERVER_ERROR (or closes the connection where the API has no error shape).
 */
export type ApiHandler<Req, Res> = (request: Req, context: RequestContext) => HandlerOutcome<Res> | Promise<HandlerOutcome<Res>>;

/** The broker's handlers keyed by API key; an API without a handler is neither advertised nor served. */
export type ApiHandlers = { [K in ApiKeyOf]?: ApiHandler<RequestOf<Apis[K]>, ResponseOf<Apis[K]>> };
