import { ApiDefinition } from '../../../src/protocol/api-definition';
import { allApis, apiByKey } from '../../../src/protocol/apis';
import { readRequestHeaderPrefix, readRequestHeaderRest } from '../../../src/protocol/headers';
import { ByteReader } from '../../../src/protocol/primitives/byte-reader';
import { ProtocolError } from '../../../src/protocol/protocol-error';
import { crc32c } from '../../../src/records/crc32c';
import {
  FieldNode,
  StructuredFuzzer,
  applyMutations,
  clusterSafeOptions,
  goldenSeeds,
  mutationsOf,
  sampleSeeds,
  uvarint,
  walkFrame,
  zigzag,
} from '../../helpers/structured-fuzz';

const golden = goldenSeeds();
const samples = sampleSeeds();

function decode(frame: Buffer): unknown {
  const r = new ByteReader(frame);
  const prefix = readRequestHeaderPrefix(r);
  const api = apiByKey(prefix.apiKey);
  // The dispatcher closes the connection for these before decoding anything.
  if (api === undefined || !api.isSupported(prefix.apiVersion)) throw new ProtocolError(`unknown API ${prefix.apiKey} v${prefix.apiVersion}`);
  readRequestHeaderRest(r, api.requestHeaderVersion(prefix.apiVersion));
  return api.decodeRequest(prefix.apiVersion, r);
}

