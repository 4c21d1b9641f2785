import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parsePartitionMetadata, PartitionMetadataFile } from '../../../src/log/partition-metadata-file';

describe('partition.metadata (Kafka 2.8 PartitionMetadataFile)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmf-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("writes Kafka's exact text and reads it back", async () => {
    const f = new PartitionMetadataFile(dir);
    expect(f.exists()).toBe(false);
    f.write('cMr3GpVESX2L3byPGf93lQ');
    expect(fs.readFileSync(path.join(dir, 'partition.metadata'), 'utf8')).toBe('version: 0\ntopic_id: cMr3GpVESX2L3byPGf93lQ');
    expect(f.read()).toBe('cMr3GpVESX2L3byPGf93lQ');
    await f.writeAsync('AAAAAAAAAAAAAAAAAAAAAQ');
    expect(f.read()).toBe('AAAAAAAAAAAAAAAAAAAAAQ');
    expect(fs.readdirSync(dir)).toEqual(['partition.metadata']);
  });

  it('refuses malformed files with Kafka\'s "Malformed line" error', () => {
    expect(() => parsePartitionMetadata('f', 'topic_id: cMr3GpVESX2L3byPGf93lQ')).toThrow('Malformed line in checkpoint file (f): topic_id: cMr3GpVESX2L3byPGf93lQ');
    expect(() => parsePartitionMetadata('f', 'version: 0\ntopic_id: nope')).toThrow('Malformed line');
    expect(() => parsePartitionMetadata('f', 'version: 1\ntopic_id: cMr3GpVESX2L3byPGf93lQ')).toThrow('Unrecognized version');
    expect(parsePartitionMetadata('f', 'version: 0\ntopic_id: cMr3GpVESX2L3byPGf93lQ\n')).toBe('cMr3GpVESX2L3byPGf93lQ');
  });
});
