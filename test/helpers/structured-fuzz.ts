/*
 * Structure-aware request fuzzing (issue 12). A seed is a valid request frame (header + body, no size prefix): a
 * golden frame captured from a real client (test/fixtures/protocol) or a frame encoded from `sampleBody`. The walker
 * reads the seed against its API's FieldSpec list (src/protocol/apis/*.ts) with its own cursor, so it knows the byte
 * range of every header field, body field, length prefix, array count, tagged-field section, v2 batch header field,
 * record varint and legacy message field. The mutation list of a seed is then enumerated field by field:
 *
 *   - string/bytes/records length prefixes: -2, -1, 0, off by one, huge, one past the frame, invalid UTF-8;
 *   - array counts: negative, 0, off by one, huge (2^31-1, 50,000,000), one element more or fewer (still valid);
 *   - compact (UNSIGNED_VARINT) lengths and counts: null, empty, overlong (5 and 6 bytes), overflowing 32 bits,
 *     unterminated;
 *   - tagged-field sections: overlong, huge or overflowing counts, tags out of order or repeated, huge sizes, and
 *     a valid unknown tag (which must be skipped);
 *   - int8/16/32/64, bool, float64 and uuid fields at their boundary values;
 *   - header: every API key of the registry and unknown ones, versions just outside and inside the window, correlation
 *     id boundaries, client id lengths;
 *   - truncation at every field boundary, mid-field, and at every byte of the header; trailing garbage;
 *   - records: v2 batch header fields (batch length, magic, CRC, attributes, record count, offsets, producer fields)
 *     with the CRC left wrong and recomputed right, record varints (length, key/value lengths, header count) with
 *     the CRC and enclosing lengths fixed so validation goes past the CRC; legacy (magic 0/1) message fields.
 *
 * Everything is deterministic: `StructuredFuzzer.frame(k)` depends on (seed, k) only. Even k walk the whole single-
 * mutation list in a seeded permutation (so 2 x singles frames cover every single mutation exactly once), odd k stack
 * 2-3 random mutations of one seed, sometimes ending in a truncation.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApiDefinition } from '../../src/protocol/api-definition';
import { ApiKey } from '../../src/protocol/api-keys';
import { allApis, apiByKey } from '../../src/protocol/apis';
import { writeRequestHeader } from '../../src/protocol/headers';
import { ByteWriter } from '../../src/protocol/primitives/byte-writer';
import { FieldSpec, inRange, parseVersions } from '../../src/protocol/schema/field';
import { crc32 } from '../../src/records/crc32';
import { crc32c } from '../../src/records/crc32c';
import { RecordBatchBuilder } from '../../src/records/record-batch-builder';
import { sampleBody } from '../unit/protocol/schema-sample';

// ---------------------------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: small, seeded, reproducible. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The generator of frame k: a function of (seed, k) alone. */
export function frameRng(seed: number, k: number): () => number {
  return rng(Math.imul(seed, 0x9e3779b1) ^ Math.imul(k + 1, 0x85ebca6b) ^ (k >>> 16));
}

// ---------------------------------------------------------------------------------------------------------------
// Seeds

export interface SeedFrame {
  api: ApiDefinition;
  version: number;
  /** `golden:<api>/<file>` or `sample:<API> v<N>`. */
  source: string;
  /** Header + body, without the size prefix. */
  frame: Buffer;
}

const FIXTURES = join(__dirname, '../fixtures/protocol');

/** Every captured request frame of test/fixtures/protocol. */
export function goldenSeeds(): SeedFrame[] {
  const out: SeedFrame[] = [];
  for (const api of allApis() as ApiDefinition[]) {
    const dirName = api.name.toLowerCase().replace(/_/g, '-');
    const dir = join(FIXTURES, dirName);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      const m = /^v(\d+)-request\.([a-z-]+)\.hex$/.exec(file);
      if (!m) continue;
      const frame = Buffer.from(readFileSync(join(dir, file), 'utf8').trim(), 'hex');
      out.push({ api, version: Number(m[1]), source: `golden:${dirName}/${file}`, frame });
    }
  }
  return out;
}

/** Topics a cluster run creates so that fuzzed Produce/Fetch/ListOffsets reach a partition leader and its log. */
export const FUZZ_TOPICS: readonly string[] = ['cap-p', 'cap-k', 'cap-pp'];

/** APIs whose cluster-safe sample bodies name FUZZ_TOPICS[0] and partitions 0-2 instead of made-up names. */
const TOPIC_APIS: ReadonlySet<number> = new Set([ApiKey.PRODUCE, ApiKey.FETCH, ApiKey.LIST_OFFSETS, ApiKey.OFFSET_FOR_LEADER_EPOCH, ApiKey.OFFSET_COMMIT, ApiKey.OFFSET_FETCH]);

/** Cluster-safe sample values that keep a request from parking or being refused before it gets anywhere. */
const CLUSTER_SAMPLE_VALUES: ReadonlyMap<number, Record<string, unknown>> = new Map<number, Record<string, unknown>>([
  [ApiKey.PRODUCE, { acks: -1, timeoutMs: 1000, transactionalId: null }],
  [ApiKey.FETCH, { maxWaitMs: 50, minBytes: 1, replicaId: -1, isolationLevel: 0, sessionId: 0, sessionEpoch: -1 }],
  [ApiKey.LIST_OFFSETS, { replicaId: -1 }],
]);

function retarget(fields: readonly FieldSpec[], version: number, body: Record<string, unknown>, topic: string, index: number): void {
  for (const f of fields) {
    const v = body[f.name];
    if (v === undefined || v === null) continue;
    if (f.type === 'string' && /^(name|topic|topicName)$/.test(f.name)) body[f.name] = topic;
    else if (f.type === 'int32' && /^(index|partition|partitionIndex)$/.test(f.name)) body[f.name] = index % 3;
    else if (f.type === 'int64' && f.name === 'fetchOffset') body[f.name] = 0;
    else if (f.type === '[]' && Array.isArray(v)) v.forEach((e, i) => retarget(f.fields ?? [], version, e as Record<string, unknown>, topic, i));
  }
}

