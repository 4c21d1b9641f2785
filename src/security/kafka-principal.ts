/**
 * Who a connection is (Kafka's KafkaPrincipal): `User:alice` after SASL, `User:CN=host,OU=...` from a client
 * certificate, `User:ANONYMOUS` on PLAINTEXT and one-way TLS. ACLs, quotas and super.users name principals in
 * this `type:name` form.
 */
export interface KafkaPrincipal {
  readonly principalType: string;
  readonly name: string;
  /** Set for a principal that authenticated with a delegation token (KIP-48). */
  readonly tokenAuthenticated?: boolean;
}

export const USER_TYPE = 'User';

export const ANONYMOUS: KafkaPrincipal = Object.freeze({ principalType: USER_TYPE, name: 'ANONYMOUS' });

export function principalToString(p: KafkaPrincipal): string {
  return `${p.principalType}:${p.name}`;
}

/** Parses `Type:name` as Kafka's SecurityUtils.parseKafkaPrincipal (the name may itself hold colons). */
export function parseKafkaPrincipal(text: string): KafkaPrincipal {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new Error(`expected a string in format principalType:principalName but got ${text}`);
  return { principalType: text.slice(0, colon), name: text.slice(colon + 1) };
}

export function principalEquals(a: KafkaPrincipal, b: KafkaPrincipal): boolean {
  return a.principalType === b.principalType && a.name === b.name;
}
