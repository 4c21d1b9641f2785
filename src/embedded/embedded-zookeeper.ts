import fs from 'node:fs';
import path from 'node:path';
import { locateZooKeeper, quorumPeerMainArgs } from '../tools/zookeeper-locator';
import { EmbeddedProcess } from './embedded-process';

// A small standalone server that starts fast on a busy machine; test data need not be fsynced.
const JVM_OPTIONS = ['-Xmx128m', '-Xms32m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData', '-Djava.net.preferIPv4Stack=true', '-Dzookeeper.forceSync=no', '-Dzookeeper.jmx.log4j.disable=true'];

/**
 * A real ZooKeeper server (QuorumPeerMain, standalone mode) found as bin/zookeeper-server-start.ts finds it:
 * ZOOKEEPER_HOME, else Debian's zookeeper package. Its data and output live in `dir`.
 */
export function startEmbeddedZooKeeper(dir: string, host: string, clientPort: number): EmbeddedProcess {
  const installation = locateZooKeeper();
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  const configFile = path.join(dir, 'zookeeper.properties');
  fs.writeFileSync(
    configFile,
    [
      'tickTime=500',
      // Brokers use short sessions; ZooKeeper's default cap of 20 ticks (10 s here) would shorten longer ones.
      'minSessionTimeout=1000',
      'maxSessionTimeout=60000',
      `dataDir=${dataDir}`,
      `clientPort=${clientPort}`,
      `clientPortAddress=${host}`,
      'maxClientCnxns=0',
      'admin.enableServer=false',
      '4lw.commands.whitelist=srvr,ruok,stat',
      '',
    ].join('\n'),
  );
  const args = quorumPeerMainArgs(installation, configFile, [...JVM_OPTIONS, `-Dzookeeper.log.dir=${dir}`]);
  return EmbeddedProcess.start('zookeeper', installation.java, args, { env: process.env, outputFile: path.join(dir, 'zookeeper.out') });
}
