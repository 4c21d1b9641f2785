import { createSecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { SslPrincipalMapper } from '../../../src/security/ssl-principal-mapper';
import { rfc2253Name } from '../../../src/security/distinguished-name';
import { loadClientTls, loadServerTls, secureContextError, sslSettings } from '../../../src/security/ssl-factory';
import { clientSecurityFrom } from '../../../src/security/client-security';
import { generateTestCertificates, STORE_PASSWORD, TestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';

const lookup = (o: Record<string, string>) => (key: string): string | undefined => o[key];

describe('SslPrincipalMapper (ssl.principal.mapping.rules)', () => {
  const dn = 'CN=client,OU=Eng,O=Acme,C=US';

  it('DEFAULT keeps the distinguished name', () => {
    expect(SslPrincipalMapper.fromRules('DEFAULT').getName(dn)).toBe(dn);
    expect(SslPrincipalMapper.fromRules(null).getName(dn)).toBe(dn);
  });

  it('applies the first matching rule, with $n references and L / U', () => {
    const rules = 'RULE:^CN=(.*?),OU=Ops.*$/ops-$1/, RULE:^CN=(.*?),OU=(.*?),O=.*$/$1@$2/L,\nDEFAULT';
    const m = SslPrincipalMapper.fromRules(rules);
    expect(m.getName(dn)).toBe('client@eng');
    expect(m.getName('CN=x,OU=Ops,O=Acme')).toBe('ops-x');
    expect(m.getName('CN=other')).toBe('CN=other');
    expect(SslPrincipalMapper.fromRules('RULE:^CN=([^,]*).*$/$1/U').getName(dn)).toBe('CLIENT');
  });

  it('reads escaped slashes and fails when no rule applies', () => {
    const m = SslPrincipalMapper.fromRules('RULE:^CN=(.*)\\/x$/$1/');
    expect(m.getName('CN=a/x')).toBe('a');
    expect(() => m.getName('CN=b')).toThrow(/^No rules apply to CN=b, rules \[RULE:/);
  });

  it('refuses a malformed rule, naming it', () => {
    expect(() => SslPrincipalMapper.fromRules('RULE:^CN=(.*)$/$1/X')).toThrow(/Invalid rule/);
    expect(() => SslPrincipalMapper.fromRules('NOT A RULE')).toThrow('Invalid rule: NOT A RULE');
  });
});

describe('certificates, stores and settings', () => {
  let certs: TestCertificates;
  beforeAll(() => {
    certs = generateTestCertificates(tmpDir('kafka-ts-ssl-'));
  }, 60_000);

  it('prints a certificate subject in RFC 2253 order, as Java does', () => {
    expect(rfc2253Name(new X509Certificate(certs.client.cert).subject)).toBe('CN=client,OU=Eng,O=Acme,C=US');
    expect(rfc2253Name('C=US\nO=A\\, Inc\nCN=x + UID=7')).toBe('CN=x+UID=7,O=A\\, Inc,C=US');
  });

  it('loads a JKS keystore and truststore (jks-js) into a working context', () => {
    const tls = loadServerTls(sslSettings(lookup({
      'ssl.keystore.location': certs.broker.jks, 'ssl.keystore.password': STORE_PASSWORD,
      'ssl.truststore.location': certs.truststoreJks, 'ssl.truststore.password': STORE_PASSWORD, 'ssl.client.auth': 'required',
    })));
    expect(tls.clientAuth).toBe('required');
    expect(tls.context.key).toMatch(/BEGIN PRIVATE KEY/);
    expect(tls.context.ca).toHaveLength(1);
    expect(() => createSecureContext(tls.context)).not.toThrow();
  });

  it('loads PKCS12 through Node (pfx), a keytool PKCS12 truststore, and PEM files', () => {
    const p12 = loadServerTls(sslSettings(lookup({ 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': certs.broker.p12, 'ssl.keystore.password': STORE_PASSWORD, 'ssl.truststore.type': 'PKCS12', 'ssl.truststore.location': certs.truststoreP12, 'ssl.truststore.password': STORE_PASSWORD })));
    expect(p12.context.pfx).toBeInstanceOf(Buffer);
    expect(p12.context.ca).toHaveLength(1);
    expect(() => createSecureContext(p12.context)).not.toThrow();
    const pem = loadServerTls(sslSettings(lookup({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': certs.broker.pemFile, 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': certs.caPem })));
    expect(() => createSecureContext(pem.context)).not.toThrow();
  });

  it('takes inline PEM (KIP-651), an encrypted key with ssl.key.password', () => {
    const tls = loadServerTls(sslSettings(lookup({
      'ssl.keystore.type': 'PEM', 'ssl.keystore.key': certs.broker.encryptedKey, 'ssl.keystore.certificate.chain': certs.broker.cert, 'ssl.key.password': STORE_PASSWORD,
      'ssl.truststore.type': 'PEM', 'ssl.truststore.certificates': certs.client.cert,
    })));
    expect(() => createSecureContext(tls.context)).not.toThrow();
  });

  it('refuses bad passwords with one line naming the key and never the password', () => {
    const wrong = 'not-the-password';
    const messages = [
      () => loadServerTls(sslSettings(lookup({ 'ssl.keystore.location': certs.broker.jks, 'ssl.keystore.password': wrong }))),
      () => loadClientTls(sslSettings(lookup({ 'ssl.truststore.location': certs.truststoreJks, 'ssl.truststore.password': wrong }))),
      () => loadServerTls(sslSettings(lookup({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.key': certs.broker.encryptedKey, 'ssl.keystore.certificate.chain': certs.broker.cert, 'ssl.key.password': wrong }))),
      () => loadServerTls(sslSettings(lookup({ 'ssl.keystore.location': '/no/such/file.jks', 'ssl.keystore.password': wrong }))),
    ].map((f) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    });
    expect(messages[0]).toBe(`Failed to load SSL keystore ${certs.broker.jks} of type JKS (ssl.keystore.location): Keystore was tampered with, or password was incorrect`);
    expect(messages[1]).toBe(`Failed to load SSL keystore ${certs.truststoreJks} of type JKS (ssl.truststore.location): Keystore was tampered with, or password was incorrect`);
    expect(messages[2]).toBe('Invalid PEM keystore configs (ssl.keystore.key): the private key cannot be read with ssl.key.password');
    expect(messages[3]).toBe('Failed to load SSL keystore /no/such/file.jks of type JKS (ssl.keystore.location): ENOENT');
    for (const m of messages) expect(m).not.toContain(wrong);
    const p12 = loadServerTls(sslSettings(lookup({ 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': certs.broker.p12, 'ssl.keystore.password': wrong })));
    let err: unknown;
    try {
      createSecureContext(p12.context);
    } catch (e) {
      err = secureContextError(e, 'listener SSL', p12.context);
    }
    expect((err as Error).message).toBe('Failed to load SSL keystore of type PKCS12 for listener SSL (ssl.keystore.location, ssl.keystore.password): Keystore was tampered with, or password was incorrect');
  });

  it("checks values and combinations with Kafka's messages", () => {
    expect(() => sslSettings(lookup({ 'ssl.client.auth': 'always' }))).toThrow('Invalid value always for configuration ssl.client.auth: String must be one of: required, requested, none');
    expect(() => sslSettings(lookup({ 'ssl.enabled.protocols': 'SSLv3' }))).toThrow(/ssl.enabled.protocols: Unsupported protocol SSLv3/);
    expect(() => sslSettings(lookup({ 'ssl.protocol': 'SSLv2' }))).toThrow('Invalid value SSLv2 for configuration ssl.protocol: SSLv2 SSLContext not available');
    expect(() => sslSettings(lookup({ 'ssl.cipher.suites': 'TLS_FOO_WITH_BAR' }))).toThrow(/ssl.cipher.suites: Unsupported cipher suite TLS_FOO_WITH_BAR/);
    expect(sslSettings(lookup({ 'ssl.cipher.suites': 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256' })).ciphers).toBe('ECDHE-RSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256');
    expect(sslSettings(lookup({ 'ssl.enabled.protocols': 'TLSv1.2' }))).toMatchObject({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
    expect(sslSettings(lookup({ 'ssl.endpoint.identification.algorithm': '' })).verifyHostname).toBe(false);
    expect(sslSettings(lookup({})).verifyHostname).toBe(true);
    expect(() => sslSettings(lookup({ 'ssl.keystore.key': 'k', 'ssl.keystore.certificate.chain': 'c' }))).toThrow('SSL private key can be specified only for PEM, but key store type is JKS.');
    expect(() => sslSettings(lookup({ 'ssl.keystore.location': '/x.jks' }))).toThrow('SSL key store is specified, but key store password is not specified.');
    expect(() => sslSettings(lookup({ 'ssl.truststore.certificates': 'c' }))).toThrow('SSL trust store certs can be specified only for PEM, but trust store type is JKS.');
    expect(() => sslSettings(lookup({ 'ssl.principal.mapping.rules': 'RULE:x' }))).toThrow(/ssl.principal.mapping.rules: Invalid rule/);
    expect(() => loadServerTls(sslSettings(lookup({})))).toThrow(/SSL key store is not specified/);
  });

  it("builds a client's security from Kafka's client keys", () => {
    expect(clientSecurityFrom(lookup({})).securityProtocol).toBe('PLAINTEXT');
    const ssl = clientSecurityFrom(lookup({ 'security.protocol': 'ssl', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': certs.caPem }));
    expect(ssl.securityProtocol).toBe('SSL');
    expect(ssl.tls?.context.ca).toHaveLength(1);
    expect(() => clientSecurityFrom(lookup({ 'security.protocol': 'TLS' }))).toThrow('Invalid value TLS for configuration security.protocol: String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL');
  });
});