describe('the structure-aware mutator', () => {
  it('has golden and sample seeds for every API and version of the registry', () => {
    expect(golden.length).toBeGreaterThan(150);
    for (const api of allApis() as ApiDefinition[]) {
      for (let v = api.minVersion; v <= api.maxVersion; v++) {
        expect(samples.filter((s) => s.api.key === api.key && s.version === v).map((s) => s.source)).toEqual([`sample:${api.name} v${v}`, `defaults:${api.name} v${v}`]);
      }
    }
  });

  it('walks every seed to its last byte, with every field inside the frame and the header first', () => {
    for (const seed of [...golden, ...samples, ...sampleSeeds({ clusterSafe: true })]) {
      const w = walkFrame(seed);
      expect(`${seed.source}: ${w.trailing} bytes left`).toBe(`${seed.source}: 0 bytes left`);
      expect(w.nodes.slice(0, 3).map((n) => n.path)).toEqual(['header.apiKey', 'header.apiVersion', 'header.correlationId']);
      for (const n of w.nodes) {
        expect(n.start).toBeGreaterThanOrEqual(0);
        expect(n.end).toBeLessThanOrEqual(seed.frame.length);
        expect(n.end).toBeGreaterThanOrEqual(n.start);
      }
      // The seeds themselves are valid requests.
      expect(() => decode(seed.frame)).not.toThrow();
    }
  });

  it('finds the v2 batch header fields and record varints inside Produce records', () => {
    const seed = golden.find((s) => s.source === 'golden:produce/v7-request.kafkajs.hex');
    expect(seed).toBeDefined();
    const paths = walkFrame(seed as never).nodes.map((n) => n.path);
    const base = 'topicData[0].partitionData[0].records.batch[0]';
    for (const f of ['baseOffset', 'batchLength', 'magic', 'crc', 'attributes', 'recordsCount', 'record[0].length', 'record[0].keyLength', 'record[0].valueLength', 'record[0].headersCount']) {
      expect(paths).toContain(`${base}.${f}`);
    }
    const legacy = samples.find((s) => s.source === 'sample:PRODUCE v1');
    expect(walkFrame(legacy as never).nodes.map((n) => n.path)).toContain('topicData[0].partitionData[1].records.message[1].value');
  });

  it('mutates lengths, counts, varints, versions, the header and truncations field by field', () => {
    const produce = golden.find((s) => s.source === 'golden:produce/v7-request.kafkajs.hex');
    const descs = mutationsOf(walkFrame(produce as never)).map((m) => m.desc);
    for (const expected of [
      'header.clientId len=-2',
      'header.clientId len=-1 (null)',
      'header.apiVersion=10 (window 0-9)',
      'header.apiVersion=-1 (window 0-9)',
      'header.apiKey=1 (FETCH header over a PRODUCE body)',
      'header.correlationId=-2147483648',
      'topicData count=50,000,000',
      'topicData count=-1 (null)',
      'topicData first element duplicated (count 2)',
      'topicData[0].name len=32767 (max)',
      'topicData[0].partitionData[0].records len=2147483647 (max)',
      'acks=32767',
      'truncated at 0 of 122',
      'topicData[0].partitionData[0].records.batch[0].batchLength=-1',
      'topicData[0].partitionData[0].records.batch[0].crc flipped',
      'topicData[0].partitionData[0].records.batch[0].recordsCount=2147483647 (crc right)',
      'topicData[0].partitionData[0].records.batch[0].recordsCount=2147483647 (crc wrong)',
      'topicData[0].partitionData[0].records.batch[0].attributes=0x4 (crc right)',
      'topicData[0].partitionData[0].records.batch[0].record[0].keyLength=2^31-1 (crc right)',
      'topicData[0].partitionData[0].records.batch[0].record[0].length 6-byte overlong varint (crc right)',
    ]) {
      expect(descs).toContain(expected);
    }
    // Compact lengths and tagged fields (ApiVersions v3 is the flexible version in our windows).
    const av = samples.find((s) => s.source === 'sample:API_VERSIONS v3');
    const avDescs = mutationsOf(walkFrame(av as never)).map((m) => m.desc);
    for (const expected of [
      'clientSoftwareName compact len=null (0)',
      'clientSoftwareName compact len overflowing 32 bits',
      'clientSoftwareName compact len 6-byte overlong 0',
      'header._tagged tags out of order (5 then 3)',
      '_tagged count as a 6-byte overlong varint',
      '_tagged one unknown tag 10 of 3 bytes (legal, skipped)',
    ]) {
      expect(avDescs).toContain(expected);
    }
  });

  it('recomputes the batch CRC and the enclosing lengths for "crc right" mutations, and leaves it for "crc wrong"', () => {
    const seed = golden.find((s) => s.source === 'golden:produce/v7-request.kafkajs.hex') as never;
    const w = walkFrame(seed);
    const batch = w.nodes.find((n) => n.path.endsWith('batch[0].baseOffset')) as FieldNode;
    const records = w.nodes.find((n) => n.path.endsWith('partitionData[0].records')) as FieldNode;
    const all = mutationsOf(w);
    const crcOk = (f: Buffer): boolean => {
      const size = f.readInt32BE(batch.start + 8);
      return crc32c(f.subarray(batch.start + 21, batch.start + 12 + size)) === f.readUInt32BE(batch.start + 17);
    };
    expect(crcOk((seed as { frame: Buffer }).frame)).toBe(true);
    const right = all.find((m) => m.desc.endsWith('record[0].length 6-byte overlong varint (crc right)'));
    const wrong = all.find((m) => m.desc.endsWith('record[0].attributes=1 (crc wrong)'));
    const f1 = applyMutations((seed as { frame: Buffer }).frame, [right as never]);
    expect(crcOk(f1)).toBe(true);
    // The record varint grew by 5 bytes: the batch length and the records BYTES length grew with it.
    expect(f1.length).toBe((seed as { frame: Buffer }).frame.length + 5);
    expect(f1.readInt32BE(batch.start + 8)).toBe((seed as { frame: Buffer }).frame.readInt32BE(batch.start + 8) + 5);
    expect(f1.readInt32BE(records.start)).toBe((seed as { frame: Buffer }).frame.readInt32BE(records.start) + 5);
    expect(crcOk(applyMutations((seed as { frame: Buffer }).frame, [wrong as never]))).toBe(false);
  });

  it('is deterministic by seed, and the even frames walk every single mutation exactly once', () => {
    const a = new StructuredFuzzer({ seed: 7 });
    const b = new StructuredFuzzer({ seed: 7 });
    const c = new StructuredFuzzer({ seed: 8 });
    let differ = 0;
    for (let k = 0; k < 2000; k++) {
      expect(a.frame(k).frame.equals(b.frame(k).frame)).toBe(true);
      if (!a.frame(k).frame.equals(c.frame(k).frame)) differ++;
    }
    expect(differ).toBeGreaterThan(1900);
    const seen = new Set<string>();
    for (let i = 0; i < a.singles; i++) {
      const { walk, mutation } = a.single(i);
      seen.add(`${walk}:${(a.mutations[walk] as unknown[]).indexOf(mutation)}`);
    }
    expect(seen.size).toBe(a.singles);
    expect(a.singles).toBeGreaterThan(50000);
    expect(a.describe(a.frame(3))).toMatch(/^seed=7 k=3 .+ \[.+\] frame=[0-9a-f]*$/);
  });

  it('cluster-safe seeds pin the inter-broker epochs and never mutate them or relabel frames to those APIs', () => {
    const f = new StructuredFuzzer(clusterSafeOptions(1));
    for (let i = 0; i < f.singles; i++) {
      const { mutation } = f.single(i);
      expect(mutation.desc).not.toMatch(/^(controllerEpoch|brokerEpoch)=|LEADER_AND_ISR header|STOP_REPLICA header|UPDATE_METADATA header|CONTROLLED_SHUTDOWN header/);
    }
    const lai = f.walks.find((w) => w.seed.source === 'sample:LEADER_AND_ISR v2');
    const epoch = lai?.nodes.find((n) => n.path === 'controllerEpoch') as FieldNode;
    expect(lai?.seed.frame.readInt32BE(epoch.start)).toBe(0);
    expect(epoch.frozen).toBe(true);
  });

  it('the broker codec refuses what it cannot decode with ProtocolError and nothing else', () => {
    const f = new StructuredFuzzer({ seed: 20261129 });
    const unexpected: string[] = [];
    let refused = 0;
    for (let k = 0; k < 40000; k++) {
      const m = f.frame(k);
      try {
        decode(m.frame);
      } catch (e) {
        if (e instanceof ProtocolError) refused++;
        else if (unexpected.length < 5) unexpected.push(`${String(e)}: ${f.describe(m)}`);
      }
    }
    expect(unexpected).toEqual([]);
    expect(refused).toBeGreaterThan(10000);
  });

  it('encodes varints, overlong ones included', () => {
    expect(uvarint(0).toString('hex')).toBe('00');
    expect(uvarint(300).toString('hex')).toBe('ac02');
    expect(uvarint(1, 5).toString('hex')).toBe('8180808000');
    expect(zigzag(-1n).toString('hex')).toBe('01');
    expect(zigzag(2147483647n).toString('hex')).toBe('feffffff0f');
    expect(zigzag(0n, 6).toString('hex')).toBe('808080808000');
  });
});
