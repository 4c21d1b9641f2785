/**
 * A certificate subject as Java's X500Principal.getName() prints it (RFC 2253: most specific first,
 * `CN=client,OU=Eng,O=Acme,C=US`), from the OpenSSL form Node's X509Certificate.subject gives: one
 * `attribute=value` line per RDN in certificate order, values already escaped the RFC 2253 way. Multi-valued
 * RDNs (` + ` in OpenSSL's lines) are joined with `+` as Java does.
 */
export function rfc2253Name(opensslSubject: string): string {
  return opensslSubject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .map((rdn) => rdn.split(' + ').join('+'))
    .join(',');
}