export interface SeedOptions {
  /**
   * Bodies safe to send to a real cluster: the inter-broker requests (LeaderAndIsr, StopReplica, UpdateMetadata)
   * carry controller epoch 0 and broker epoch 0, which every broker refuses as stale once a controller has spoken,
   * and ControlledShutdown names broker -7. Without an authorizer Kafka 2.8 trusts CLUSTER_ACTION requests from
   * anyone, so a fuzzed epoch above the controller's would legitimately hijack the broker (see docs/reliability.md).
   */
  clusterSafe?: boolean;
}

/** Top-level fields pinned in cluster-safe seeds (and never mutated, see `frozen`). */
const CLUSTER_SAFE_PINS: ReadonlyMap<number, Record<string, unknown>> = new Map<number, Record<string, unknown>>([
  [ApiKey.LEADER_AND_ISR, { controllerId: 0, controllerEpoch: 0, brokerEpoch: 0 }],
  [ApiKey.STOP_REPLICA, { controllerId: 0, controllerEpoch: 0, brokerEpoch: 0 }],
  [ApiKey.UPDATE_METADATA, { controllerId: 0, controllerEpoch: 0, brokerEpoch: 0 }],
  [ApiKey.CONTROLLED_SHUTDOWN, { brokerId: -7, brokerEpoch: 0 }],
]);

/** API keys a cluster-safe run never relabels a frame to (their bodies would not carry the pinned epochs). */
export const CLUSTER_UNSAFE_TARGET_KEYS: ReadonlySet<number> = new Set(CLUSTER_SAFE_PINS.keys());

/** A v2 batch of two records (key, value, one header), uncompressed, CRC right. */
export function sampleBatch(n = 1): Buffer {
  const b = new RecordBatchBuilder({ baseOffset: 0 });
  b.append({ timestamp: 1700000000000 + n, key: Buffer.from(`k${n}`), value: Buffer.from(`value-${n}`), headers: [{ key: 'h', value: Buffer.from('x') }] });
  b.append({ timestamp: 1700000000001 + n, key: null, value: Buffer.from(`value-${n + 1}`) });
  return b.build();
}

/** A legacy message set of two messages (magic 0 or 1), CRC right. */
export function sampleMessageSet(magic: 0 | 1, n = 1): Buffer {
  const one = (offset: number, key: Buffer | null, value: Buffer): Buffer => {
    const body: Buffer[] = [Buffer.from([magic, 0])];
    if (magic === 1) {
      const ts = Buffer.alloc(8);
      ts.writeBigInt64BE(BigInt(1700000000000 + offset));
      body.push(ts);
    }
    for (const b of [key, value]) {
      const len = Buffer.alloc(4);
      len.writeInt32BE(b === null ? -1 : b.length);
      body.push(len);
      if (b !== null) body.push(b);
    }
    const payload = Buffer.concat(body);
    const head = Buffer.alloc(16);
    head.writeBigInt64BE(BigInt(offset), 0);
    head.writeInt32BE(payload.length + 4, 8);
    head.writeUInt32BE(crc32(payload), 12);
    return Buffer.concat([head, payload]);
  };
  return Buffer.concat([one(0, Buffer.from(`k${n}`), Buffer.from(`value-${n}`)), one(1, null, Buffer.from(`value-${n + 1}`))]);
}

/** Puts real record batches (magic 2 from Produce v3, else message sets) into every records field of a body. */
function withRealRecords(fields: readonly FieldSpec[], version: number, body: Record<string, unknown>, apiKey: number): void {
  for (const f of fields) {
    const v = body[f.name];
    if (f.type === 'records' && v !== null && v !== undefined) {
      body[f.name] = apiKey === ApiKey.PRODUCE && version < 3 ? sampleMessageSet(version < 2 ? 0 : 1) : sampleBatch();
    } else if (f.type === '[]' && Array.isArray(v)) {
      for (const e of v) withRealRecords(f.fields ?? [], version, e as Record<string, unknown>, apiKey);
    }
  }
}

/** Request frame: header (the API's header version for `version`) + encoded body. */
export function encodeRequestFrame(api: ApiDefinition, version: number, correlationId: number, clientId: string | null, body: unknown): Buffer {
  const w = new ByteWriter();
  writeRequestHeader(w, { apiKey: api.key, apiVersion: version, correlationId, clientId }, api.requestHeaderVersion(version));
  api.encodeRequest(version, w, body);
  return w.toBuffer();
}

/**
 * Frames encoded from `sampleBody` for every API and version of the registry (records fields carry real batches),
 * plus one all-defaults body with a null client id per API and version.
 */
