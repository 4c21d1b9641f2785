import { jaasFileFromKafkaOpts, parseJaasConfigProperty, parseJaasFile } from '../../../src/security/jaas-config';
import { ANONYMOUS, parseKafkaPrincipal, principalToString } from '../../../src/security/kafka-principal';
import { generateScramCredential, scramCredentialFromString, scramCredentialToString, scramHmac } from '../../../src/security/scram-credential';

describe('JAAS configuration', () => {
  it('reads a sasl.jaas.config value as Kafka does', () => {
    const m = parseJaasConfigProperty('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="a\\"b" user_alice=alice-secret;');
    expect(m.loginModule).toBe('org.apache.kafka.common.security.plain.PlainLoginModule');
    expect(m.controlFlag).toBe('required');
    expect([...m.options]).toEqual([['username', 'admin'], ['password', 'a"b'], ['user_alice', 'alice-secret']]);
  });

  it("refuses what Kafka's JaasConfig refuses, with its messages", () => {
    expect(() => parseJaasConfigProperty('')).toThrow('JAAS config property does not contain a login module');
    expect(() => parseJaasConfigProperty('a.B required;c.D required;')).toThrow('JAAS config property contains 2 login modules, should be 1 module');
    expect(() => parseJaasConfigProperty('a.B required username="x"')).toThrow('JAAS config entry not terminated by semi-colon');
    expect(() => parseJaasConfigProperty('a.B mandatory;')).toThrow("Invalid login module control flag 'mandatory' in JAAS config");
    expect(() => parseJaasConfigProperty('a.B;')).toThrow('Login module control flag not specified in JAAS config');
    expect(() => parseJaasConfigProperty('a.B required username;')).toThrow("Value not specified for key 'username' in JAAS config");
  });

  it('reads the sections of a JAAS file, comments included', () => {
    const sections = parseJaasFile(`
      // the broker's side
      KafkaServer {
        org.apache.kafka.common.security.plain.PlainLoginModule required
        username="admin" password="admin-secret" /* the broker's own */
        user_admin="admin-secret";
        org.apache.kafka.common.security.scram.ScramLoginModule required;
      };
      Client { org.apache.zookeeper.server.auth.DigestLoginModule required username="kafka" password="kafka-secret"; };
    `);
    expect([...sections.keys()]).toEqual(['KafkaServer', 'Client']);
    expect(sections.get('KafkaServer')?.map((m) => m.loginModule)).toEqual([
      'org.apache.kafka.common.security.plain.PlainLoginModule',
      'org.apache.kafka.common.security.scram.ScramLoginModule',
    ]);
    expect(sections.get('Client')?.[0]?.options.get('password')).toBe('kafka-secret');
    expect(() => parseJaasFile('KafkaServer { a.B required;')).toThrow("section KafkaServer not closed by '}'");
  });

  it('finds the file in KAFKA_OPTS as the scripts pass it', () => {
    expect(jaasFileFromKafkaOpts('-Xmx1G -Djava.security.auth.login.config=/etc/kafka/jaas.conf -Dfoo=1')).toBe('/etc/kafka/jaas.conf');
    expect(jaasFileFromKafkaOpts('-Djava.security.auth.login.config="/a b/jaas.conf"')).toBe('/a b/jaas.conf');
    expect(jaasFileFromKafkaOpts('-Xmx1G')).toBeUndefined();
    expect(jaasFileFromKafkaOpts(undefined)).toBeUndefined();
  });
});

describe('KafkaPrincipal', () => {
  it('prints and parses the type:name form', () => {
    expect(principalToString(ANONYMOUS)).toBe('User:ANONYMOUS');
    expect(parseKafkaPrincipal('User:CN=a:b,OU=c')).toEqual({ principalType: 'User', name: 'CN=a:b,OU=c' });
    expect(() => parseKafkaPrincipal('alice')).toThrow('expected a string in format principalType:principalName but got alice');
  });
});

describe('SCRAM credentials', () => {
  it("round-trips Kafka's stored form and matches RFC 7677's SCRAM-SHA-256 example", () => {
    // RFC 7677 section 3: user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations.
    const c = generateScramCredential('SCRAM-SHA-256', 'pencil', 4096, Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'));
    const serverSignature = scramHmac('SCRAM-SHA-256', c.serverKey, 'n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
    expect(serverSignature.toString('base64')).toBe('6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    const text = scramCredentialToString(c);
    expect(text).toMatch(/^salt=W22ZaJ0SNY7soEsUEjb6gQ==,stored_key=[^,]+,server_key=[^,]+,iterations=4096$/);
    expect(scramCredentialFromString(text)).toEqual(c);
    expect(() => scramCredentialFromString('salt=abc,iterations=1')).toThrow('Credentials not valid');
  });
});
