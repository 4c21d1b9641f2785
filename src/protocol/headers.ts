import { ByteReader } from './primitives/byte-reader';
import { ByteWriter } from './primitives/byte-writer';
import { ProtocolError } from './protocol-error';

/**
 * Request header v0: ApiKey INT16, ApiVersion INT16, CorrelationId INT32. v1 adds ClientId as a classic
 * NULLABLE_STRING, kept classic even in v2 so any broker can read an ApiVersions header (KIP-511). v2 adds a tagged
 * field section. Which version applies is ApiDefinition.requestHeaderVersion(apiVersion).
 */
export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** The first 8 bytes, readable before the API is known. Throws ProtocolError if the frame is shorter. */
export function readRequestHeaderPrefix(r: ByteReader): Omit<RequestHeader, 'clientId'> {
  if (r.remaining < 8) throw new ProtocolError(`Request of ${r.remaining} bytes is shorter than a request header`);
  return { apiKey: r.int16(), apiVersion: r.int16(), correlationId: r.int32() };
}

/** Reads what follows the prefix for header version 0, 1 or 2. */
export function readRequestHeaderRest(r: ByteReader, headerVersion: number): string | null {
  if (headerVersion === 0) return null;
  const clientId = r.string(true);
  if (headerVersion >= 2) r.skipTaggedFields();
  return clientId;
}

export function writeRequestHeader(w: ByteWriter, header: RequestHeader, headerVersion: number): void {
  w.int16(header.apiKey).int16(header.apiVersion).int32(header.correlationId);
  if (headerVersion >= 1) w.string(header.clientId);
  if (headerVersion >= 2) w.emptyTaggedFields();
}

/** Response header v0: CorrelationId; v1 adds a tagged field section. */
export function writeResponseHeader(w: ByteWriter, correlationId: number, headerVersion: number): void {
  w.int32(correlationId);
  if (headerVersion >= 1) w.emptyTaggedFields();
}

export function readResponseHeader(r: ByteReader, headerVersion: number): number {
  const correlationId = r.int32();
  if (headerVersion >= 1) r.skipTaggedFields();
  return correlationId;
}

/** Kafka 2.x RequestHeader.toString, as the request log prints it. */
export function formatRequestHeader(header: RequestHeader, apiName: string): string {
  return `RequestHeader(apiKey=${apiName}, apiVersion=${header.apiVersion}, clientId=${header.clientId ?? ''}, correlationId=${header.correlationId})`;
}
