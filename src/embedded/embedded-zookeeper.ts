import path from 'node:path';
import { locateZooKeeper, quorumPeerMainArgs } from '../tools/zookeeper-locator';
import { EmbeddedProcess } from './embedded-process';
import { SMALL_ZOOKEEPER_JVM_OPTIONS, writeZooKeeperConfig } from './zookeeper-config';

/**
 * A real ZooKeeper server (QuorumPeerMain, standalone mode) found as bin/zookeeper-server-start.ts finds it:
 * ZOOKEEPER_HOME, else Debian's zookeeper package. Its data and output live in `dir`.
 */
export function startEmbeddedZooKeeper(dir: string, host: string, clientPort: number): EmbeddedProcess {
  const installation = locateZooKeeper();
  const { configFile } = writeZooKeeperConfig({ dir, clientAddress: host, clientPort, configFileName: 'zookeeper.properties' });
  const args = quorumPeerMainArgs(installation, configFile, [...SMALL_ZOOKEEPER_JVM_OPTIONS, `-Dzookeeper.log.dir=${dir}`]);
  return EmbeddedProcess.start('zookeeper', installation.java, args, { env: process.env, outputFile: path.join(dir, 'zookeeper.out') });
}
