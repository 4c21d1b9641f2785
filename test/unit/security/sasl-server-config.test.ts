import { parseJaasFile } from '../../../src/security/jaas-config';
import { interBrokerCredentials, resolveListenerSasl, SaslSettings } from '../../../src/security/sasl-server-config';

const settings = (originals: Record<string, string>, enabled = ['GSSAPI'], reauth = 0): SaslSettings => ({
  originals: new Map(Object.entries(originals)),
  enabledMechanisms: enabled,
  connectionsMaxReauthMs: reauth,
});

const FILE = {
  path: '/etc/kafka/jaas.conf',
  sections: parseJaasFile(`
    KafkaServer { org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret"; };
    sasl_internal.KafkaServer { org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="broker-secret"; };
  `),
};

describe('SASL listener configuration (JaasContext.loadServerContext)', () => {
  it('refuses GSSAPI, the default, with a message saying it is not offered', () => {
    expect(() => resolveListenerSasl(settings({}), 'SASL_PLAINTEXT', FILE)).toThrow(/includes GSSAPI .*kafka-ts does not offer GSSAPI \(Kerberos\)/);
    expect(() => resolveListenerSasl(settings({}, ['FOO']), 'SASL_PLAINTEXT', FILE)).toThrow('includes FOO, which kafka-ts does not offer');
  });

  it("refuses a missing JAAS configuration with Kafka's message", () => {
    expect(() => resolveListenerSasl(settings({}, ['PLAIN']), 'SASL_PLAINTEXT', undefined)).toThrow(
      "Could not find a 'KafkaServer' or 'sasl_plaintext.KafkaServer' entry in the JAAS configuration. System property 'java.security.auth.login.config' is not set",
    );
    expect(() => resolveListenerSasl(settings({}, ['PLAIN']), 'X', { path: '/j.conf', sections: new Map() })).toThrow("System property 'java.security.auth.login.config' is /j.conf");
  });

  it('prefers the listener-prefixed mechanism jaas config, then <listener>.KafkaServer, then KafkaServer', () => {
    const s = settings(
      {
        'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-512',
        'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="b" password="p";',
      },
      ['GSSAPI'],
    );
    const l = resolveListenerSasl(s, 'SASL_PLAINTEXT', FILE);
    expect(l.enabledMechanisms).toEqual(['PLAIN', 'SCRAM-SHA-512']);
    expect(l.jaas.get('SCRAM-SHA-512')?.[0]?.options.get('username')).toBe('b');
    expect(l.jaas.get('PLAIN')?.[0]?.options.get('user_admin')).toBe('admin-secret');
    expect(interBrokerCredentials(l, 'SCRAM-SHA-512')).toEqual({ username: 'b', password: 'p' });
    const internal = resolveListenerSasl(settings({}, ['SCRAM-SHA-256']), 'SASL_INTERNAL', FILE);
    expect(interBrokerCredentials(internal, 'SCRAM-SHA-256')).toEqual({ username: 'broker', password: 'broker-secret' });
    expect(() => interBrokerCredentials(internal, 'PLAIN')).toThrow('sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms');
  });

  it('takes connections.max.reauth.ms, per mechanism when prefixed', () => {
    const l = resolveListenerSasl(settings({ 'listener.name.l.plain.connections.max.reauth.ms': '5000' }, ['PLAIN', 'SCRAM-SHA-256'], 60000), 'L', FILE);
    expect(l.maxReauthMs.get('PLAIN')).toBe(5000);
    expect(l.maxReauthMs.get('SCRAM-SHA-256')).toBe(60000);
  });
});
