/**
 * One side of a SASL exchange on the broker (javax.security.sasl.SaslServer as Kafka's mechanisms implement it).
 * `evaluate` takes the client's token and returns the next challenge; it throws SaslAuthenticationError when the
 * client may be told why (Kafka's SaslAuthenticationException: its message goes into the response), and
 * SaslCredentialError when it may not (Kafka's SaslException: the client only learns that its credentials were
 * invalid, so that it cannot probe which users exist).
 */
export interface SaslServer {
  readonly mechanism: string;
  evaluate(token: Buffer): Buffer;
  readonly complete: boolean;
  /** The authenticated user name (the principal's name), once complete. */
  authorizationId(): string;
  /** SCRAM with the `tokenauth=true` extension (KIP-48). */
  readonly tokenAuthenticated: boolean;
  /** When the credential itself expires (a token, an OAuth bearer token), in epoch ms; bounds the session (KIP-368). */
  readonly credentialExpiryMs: number | undefined;
}

/** Kafka's SaslAuthenticationException: the message is sent to the client. */
export class SaslAuthenticationError extends Error {
  override readonly name = 'SaslAuthenticationException';
}

/** Kafka's SaslException from a mechanism: logged, never sent (the client gets a generic message). */
export class SaslCredentialError extends Error {
  override readonly name = 'SaslException';
}

/** Creates a server for one mechanism of one listener, per connection. */
export type SaslServerFactory = (mechanism: string) => SaslServer;
