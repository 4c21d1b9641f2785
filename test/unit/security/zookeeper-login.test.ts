import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brokerZkSecurity, isZkSaslEnabled, toolZkSecurity, zkClientCredentials, zkSecuritySysConfigString } from '../../../src/security/zookeeper-login';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-login-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function jaas(text: string): string {
  const file = path.join(dir, `jaas-${Math.random().toString(36).slice(2)}.conf`);
  fs.writeFileSync(file, text);
  return file;
}

const CLIENT = 'Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n  username="kafka"\n  password="kafka-secret";\n};\n';
const env = (opts: string): NodeJS.ProcessEnv => ({ KAFKA_OPTS: opts });

describe("the ZooKeeper login (Kafka's JaasUtils and KafkaServer.initZkClient)", () => {
  it("takes the Client section's username and password", () => {
    const e = env(`-Xmx1g -Djava.security.auth.login.config=${jaas(`KafkaServer { a.B required; };\n${CLIENT}`)}`);
    expect(isZkSaslEnabled(e)).toBe(true);
    expect(zkClientCredentials(e)).toEqual({ username: 'kafka', password: 'kafka-secret' });
    expect(brokerZkSecurity(true, e)).toEqual({ auth: { username: 'kafka', password: 'kafka-secret' }, secureAcls: true });
    // Logged in without zookeeper.set.acl: Kafka's client authenticates whenever the section exists.
    expect(brokerZkSecurity(false, e)).toEqual({ auth: { username: 'kafka', password: 'kafka-secret' }, secureAcls: false });
    expect(toolZkSecurity(e).secureAcls).toBe(true);
  });

  it('reads the section zookeeper.sasl.clientconfig names', () => {
    const file = jaas(CLIENT.replace('Client', 'ZkClient'));
    expect(isZkSaslEnabled(env(`-Djava.security.auth.login.config=${file}`))).toBe(false);
    expect(zkClientCredentials(env(`-Djava.security.auth.login.config=${file} -Dzookeeper.sasl.clientconfig=ZkClient`))?.username).toBe('kafka');
  });

  it("refuses zookeeper.set.acl without a login with Kafka's message", () => {
    expect(() => brokerZkSecurity(true, {})).toThrow(
      'zookeeper.set.acl is true, but ZooKeeper client TLS configuration identifying at least zookeeper.ssl.client.enable, zookeeper.clientCnxnSocket, and zookeeper.ssl.keystore.location was not present and the verification of the JAAS login file failed [java.security.auth.login.config=null, zookeeper.sasl.client=default:true, zookeeper.sasl.clientconfig=default:Client]',
    );
    const noClient = jaas('KafkaServer { a.B required; };');
    expect(() => brokerZkSecurity(true, env(`-Djava.security.auth.login.config=${noClient}`))).toThrow(`the verification of the JAAS login file failed [java.security.auth.login.config=${noClient}, `);
    expect(brokerZkSecurity(false, {})).toEqual({ secureAcls: false });
    expect(toolZkSecurity({})).toEqual({ secureAcls: false });
  });

  it('refuses a section with zookeeper.sasl.client=false, and one without a username and password', () => {
    const file = jaas(CLIENT);
    expect(() => isZkSaslEnabled(env(`-Djava.security.auth.login.config=${file} -Dzookeeper.sasl.client=false`))).toThrow(
      `Exception while determining if ZooKeeper is secure [java.security.auth.login.config=${file}, zookeeper.sasl.client=false, zookeeper.sasl.clientconfig=default:Client]`,
    );
    const krb = jaas('Client { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true principal="kafka@EXAMPLE.COM"; };');
    expect(() => zkClientCredentials(env(`-Djava.security.auth.login.config=${krb}`))).toThrow(/^The JAAS section Client \(com\.sun\.security\.auth\.module\.Krb5LoginModule\) has no username and password/);
  });

  it('leaves -Dzookeeper.client.secure=true to the TLS settings (src/security/zookeeper-tls.ts): no login decision depends on it', () => {
    expect(brokerZkSecurity(false, env('-Dzookeeper.client.secure=true'))).toEqual({ secureAcls: false });
    expect(toolZkSecurity(env('-Dzookeeper.client.secure=true'))).toEqual({ secureAcls: false });
  });

  it('takes TLS client authentication instead of a login for zookeeper.set.acl (KafkaConfig.zkTlsClientAuthEnabled)', () => {
    expect(brokerZkSecurity(true, {}, true)).toEqual({ secureAcls: true });
    expect(() => brokerZkSecurity(true, {}, false)).toThrow(/^zookeeper\.set\.acl is true, but ZooKeeper client TLS configuration/);
    // kafka-configs: `JaasUtils.isZkSaslEnabled || KafkaConfig.zkTlsClientAuthEnabled(zkClientConfig)`.
    expect(toolZkSecurity({}, true)).toEqual({ secureAcls: true });
    expect(toolZkSecurity({}, false)).toEqual({ secureAcls: false });
  });

  it('names an unreadable JAAS file, and never prints the password', () => {
    expect(() => isZkSaslEnabled(env('-Djava.security.auth.login.config=/no/such/file'))).toThrow(/^Exception while loading Zookeeper JAAS login context \[java\.security\.auth\.login\.config=\/no\/such\/file/);
    expect(zkSecuritySysConfigString(env(`-Djava.security.auth.login.config=${jaas(CLIENT)}`))).not.toContain('kafka-secret');
  });
});
