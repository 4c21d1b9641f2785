import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { tmpDir } from '../../helpers/tmp-dir';
import { ZkTlsConfigFileError, zkTlsConfigFromFile } from '../../../src/tools/tool-zk-client';
import { runZooKeeperShell } from '../../../src/tools/zookeeper-shell';

describe('--zk-tls-config-file (ZkSecurityMigrator.createZkClientConfigFromFile)', () => {
  const file = path.join(tmpDir('zk-tls-config-file-'), 'zk-tls.properties');
  fs.writeFileSync(
    file,
    ['zookeeper.ssl.client.enable=true', 'zookeeper.ssl.keyStore.location=/camel-case/is/not/kafka.p12', 'zookeeper.ssl.keystore.location=/k.p12', 'authorizer.zookeeper.ssl.truststore.location=/t.jks', 'zookeeper.connect=h:1', ''].join('\n'),
  );

  it("keeps Kafka's zookeeper.ssl.* keys and ignores the rest, camelCase ZooKeeper names included", () => {
    expect([...zkTlsConfigFromFile(file)]).toEqual([
      ['zookeeper.ssl.client.enable', 'true'],
      ['zookeeper.ssl.keystore.location', '/k.p12'],
    ]);
  });

  it("keeps the extra keys asked for (AclCommand's authorizer.-prefixed ones)", () => {
    expect(zkTlsConfigFromFile(file, ['authorizer.zookeeper.ssl.truststore.location']).get('authorizer.zookeeper.ssl.truststore.location')).toBe('/t.jks');
  });

  it("fails on a missing file as Java's reader does", () => {
    expect(() => zkTlsConfigFromFile('/no/such/zk-tls.properties')).toThrow(new ZkTlsConfigFileError('java.nio.file.NoSuchFileException', '/no/such/zk-tls.properties'));
  });

  it('stops zookeeper-shell before it connects when the file is missing or not named', async () => {
    const run = async (argv: string[]): Promise<{ code: number; err: string[] }> => {
      const err: string[] = [];
      const code = await runZooKeeperShell(argv, Readable.from([]), { out: () => undefined, err: (l) => err.push(l) }, {});
      return { code, err };
    };
    expect(await run(['127.0.0.1:1', '-zk-tls-config-file', '/no/such/file', 'ls', '/'])).toEqual({ code: 1, err: ['Exception in thread "main" java.nio.file.NoSuchFileException: /no/such/file'] });
    expect(await run(['127.0.0.1:1', 'ls', '/', '-zk-tls-config-file'])).toEqual({ code: 1, err: ['Exception in thread "main" java.lang.IllegalArgumentException: Error: no filename provided with option -zk-tls-config-file'] });
  });
});
