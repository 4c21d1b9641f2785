/**
 * A request or response whose bytes cannot be decoded: truncated, an impossible length, bad UTF-8, a null where
 * the schema forbids one. Kafka raises InvalidRequestException / SchemaException for these; the network layer
 * answers by closing the connection (there is no way to build a well-formed reply to an unreadable request).
 */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}
