import type { ZkDigestCredentials } from '../zk/zk-acls';
import { jaasFileFromKafkaOpts, JaasLoginModule, loadJaasFileFromEnv } from './jaas-config';
import { systemProperty } from './system-property';

/** How a ZooKeeper client of kafka-ts authenticates, and whether the nodes it creates get secure ACLs. */
export interface ZkClientSecurity {
  auth?: ZkDigestCredentials;
  secureAcls: boolean;
}

/** Kafka's KafkaException from JaasUtils, and the SecurityException KafkaServer throws: start-up stops on it. */
export class ZkLoginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZkLoginError';
  }
}

const JAVA_LOGIN_CONFIG_PARAM = 'java.security.auth.login.config';
const ZK_SASL_CLIENT = 'zookeeper.sasl.client';
const ZK_LOGIN_CONTEXT_NAME_KEY = 'zookeeper.sasl.clientconfig';

/** JaasUtils.zkSecuritySysConfigString: the three properties that decide, as Kafka prints them in its errors. */
export function zkSecuritySysConfigString(env: NodeJS.ProcessEnv = process.env): string {
  const loginConfig = jaasFileFromKafkaOpts(env['KAFKA_OPTS']) ?? 'null';
  const clientEnabled = systemProperty(env, ZK_SASL_CLIENT) ?? 'default:true';
  const contextName = systemProperty(env, ZK_LOGIN_CONTEXT_NAME_KEY) ?? 'default:Client';
  return `[${JAVA_LOGIN_CONFIG_PARAM}=${loginConfig}, ${ZK_SASL_CLIENT}=${clientEnabled}, ${ZK_LOGIN_CONTEXT_NAME_KEY}=${contextName}]`;
}

/** The JAAS section the ZooKeeper client logs in with (`Client` unless zookeeper.sasl.clientconfig names another). */
function zkLoginSection(env: NodeJS.ProcessEnv): { name: string; modules: JaasLoginModule[] | undefined } {
  const name = systemProperty(env, ZK_LOGIN_CONTEXT_NAME_KEY) ?? 'Client';
  let sections: Map<string, JaasLoginModule[]> | undefined;
  try {
    sections = loadJaasFileFromEnv(env);
  } catch (err) {
    throw new ZkLoginError(`Exception while loading Zookeeper JAAS login context ${zkSecuritySysConfigString(env)}: ${(err as Error).message}`);
  }
  return { name, modules: sections?.get(name) };
}

/**
 * JaasUtils.isZkSaslEnabled: the JAAS file has the ZooKeeper client's section. A section with
 * `-Dzookeeper.sasl.client=false` is Kafka's "Exception while determining if ZooKeeper is secure".
 */
export function isZkSaslEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const found = zkLoginSection(env).modules !== undefined;
  const saslClient = (systemProperty(env, ZK_SASL_CLIENT) ?? 'true').toLowerCase() === 'true';
  if (found && !saslClient) throw new ZkLoginError(`Exception while determining if ZooKeeper is secure ${zkSecuritySysConfigString(env)}`);
  return found;
}

/**
 * The credentials of the ZooKeeper login section, for the digest scheme (see zk-acls.ts): its login module's
 * `username` and `password` options, as DigestLoginModule (or PlainLoginModule) lines have them. Undefined when
 * ZooKeeper SASL is not enabled; a section without both (Kerberos, say) cannot be honoured and is an error.
 */
export function zkClientCredentials(env: NodeJS.ProcessEnv = process.env): ZkDigestCredentials | undefined {
  if (!isZkSaslEnabled(env)) return undefined;
  const { name, modules } = zkLoginSection(env);
  const module = modules?.[0];
  const username = module?.options.get('username');
  const password = module?.options.get('password');
  if (module === undefined || username === undefined || password === undefined || username === '') {
    throw new ZkLoginError(
      `The JAAS section ${name} (${module?.loginModule ?? 'no login module'}) has no username and password: kafka-ts authenticates to ZooKeeper with the digest scheme, which needs both ${zkSecuritySysConfigString(env)}`,
    );
  }
  return { username, password };
}

/**
 * The broker's ZooKeeper security (KafkaServer.initZkClient): it logs in whenever the JAAS file has the section,
 * and sets secure ACLs when zookeeper.set.acl is true, which without a login or TLS client authentication
 * (KafkaConfig.zkTlsClientAuthEnabled: zookeeper.ssl.client.enable, zookeeper.clientCnxnSocket and
 * zookeeper.ssl.keystore.location all set) is Kafka's SecurityException. With TLS only, the nodes belong to the
 * certificate's x509 identity.
 */
export function brokerZkSecurity(setAcl: boolean, env: NodeJS.ProcessEnv = process.env, tlsClientAuth = false): ZkClientSecurity {
  const auth = zkClientCredentials(env);
  if (auth === undefined && tlsClientAuth) return { secureAcls: setAcl };
  if (setAcl && auth === undefined) {
    throw new ZkLoginError(
      `zookeeper.set.acl is true, but ZooKeeper client TLS configuration identifying at least zookeeper.ssl.client.enable, zookeeper.clientCnxnSocket, and zookeeper.ssl.keystore.location was not present and the verification of the JAAS login file failed ${zkSecuritySysConfigString(env)}`,
    );
  }
  return auth === undefined ? { secureAcls: false } : { auth, secureAcls: setAcl };
}

/**
 * The tools' ZooKeeper security: `KafkaZkClient(connect, JaasUtils.isZkSaslEnabled, ...)` in most commands;
 * kafka-configs adds `|| KafkaConfig.zkTlsClientAuthEnabled(zkClientConfig)` (`tlsClientAuth`), so that over TLS
 * with a client certificate its nodes belong to the certificate.
 */
export function toolZkSecurity(env: NodeJS.ProcessEnv = process.env, tlsClientAuth = false): ZkClientSecurity {
  const auth = zkClientCredentials(env);
  return auth === undefined ? { secureAcls: tlsClientAuth } : { auth, secureAcls: true };
}
