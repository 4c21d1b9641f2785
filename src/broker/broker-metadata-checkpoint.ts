import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatProperties, parseProperties } from '../common/config/properties';
import { getLogger } from '../common/logging/logging';

export interface BrokerMetadata {
  brokerId: number;
  clusterId: string | null;
}

const log = getLogger('kafka.server.BrokerMetadataCheckpoint');

/**
 * `<log.dir>/meta.properties`: which broker and cluster a log dir belongs to (`version=0` in ZooKeeper mode).
 * Written through a .tmp file, fsync and rename, so a crash leaves either the old or the new file.
 */
export class BrokerMetadataCheckpoint {
  readonly file: string;

  constructor(logDir: string) {
    this.file = path.join(logDir, 'meta.properties');
  }

  read(): BrokerMetadata | null {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        log.warn(`No meta.properties file under dir ${this.file}`);
        return null;
      }
      throw err;
    }
    const props = parseProperties(text);
    const version = props.get('version');
    if (version !== '0') throw new Error(`Unrecognized version of the server meta.properties file: ${String(version)} in ${this.file}`);
    const brokerId = Number(props.get('broker.id'));
    if (!Number.isInteger(brokerId)) throw new Error(`Failed to read broker.id from ${this.file}`);
    return { brokerId, clusterId: props.get('cluster.id') ?? null };
  }

  write(meta: BrokerMetadata): void {
    const entries: [string, string][] = [];
    if (meta.clusterId !== null) entries.push(['cluster.id', meta.clusterId]);
    entries.push(['version', '0'], ['broker.id', String(meta.brokerId)]);
    const tmp = `${this.file}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, formatProperties(entries, new Date()));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
  }
}