export function sampleSeeds(options: SeedOptions = {}): SeedFrame[] {
  const out: SeedFrame[] = [];
  for (const api of allApis() as ApiDefinition[]) {
    for (let v = api.minVersion; v <= api.maxVersion; v++) {
      const pins = options.clusterSafe ? CLUSTER_SAFE_PINS.get(api.key) : undefined;
      const values = options.clusterSafe ? CLUSTER_SAMPLE_VALUES.get(api.key) : undefined;
      const body: Record<string, unknown> = { ...sampleBody(api.spec.request, v), ...(values ?? {}), ...(pins ?? {}) };
      for (const k of Object.keys(values ?? {})) if (!api.spec.request.some((f) => f.name === k && inRange(v, parseVersions(f.versions)))) delete body[k];
      if (options.clusterSafe && TOPIC_APIS.has(api.key)) retarget(api.spec.request, v, body, FUZZ_TOPICS[0] as string, 0);
      withRealRecords(api.spec.request, v, body, api.key);
      out.push({ api, version: v, source: `sample:${api.name} v${v}`, frame: encodeRequestFrame(api, v, 7, 'fuzz', body) });
      const defaults = { ...(pins ?? {}) };
      out.push({ api, version: v, source: `defaults:${api.name} v${v}`, frame: encodeRequestFrame(api, v, 8, null, defaults) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Walking a frame

export type NodeType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float64'
  | 'bool'
  | 'uuid'
  | 'string'
  | 'bytes'
  | 'records'
  | 'array'
  | 'tags'
  | 'varint'
  | 'varlong';

export interface Prefix {
  at: number;
  /** 2 (INT16), 4 (INT32) or 'uv' (UNSIGNED_VARINT of length + 1). */
  width: 2 | 4 | 'uv';
  bytes: number;
  /** The length or count it encodes (-1 for null). */
  value: number;
}

/** Where a mutation inside a record batch or legacy message must fix checksums and lengths to stay "right". */
export interface Container {
  kind: 'batch' | 'legacy';
  start: number;
  /** Enclosing int32 length fields (the records BYTES prefix, the batch length) that a resize must adjust. */
  lengths: number[];
}

export interface FieldNode {
  /** `header.clientId`, `topics[0].partitions[1].records.batch[0].attributes`, ... */
  path: string;
  type: NodeType;
  start: number;
  end: number;
  prefix?: Prefix;
  nullable?: boolean;
  elements?: { start: number; end: number }[];
  /** Inside a batch or legacy message: mutations can be sent with the checksum recomputed. */
  container?: Container;
  /** Covered by the container's checksum (batch: attributes onwards; legacy: magic onwards). */
  checksummed?: boolean;
  /** A record varint whose value is a length of the bytes that follow (key, value, header key/value). */
  lengthOfNext?: boolean;
  frozen?: boolean;
}

export interface Walk {
  seed: SeedFrame;
  headerVersion: number;
  bodyStart: number;
  nodes: FieldNode[];
  /** Bytes the body walk did not consume (0 for a well-formed seed). */
  trailing: number;
}

class WalkError extends Error {}

class Cursor {
  pos: number;
  constructor(
    readonly buf: Buffer,
    pos = 0,
    readonly end = buf.length,
  ) {
    this.pos = pos;
  }
  need(n: number): void {
    if (n < 0 || this.pos + n > this.end) throw new WalkError(`need ${n} bytes at ${this.pos}, frame ends at ${this.end}`);
  }
  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }
  uvarint(): number {
    let v = 0;
    for (let i = 0; i < 5; i++) {
      this.need(1);
      const b = this.buf[this.pos++] as number;
      v += (b & 0x7f) * 2 ** (7 * i);
      if ((b & 0x80) === 0) return v;
    }
    throw new WalkError('varint longer than 5 bytes');
  }
  /** Zig-zag VARINT or VARLONG; the value matters only as a length, so a double is enough. */
  zigzag(maxBytes: number): number {
    let v = 0;
    for (let i = 0; i < maxBytes; i++) {
      this.need(1);
      const b = this.buf[this.pos++] as number;
      v += (b & 0x7f) * 2 ** (7 * i);
      if ((b & 0x80) === 0) return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
    }
    throw new WalkError('varint too long');
  }
}

const FIXED: Partial<Record<string, number>> = { int8: 1, bool: 1, int16: 2, int32: 4, int64: 8, float64: 8, uuid: 16 };

/** Walks a seed frame; throws if the seed does not parse against its schema (a broken fixture). */
export function walkFrame(seed: SeedFrame, frozen: (api: ApiDefinition, path: string) => boolean = () => false): Walk {
  const { api, version, frame } = seed;
  const nodes: FieldNode[] = [];
  const c = new Cursor(frame);
  const headerVersion = api.requestHeaderVersion(version);
  const fixed = (path: string, type: NodeType, n: number): void => {
    c.skip(n);
    nodes.push({ path, type, start: c.pos - n, end: c.pos });
  };
  fixed('header.apiKey', 'int16', 2);
  fixed('header.apiVersion', 'int16', 2);
  fixed('header.correlationId', 'int32', 4);
  if (headerVersion >= 1) walkString(c, nodes, 'header.clientId', false, true);
  if (headerVersion >= 2) walkTags(c, nodes, 'header._tagged');
  const bodyStart = c.pos;
  const flexible = api.isFlexible(version);
  walkStruct(c, nodes, api.spec.request, version, flexible, '');
  for (const n of nodes) if (frozen(api, n.path)) n.frozen = true;
  return { seed, headerVersion, bodyStart, nodes, trailing: frame.length - c.pos };
}

function walkString(c: Cursor, nodes: FieldNode[], path: string, compact: boolean, nullable: boolean): void {
  const start = c.pos;
  let len: number;
  if (compact) len = c.uvarint() - 1;
  else len = c.int16();
  const prefix: Prefix = { at: start, width: compact ? 'uv' : 2, bytes: c.pos - start, value: len };
  if (len > 0) c.skip(len);
  nodes.push({ path, type: 'string', start, end: c.pos, prefix, nullable });
}

function walkTags(c: Cursor, nodes: FieldNode[], path: string): void {
  const start = c.pos;
  const count = c.uvarint();
  for (let i = 0; i < count; i++) {
    c.uvarint();
    c.skip(c.uvarint());
  }
  nodes.push({ path, type: 'tags', start, end: c.pos });
}

function walkStruct(c: Cursor, nodes: FieldNode[], fields: readonly FieldSpec[], version: number, flexible: boolean, prefix: string): void {
  for (const f of fields) {
    // Tagged fields live in the tag section (walkTags), not in the field order.
    if (!inRange(version, parseVersions(f.versions)) || f.tag !== undefined) continue;
    const path = prefix === '' ? f.name : `${prefix}.${f.name}`;
    const nullable = inRange(version, parseVersions(f.nullableVersions));
    if (f.type.startsWith('[]')) {
      const start = c.pos;
      const n = flexible ? c.uvarint() - 1 : c.int32();
      const pre: Prefix = { at: start, width: flexible ? 'uv' : 4, bytes: c.pos - start, value: n };
      const node: FieldNode = { path, type: 'array', start, end: start, prefix: pre, nullable, elements: [] };
      nodes.push(node);
      for (let i = 0; i < n; i++) {
        const es = c.pos;
        if (f.type === '[]') walkStruct(c, nodes, f.fields ?? [], version, flexible, `${path}[${i}]`);
        else walkPrimitive(c, nodes, f.type.slice(2), `${path}[${i}]`, flexible, false);
        node.elements?.push({ start: es, end: c.pos });
      }
      node.end = c.pos;
    } else {
      walkPrimitive(c, nodes, f.type, path, flexible, nullable);
    }
  }
  if (flexible) walkTags(c, nodes, prefix === '' ? '_tagged' : `${prefix}._tagged`);
}

function walkPrimitive(c: Cursor, nodes: FieldNode[], type: string, path: string, compact: boolean, nullable: boolean): void {
  const size = FIXED[type];
  if (size !== undefined) {
    c.skip(size);
    nodes.push({ path, type: type as NodeType, start: c.pos - size, end: c.pos });
    return;
  }
  if (type === 'string') return walkString(c, nodes, path, compact, nullable);
  const start = c.pos;
  const len = compact ? c.uvarint() - 1 : c.int32();
  const prefix: Prefix = { at: start, width: compact ? 'uv' : 4, bytes: c.pos - start, value: len };
  const dataStart = c.pos;
  if (len > 0) c.skip(len);
  nodes.push({ path, type: type as NodeType, start, end: c.pos, prefix, nullable });
  if (type === 'records' && len > 0) {
    // Only the int32 prefix is adjusted on resizes; compact records (flexible Produce/Fetch) are above our windows.
    const outer = compact ? [] : [start];
    walkRecordSet(c.buf, dataStart, dataStart + len, nodes, path, outer);
  }
}

/** v2 batches or legacy messages inside a records field; stops quietly at anything that does not parse. */
function walkRecordSet(buf: Buffer, start: number, end: number, nodes: FieldNode[], path: string, outer: number[]): void {
  let pos = start;
  let i = 0;
  while (end - pos >= 17) {
    const magic = buf.readInt8(pos + 16);
    const size = buf.readInt32BE(pos + 8);
    if (size < 0 || pos + 12 + size > end) return;
    const container: Container = { kind: magic === 2 ? 'batch' : 'legacy', start: pos, lengths: outer };
    const p = magic === 2 ? `${path}.batch[${i}]` : `${path}.message[${i}]`;
    try {
      if (magic === 2) walkBatch(buf, pos, pos + 12 + size, nodes, p, container);
      else if (magic === 0 || magic === 1) walkLegacy(buf, pos, pos + 12 + size, nodes, p, container, magic);
      else return;
    } catch (e) {
      if (!(e instanceof WalkError)) throw e;
      return;
    }
    pos += 12 + size;
    i++;
  }
}

const BATCH_FIELDS: readonly [string, NodeType, number][] = [
  ['baseOffset', 'int64', 8],
  ['batchLength', 'int32', 4],
  ['partitionLeaderEpoch', 'int32', 4],
  ['magic', 'int8', 1],
  ['crc', 'int32', 4],
  ['attributes', 'int16', 2],
  ['lastOffsetDelta', 'int32', 4],
  ['firstTimestamp', 'int64', 8],
  ['maxTimestamp', 'int64', 8],
  ['producerId', 'int64', 8],
  ['producerEpoch', 'int16', 2],
  ['baseSequence', 'int32', 4],
  ['recordsCount', 'int32', 4],
];

function walkBatch(buf: Buffer, start: number, end: number, nodes: FieldNode[], path: string, container: Container): void {
  let pos = start;
  for (const [name, type, size] of BATCH_FIELDS) {
    nodes.push({ path: `${path}.${name}`, type, start: pos, end: pos + size, container, checksummed: pos >= start + 21 });
    pos += size;
  }
  const batchLengthNode = nodes[nodes.length - 12] as FieldNode;
  // Record varints are resized with the batch length and the records prefix adjusted (CRC recomputed).
  const inner: Container = { kind: 'batch', start, lengths: [...container.lengths, batchLengthNode.start] };
  const attributes = buf.readInt16BE(start + 21);
  const count = buf.readInt32BE(start + 57);
  if ((attributes & 0x07) !== 0) return; // compressed: the records are opaque bytes here
  const c = new Cursor(buf, pos, end);
  for (let r = 0; r < count && c.pos < end; r++) {
    const rp = `${path}.record[${r}]`;
    const varint = (name: string, maxBytes: number, lengthOfNext = false): number => {
      const s = c.pos;
      const v = c.zigzag(maxBytes);
      nodes.push({ path: `${rp}.${name}`, type: maxBytes === 10 ? 'varlong' : 'varint', start: s, end: c.pos, container: inner, checksummed: true, lengthOfNext });
      return v;
    };
    varint('length', 5);
    const attrStart = c.pos;
    c.skip(1);
    nodes.push({ path: `${rp}.attributes`, type: 'int8', start: attrStart, end: c.pos, container: inner, checksummed: true });
    varint('timestampDelta', 10);
    varint('offsetDelta', 5);
    const keyLen = varint('keyLength', 5, true);
    if (keyLen > 0) c.skip(keyLen);
    const valueLen = varint('valueLength', 5, true);
    if (valueLen > 0) c.skip(valueLen);
    const headers = varint('headersCount', 5);
    for (let h = 0; h < headers; h++) {
      const hk = varint(`header[${h}].keyLength`, 5, true);
      if (hk > 0) c.skip(hk);
      const hv = varint(`header[${h}].valueLength`, 5, true);
      if (hv > 0) c.skip(hv);
    }
  }
}

function walkLegacy(buf: Buffer, start: number, end: number, nodes: FieldNode[], path: string, container: Container, magic: number): void {
  const fields: [string, NodeType, number][] = [
    ['offset', 'int64', 8],
    ['messageSize', 'int32', 4],
    ['crc', 'int32', 4],
    ['magic', 'int8', 1],
    ['attributes', 'int8', 1],
  ];
  if (magic === 1) fields.push(['timestamp', 'int64', 8]);
  let pos = start;
  for (const [name, type, size] of fields) {
    nodes.push({ path: `${path}.${name}`, type, start: pos, end: pos + size, container, checksummed: pos >= start + 16 });
    pos += size;
  }
  const c = new Cursor(buf, pos, end);
  for (const name of ['key', 'value']) {
    const s = c.pos;
    const len = c.int32();
    if (len > 0) c.skip(len);
    nodes.push({ path: `${path}.${name}`, type: 'bytes', start: s, end: c.pos, prefix: { at: s, width: 4, bytes: 4, value: len }, nullable: true, container, checksummed: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations

/** One edit of the seed: replace `del` bytes at `at` with `ins`, then apply the fixes. */
export interface Mutation {
  desc: string;
  at: number;
  del: number;
  ins: Buffer;
  /** Recompute the checksum of this container (CRC "right"), and add the size change to its enclosing lengths. */
  fix?: Container;
  /** Adjust the enclosing lengths by the size change but leave the checksum alone. */
  fixLengthsOnly?: Container;
  /** A truncation (never stacked with other edits). */
  truncation?: boolean;
}

const I8 = [-128, -1, 0, 1, 127];
const I16 = [-32768, -1, 0, 1, 32767];
const I32 = [-2147483648, -1, 0, 1, 2147483647];
const I64 = [-(2n ** 63n), -1n, 0n, 1n, 2n ** 63n - 1n, 2n ** 53n + 1n];

function int16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
}
function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v | 0);
  return b;
}
function int64(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
}

/** UNSIGNED_VARINT of `v` (up to 2^35-1), padded with continuation bytes to at least `minBytes`. */
export function uvarint(v: number, minBytes = 1): Buffer {
  const out: number[] = [];
  let x = v;
  do {
    out.push(x % 128);
    x = Math.floor(x / 128);
  } while (x > 0);
  while (out.length < minBytes) out.push(0);
  for (let i = 0; i < out.length - 1; i++) out[i] = (out[i] as number) | 0x80;
  return Buffer.from(out);
}

/** Zig-zag VARINT/VARLONG of a (possibly large) integer. */
export function zigzag(v: bigint, minBytes = 1): Buffer {
  const z = v >= 0n ? v * 2n : -v * 2n - 1n;
  const out: number[] = [];
  let x = z;
  do {
    out.push(Number(x & 0x7fn));
    x >>= 7n;
  } while (x > 0n);
  while (out.length < minBytes) out.push(0);
  for (let i = 0; i < out.length - 1; i++) out[i] = (out[i] as number) | 0x80;
  return Buffer.from(out);
}

/** Bad UNSIGNED_VARINTs: each must be refused (or, for the 5-byte overlong forms, read as the value they spell). */
const BAD_UVARINTS: readonly [string, Buffer][] = [
  ['overflowing 32 bits', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x7f])],
  ['unterminated (5 continuation bytes)', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff])],
  ['6-byte overlong 0', Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x00])],
  ['2^32-1', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])],
];

