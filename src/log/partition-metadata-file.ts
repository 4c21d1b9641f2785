import * as fs from 'node:fs';
import * as path from 'node:path';
import { isUuidString } from '../common/uuid';
import { syncDir, syncDirAsync } from './checkpoint-file';
import { TMP_FILE_SUFFIX } from './log-file-names';

/** The file's name in each partition directory (Kafka 2.8's Log.PartitionMetadataFilename). */
export const PARTITION_METADATA_FILE = 'partition.metadata';

const CURRENT_VERSION = 0;

/**
 * `<partition dir>/partition.metadata` (Kafka 2.8's PartitionMetadataFile): the topic id a broker learnt from
 * LeaderAndIsr v5, so that a log left behind by a deleted topic of the same name is recognised as another topic's.
 * The text is exactly Kafka's, without a final newline:
 *
 *   version: 0
 *   topic_id: cMr3GpVESX2L3byPGf93lQ
 *
 * Written as the checkpoints are (`.tmp`, fsync, rename, fsync of the directory).
 */
export class PartitionMetadataFile {
  readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, PARTITION_METADATA_FILE);
  }

  exists(): boolean {
    return fs.existsSync(this.file);
  }

  write(topicId: string): void {
    const tmp = this.file + TMP_FILE_SUFFIX;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, renderPartitionMetadata(topicId));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    syncDir(path.dirname(this.file));
  }

  /** `write` off the event loop (libuv's pool): same steps. */
  async writeAsync(topicId: string): Promise<void> {
    const tmp = this.file + TMP_FILE_SUFFIX;
    const fd = await fs.promises.open(tmp, 'w');
    try {
      await fd.writeFile(renderPartitionMetadata(topicId));
      await fd.sync();
    } finally {
      await fd.close();
    }
    await fs.promises.rename(tmp, this.file);
    await syncDirAsync(path.dirname(this.file));
  }

  /** The topic id in the file; throws Kafka's "Malformed line" error for text it cannot read. */
  read(): string {
    return parsePartitionMetadata(this.file, fs.readFileSync(this.file, 'utf8'));
  }
}

export function renderPartitionMetadata(topicId: string): string {
  return `version: ${CURRENT_VERSION}\ntopic_id: ${topicId}`;
}

/** PartitionMetadataFileFormatter.fromFile: `version: 0` then `topic_id: <uuid>`, fields split on ":\s+". */
export function parsePartitionMetadata(file: string, text: string): string {
  const lines = text.split('\n');
  const field = (line: string | undefined, name: string): string => {
    const parts = (line ?? '').split(/:\s+/);
    if (parts.length !== 2 || parts[0] !== name) throw new Error(`Malformed line in checkpoint file (${file}): ${line ?? ''}`);
    return parts[1] as string;
  };
  const version = field(lines[0], 'version');
  if (version !== String(CURRENT_VERSION)) throw new Error(`Unrecognized version of partition metadata file + (${file}): ${version}`);
  const topicId = field(lines[1], 'topic_id').trim();
  if (!isUuidString(topicId)) throw new Error(`Malformed line in checkpoint file (${file}): ${lines[1] ?? ''}`);
  return topicId;
}
