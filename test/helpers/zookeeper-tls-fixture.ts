import fs from 'node:fs';
import path from 'node:path';
import type { ZkAcl } from '../../src/zk/zk-acls';
import { STORE_PASSWORD, TestCertificates } from './test-certificates';

/**
 * What the ZooKeeper-over-TLS tests share. They need the binding's TLS build (scripts/build-zookeeper-tls.sh, run
 * by the project's setup, so in CI); without it they are skipped rather than failed with a missing module.
 */
export const ZK_TLS_BUILT = fs.existsSync(path.join(__dirname, '..', '..', '.kafka-ts', 'zookeeper-tls', 'build', 'Release', 'zookeeper.node'));

/** The ACL Kafka gives a znode created over TLS without a JAAS login: every right for the client certificate... */
export const CLIENT_CERTIFICATE_OWNER: ZkAcl = { perms: 31, scheme: 'x509', id: 'CN=client,OU=Eng,O=Acme,C=US' };
/** ...and read for the world. */
export const WORLD_READ: ZkAcl = { perms: 1, scheme: 'world', id: 'anyone' };

/** A client's ZooKeeper TLS keys as server.properties (or a --zk-tls-config-file) gives them: the test client's certificate. */
export function zkTlsClientProps(certs: TestCertificates): Record<string, string> {
  return {
    'zookeeper.ssl.client.enable': 'true',
    'zookeeper.clientCnxnSocket': 'org.apache.zookeeper.ClientCnxnSocketNetty',
    'zookeeper.ssl.keystore.location': certs.client.p12,
    'zookeeper.ssl.keystore.password': STORE_PASSWORD,
    'zookeeper.ssl.truststore.location': certs.truststoreJks,
    'zookeeper.ssl.truststore.password': STORE_PASSWORD,
  };
}

/** The same client TLS as ZooKeeper's own system properties, as KAFKA_OPTS carries them (-Dzookeeper.client.secure=true ...). */
export function zkTlsKafkaOpts(certs: TestCertificates): string {
  return [
    '-Dzookeeper.client.secure=true',
    '-Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty',
    `-Dzookeeper.ssl.keyStore.location=${certs.client.p12}`,
    `-Dzookeeper.ssl.keyStore.password=${STORE_PASSWORD}`,
    `-Dzookeeper.ssl.trustStore.location=${certs.truststoreJks}`,
    `-Dzookeeper.ssl.trustStore.password=${STORE_PASSWORD}`,
  ].join(' ');
}