export interface MutationOptions {
  /** API keys never written into header.apiKey (cluster-safe runs: the inter-broker APIs). */
  forbiddenTargetKeys?: ReadonlySet<number>;
}

/** Every single mutation of a walked seed, in a fixed order. */
export function mutationsOf(walk: Walk, options: MutationOptions = {}): Mutation[] {
  const { frame, api } = walk.seed;
  const out: Mutation[] = [];
  const replace = (n: FieldNode | { start: number; end: number }, ins: Buffer, desc: string, extra: Partial<Mutation> = {}): void => {
    out.push({ desc, at: n.start, del: n.end - n.start, ins, ...extra });
  };
  for (const node of walk.nodes) {
    if (node.frozen) continue;
    const { path } = node;
    const cur = frame.subarray(node.start, node.end);
    // Inside a container: send checksummed fields both with the checksum right (recomputed) and wrong (as is).
    const variants = (ins: Buffer, desc: string): void => {
      if (node.container !== undefined && node.checksummed) {
        replace(node, ins, `${desc} (crc right)`, { fix: node.container });
        replace(node, ins, `${desc} (crc wrong)`, { fixLengthsOnly: node.container });
      } else {
        replace(node, ins, desc);
      }
    };
    switch (node.type) {
      case 'int8':
      case 'bool':
        for (const v of node.type === 'bool' ? [2, -1] : I8) if (cur.readInt8(0) !== v) variants(Buffer.from([v & 0xff]), `${path}=${v}`);
        if (path.endsWith('.magic')) for (const v of [0, 1, 2, 3]) if (cur.readInt8(0) !== v) variants(Buffer.from([v]), `${path}=${v}`);
        if (/message\[\d+\]\.attributes$/.test(path)) {
          for (const v of [1, 2, 3, 4, 7, 0x08]) variants(Buffer.from([v]), `${path}=${v}`);
        }
        break;
      case 'int16':
        if (path === 'header.apiKey') {
          for (const a of allApis() as ApiDefinition[]) {
            if (a.key === api.key || options.forbiddenTargetKeys?.has(a.key)) continue;
            replace(node, int16(a.key), `${path}=${a.key} (${a.name} header over a ${api.name} body)`);
          }
          for (const k of [32, 37, 42, 67, 1000]) if (apiByKey(k) === undefined) replace(node, int16(k), `${path}=${k} (unknown)`);
        }
        if (path === 'header.apiVersion') {
          for (let v = api.minVersion - 1; v <= api.maxVersion + 2; v++) {
            if (v !== walk.seed.version) replace(node, int16(v), `${path}=${v} (window ${api.minVersion}-${api.maxVersion})`);
          }
        }
        if (/batch\[\d+\]\.attributes$/.test(path)) {
          for (const v of [1, 2, 3, 4, 5, 6, 7, 0x08, 0x10, 0x20, 0x30, 0x40]) variants(int16(v), `${path}=0x${v.toString(16)}`);
        }
        for (const v of I16) if (cur.readInt16BE(0) !== v) variants(int16(v), `${path}=${v}`);
        break;
      case 'int32': {
        const v0 = cur.readInt32BE(0);
        for (const v of I32) if (v0 !== v) variants(int32(v), `${path}=${v}`);
        if (path.endsWith('.batchLength') || path.endsWith('.messageSize') || path.endsWith('.recordsCount')) {
          for (const v of [v0 - 1, v0 + 1, 50_000_000, 0x7ffffff0, 9]) variants(int32(v), `${path}=${v} (was ${v0})`);
        }
        if (path.endsWith('.crc')) {
          replace(node, int32(v0 ^ 1), `${path} flipped`);
        }
        break;
      }
      case 'int64':
        for (const v of I64) if (cur.readBigInt64BE(0) !== v) variants(int64(v), `${path}=${v}`);
        break;
      case 'float64':
        for (const v of [NaN, Infinity, -Infinity, -0]) {
          const b = Buffer.alloc(8);
          b.writeDoubleBE(v);
          replace(node, b, `${path}=${v}`);
        }
        break;
      case 'uuid':
        replace(node, Buffer.alloc(16, 0), `${path}=zero uuid`);
        replace(node, Buffer.alloc(16, 0xff), `${path}=ff uuid`);
        break;
      case 'string':
      case 'bytes':
      case 'records':
      case 'array':
        lengthMutations(node, frame, out, variants);
        break;
      case 'tags':
        tagMutations(node, out);
        break;
      case 'varint':
      case 'varlong':
        recordVarintMutations(node, frame, out);
        break;
    }
  }
  // Truncations: at every field boundary, mid-field, and at every byte of the header.
  const cuts = new Set<number>();
  for (let i = 0; i <= walk.bodyStart; i++) cuts.add(i);
  for (const n of walk.nodes) {
    cuts.add(n.start);
    cuts.add(n.end);
    if (n.end - n.start >= 2) cuts.add(n.start + ((n.end - n.start) >> 1));
    if (n.prefix !== undefined && n.prefix.bytes > 1) cuts.add(n.start + 1);
  }
  cuts.add(frame.length - 1);
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut < frame.length) out.push({ desc: `truncated at ${cut} of ${frame.length}`, at: cut, del: frame.length - cut, ins: Buffer.alloc(0), truncation: true });
  }
  out.push({ desc: 'one trailing 0x00', at: frame.length, del: 0, ins: Buffer.alloc(1) });
  out.push({ desc: '64 trailing 0xff', at: frame.length, del: 0, ins: Buffer.alloc(64, 0xff) });
  // The same edit can come from two rules (e.g. a boundary value that is also the magic byte 0): keep the first.
  const seen = new Set<string>();
  return out.filter((m) => {
    const key = `${m.at}/${m.del}/${m.ins.toString('hex')}/${m.fix ? 'F' : m.fixLengthsOnly ? 'L' : '-'}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function lengthMutations(node: FieldNode, frame: Buffer, out: Mutation[], variants: (ins: Buffer, desc: string) => void): void {
  const pre = node.prefix as Prefix;
  const path = node.path;
  const what = node.type === 'array' ? 'count' : 'len';
  const n = pre.value;
  const afterPrefix = frame.length - (pre.at + pre.bytes);
  const prefixNode = { start: pre.at, end: pre.at + pre.bytes };
  const put = (ins: Buffer, desc: string): void => {
    if (node.container !== undefined && node.checksummed) variants(ins, desc);
    else out.push({ desc, at: prefixNode.start, del: prefixNode.end - prefixNode.start, ins });
  };
  if (pre.width === 'uv') {
    put(uvarint(0), `${path} compact ${what}=null (0)`);
    put(uvarint(1), `${path} compact ${what}=0`);
    if (n >= 1) put(uvarint(n), `${path} compact ${what}=${n - 1} (one less)`);
    put(uvarint(n + 2), `${path} compact ${what}=${n + 1} (one more)`);
    put(uvarint(Math.max(n, -1) + 1, 5), `${path} compact ${what}=${n} as a 5-byte overlong varint (legal)`);
    put(uvarint(afterPrefix + 2), `${path} compact ${what}=${afterPrefix + 1} (one past the frame)`);
    put(uvarint(0x7fffffff), `${path} compact ${what}=2^31-2`);
    put(uvarint(50_000_001), `${path} compact ${what}=50,000,000`);
    for (const [name, bytes] of BAD_UVARINTS) put(bytes, `${path} compact ${what} ${name}`);
  } else {
    const enc = pre.width === 2 ? int16 : int32;
    const max = pre.width === 2 ? 0x7fff : 0x7fffffff;
    const values: [number, string][] = [
      [-2, '-2'],
      [-1, '-1 (null)'],
      [0, '0'],
      [n - 1, `${n - 1} (one less)`],
      [n + 1, `${n + 1} (one more)`],
      [max, `${max} (max)`],
      [Math.min(afterPrefix + 1, max), `${afterPrefix + 1} (one past the frame)`],
    ];
    if (pre.width === 4) values.push([50_000_000, '50,000,000'], [0x40000000, '2^30'], [-2147483648, '-2^31']);
    else values.push([-32768, '-32768']);
    const seen = new Set<number>([n]);
    for (const [v, label] of values) {
      if (seen.has(v)) continue;
      seen.add(v);
      put(enc(v), `${path} ${what}=${label}`);
    }
  }
  // Content: invalid UTF-8 in a string; one element more (duplicated) or fewer, which stays well-formed.
  if (node.type === 'string' && n > 0) {
    const at = pre.at + pre.bytes;
    out.push({ desc: `${path} invalid UTF-8 (0xff first byte)`, at, del: 1, ins: Buffer.from([0xff]) });
    out.push({ desc: `${path} truncated UTF-8 sequence at the end`, at: at + n - 1, del: 1, ins: Buffer.from([0xc3]) });
  }
  if (node.type === 'array' && node.elements !== undefined && node.elements.length > 0 && pre.width !== 'uv') {
    const first = node.elements[0] as { start: number; end: number };
    const last = node.elements[node.elements.length - 1] as { start: number; end: number };
    const count = node.elements.length;
    // One edit covering prefix .. end of array: new count, then the elements.
    const elems = frame.subarray(first.start, last.end);
    out.push({ desc: `${path} first element duplicated (count ${count + 1})`, at: pre.at, del: last.end - pre.at, ins: Buffer.concat([int32(count + 1), frame.subarray(first.start, first.end), elems]) });
    out.push({ desc: `${path} last element dropped (count ${count - 1})`, at: pre.at, del: last.end - pre.at, ins: Buffer.concat([int32(count - 1), frame.subarray(first.start, last.start)]) });
  }
}

function tagMutations(node: FieldNode, out: Mutation[]): void {
  const at = node.start;
  const del = node.end - node.start;
  const sections: [string, Buffer][] = [
    ['count as a 5-byte overlong varint (legal)', uvarint(0, 5)],
    ['count as a 6-byte overlong varint', Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x00])],
    ['count 2^32-1', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])],
    ['count overflowing 32 bits', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x7f])],
    ['count unterminated', Buffer.from([0x80])],
    ['count 127, no tags', Buffer.from([0x7f])],
    ['one unknown tag 10 of 3 bytes (legal, skipped)', Buffer.from([0x01, 0x0a, 0x03, 0x61, 0x62, 0x63])],
    ['tag 0 with size 2^31-1', Buffer.concat([Buffer.from([0x01, 0x00]), uvarint(0x7fffffff)])],
    ['tag 0 with size overflowing 32 bits', Buffer.from([0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0x7f])],
    ['tag number overflowing 32 bits', Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00])],
    ['tags out of order (5 then 3)', Buffer.from([0x02, 0x05, 0x00, 0x03, 0x00])],
    ['tag 0 repeated', Buffer.from([0x02, 0x00, 0x00, 0x00, 0x00])],
    ['tag 0 size one past the frame', Buffer.from([0x01, 0x00, 0x7f])],
  ];
  for (const [name, bytes] of sections) out.push({ desc: `${node.path} ${name}`, at, del, ins: bytes });
}

function recordVarintMutations(node: FieldNode, frame: Buffer, out: Mutation[]): void {
  const c = new Cursor(frame, node.start, node.end);
  const v = c.zigzag(node.type === 'varlong' ? 10 : 5);
  const container = node.container as Container;
  const values: [bigint, string][] = [
    [-2n, '-2'],
    [-1n, '-1'],
    [0n, '0'],
    [BigInt(v) - 1n, `${v - 1} (one less)`],
    [BigInt(v) + 1n, `${v + 1} (one more)`],
    [2147483647n, '2^31-1'],
    [-2147483648n, '-2^31'],
    [50_000_000n, '50,000,000'],
  ];
  if (node.type === 'varlong') values.push([2n ** 63n - 1n, 'Long.MAX'], [-(2n ** 63n), 'Long.MIN']);
  const seen = new Set<bigint>([BigInt(v)]);
  for (const [x, label] of values) {
    if (seen.has(x)) continue;
    seen.add(x);
    const ins = zigzag(x);
    out.push({ desc: `${node.path}=${label} (crc right)`, at: node.start, del: node.end - node.start, ins, fix: container });
  }
  out.push({ desc: `${node.path}=${v - 1} (crc wrong)`, at: node.start, del: node.end - node.start, ins: zigzag(BigInt(v) - 1n), fixLengthsOnly: container });
  const overlong = node.type === 'varlong' ? 11 : 6;
  out.push({ desc: `${node.path} ${overlong}-byte overlong varint (crc right)`, at: node.start, del: node.end - node.start, ins: zigzag(BigInt(v), overlong), fix: container });
  out.push({ desc: `${node.path} unterminated varint (crc right)`, at: node.start, del: node.end - node.start, ins: Buffer.alloc(overlong, 0xff), fix: container });
  out.push({ desc: `${node.path}=${v} as a 5-byte varint (crc right)`, at: node.start, del: node.end - node.start, ins: zigzag(BigInt(v), 5), fix: container });
}

/** Applies mutations (non-overlapping; applied from the highest offset down so lower offsets stay valid). */
export function applyMutations(frame: Buffer, mutations: readonly Mutation[]): Buffer {
  let out = frame;
  for (const m of [...mutations].sort((a, b) => b.at - a.at)) {
    const delta = m.ins.length - m.del;
    out = Buffer.concat([out.subarray(0, m.at), m.ins, out.subarray(Math.min(m.at + m.del, out.length))]);
    const c = m.fix ?? m.fixLengthsOnly;
    if (c !== undefined && delta !== 0) {
      for (const at of c.lengths) if (at + 4 <= m.at) out.writeInt32BE((out.readInt32BE(at) + delta) | 0, at);
    }
    if (m.fix !== undefined) fixChecksum(out, m.fix);
  }
  return out;
}

function fixChecksum(buf: Buffer, c: Container): void {
  if (c.start + 12 > buf.length) return;
  const size = buf.readInt32BE(c.start + 8);
  const end = Math.min(buf.length, c.start + 12 + Math.max(size, 0));
  if (c.kind === 'batch') {
    if (end < c.start + 21) return;
    buf.writeUInt32BE(crc32c(buf.subarray(c.start + 21, end)), c.start + 17);
  } else {
    if (end < c.start + 16) return;
    buf.writeUInt32BE(crc32(buf.subarray(c.start + 16, end)), c.start + 12);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The fuzzer

export interface Mutant {
  k: number;
  seed: SeedFrame;
  /** What was done, in order of application. */
  desc: string[];
  frame: Buffer;
}

export interface FuzzerOptions extends MutationOptions {
  seed: number;
  seeds?: readonly SeedFrame[];
  /** Fields never mutated. */
  frozen?: (api: ApiDefinition, path: string) => boolean;
  /** Only these API keys (default: all seeds). */
  apis?: ReadonlySet<number>;
}

/** The cluster-safe configuration: pinned inter-broker epochs, never mutated, never relabelled to. */
export function clusterSafeOptions(seed: number, apis?: ReadonlySet<number>): FuzzerOptions {
  return {
    seed,
    seeds: [...goldenSeeds(), ...sampleSeeds({ clusterSafe: true })],
    frozen: (api, path) => CLUSTER_SAFE_PINS.get(api.key)?.[path] !== undefined,
    forbiddenTargetKeys: CLUSTER_UNSAFE_TARGET_KEYS,
    ...(apis ? { apis } : {}),
  };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export class StructuredFuzzer {
  readonly seed: number;
  readonly walks: Walk[];
  readonly mutations: Mutation[][];
  /** Number of single mutations over all seeds (the systematic part's period). */
  readonly singles: number;
  private readonly offsets: number[];
  private readonly byApi: number[][];
  private readonly stride: number;
  private readonly start: number;

  constructor(options: FuzzerOptions) {
    this.seed = options.seed;
    const seeds = (options.seeds ?? [...goldenSeeds(), ...sampleSeeds()]).filter((s) => options.apis === undefined || options.apis.has(s.api.key));
    this.walks = seeds.map((s) => walkFrame(s, options.frozen));
    this.mutations = this.walks.map((w) => mutationsOf(w, options));
    this.offsets = [];
    let total = 0;
    for (const m of this.mutations) {
      this.offsets.push(total);
      total += m.length;
    }
    this.singles = total;
    const byKey = new Map<number, number[]>();
    this.walks.forEach((w, i) => {
      const list = byKey.get(w.seed.api.key) ?? [];
      list.push(i);
      byKey.set(w.seed.api.key, list);
    });
    this.byApi = [...byKey.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    const r = rng(options.seed ^ 0x5bd1e995);
    let stride = 1 + Math.floor(r() * (total - 1));
    while (gcd(stride, total) !== 1) stride++;
    this.stride = stride;
    this.start = Math.floor(r() * total);
  }

  /** The i-th single mutation of the seeded permutation (i taken modulo `singles`). */
  single(i: number): { walk: number; mutation: Mutation } {
    const idx = (this.start + (i % this.singles) * this.stride) % this.singles;
    let lo = 0;
    let hi = this.offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.offsets[mid] as number) <= idx) lo = mid;
      else hi = mid - 1;
    }
    return { walk: lo, mutation: (this.mutations[lo] as Mutation[])[idx - (this.offsets[lo] as number)] as Mutation };
  }

  /** Frame k: a function of (seed, k) only. */
  frame(k: number): Mutant {
    if (k % 2 === 0) {
      const { walk, mutation } = this.single(k >> 1);
      const w = this.walks[walk] as Walk;
      return { k, seed: w.seed, desc: [mutation.desc], frame: applyMutations(w.seed.frame, [mutation]) };
    }
    const r = frameRng(this.seed, k);
    const pick = (n: number): number => Math.floor(r() * n);
    const apiWalks = this.byApi[pick(this.byApi.length)] as number[];
    const wi = apiWalks[pick(apiWalks.length)] as number;
    const w = this.walks[wi] as Walk;
    const all = this.mutations[wi] as Mutation[];
    const chosen: Mutation[] = [];
    const want = 2 + pick(2);
    for (let tries = 0; chosen.length < want && tries < 20; tries++) {
      const m = all[pick(all.length)] as Mutation;
      if (m.truncation) continue;
      const overlaps = chosen.some((c) => m.at < c.at + Math.max(c.del, 1) && c.at < m.at + Math.max(m.del, 1));
      if (!overlaps) chosen.push(m);
    }
    let frame = applyMutations(w.seed.frame, chosen);
    const desc = chosen.map((m) => m.desc);
    if (r() < 0.2 && frame.length > 0) {
      const cut = pick(frame.length);
      frame = frame.subarray(0, cut);
      desc.push(`then truncated at ${cut}`);
    }
    return { k, seed: w.seed, desc, frame };
  }

  /** A one-line description of frame k for reports: seed, source, mutations, hex. */
  describe(m: Mutant): string {
    return `seed=${this.seed} k=${m.k} ${m.seed.source} [${m.desc.join('; ')}] frame=${m.frame.toString('hex')}`;
  }
}
