import { ByteReader } from '../primitives/byte-reader';
import { ByteWriter } from '../primitives/byte-writer';
import { ProtocolError } from '../protocol-error';
import { FieldSpec, PrimitiveType, inRange, parseVersions } from './field';

type Decode = (r: ByteReader) => unknown;
type Encode = (w: ByteWriter, v: unknown) => void;

/** A message schema compiled for one version: decode/encode closures with the version decisions already made. */
export interface CompiledStruct {
  decode(r: ByteReader): Record<string, unknown>;
  encode(w: ByteWriter, value: Record<string, unknown>): void;
  /** Fewest bytes an instance can occupy; bounds array counts before allocation. */
  readonly minSize: number;
}

const EMPTY = Buffer.alloc(0);

function zeroOf(type: string): () => unknown {
  if (type.startsWith('[]')) return () => [];
  switch (type as PrimitiveType) {
    case 'bool':
      return () => false;
    case 'string':
      return () => '';
    case 'bytes':
    case 'records':
      return () => EMPTY;
    case 'uuid':
      return () => Buffer.alloc(16);
    default:
      return () => 0;
  }
}

function defaultOf(spec: FieldSpec): () => unknown {
  if (spec.default === undefined) return zeroOf(spec.type);
  const d = spec.default;
  return Array.isArray(d) ? () => [...(d as unknown[])] : () => d;
}

function primitiveSize(type: PrimitiveType, compact: boolean): number {
  switch (type) {
    case 'int8':
    case 'bool':
      return 1;
    case 'int16':
      return 2;
    case 'int32':
      return 4;
    case 'int64':
    case 'float64':
      return 8;
    case 'uuid':
      return 16;
    case 'string':
      return compact ? 1 : 2;
    case 'bytes':
    case 'records':
      return compact ? 1 : 4;
  }
}

function primitiveDecoder(type: PrimitiveType, nullable: boolean, compact: boolean): Decode {
  switch (type) {
    case 'int8':
      return (r) => r.int8();
    case 'bool':
      return (r) => r.bool();
    case 'int16':
      return (r) => r.int16();
    case 'int32':
      return (r) => r.int32();
    case 'int64':
      return (r) => r.int64();
    case 'float64':
      return (r) => r.float64();
    case 'uuid':
      return (r) => r.uuid();
    case 'string':
      return compact ? (r) => r.compactString(nullable) : (r) => r.string(nullable);
    case 'bytes':
    case 'records':
      return compact ? (r) => r.compactBytes(nullable) : (r) => r.bytes(nullable);
  }
}

function primitiveEncoder(type: PrimitiveType, compact: boolean): Encode {
  switch (type) {
    case 'int8':
      return (w, v) => w.int8(v as number);
    case 'bool':
      return (w, v) => w.bool(v as boolean);
    case 'int16':
      return (w, v) => w.int16(v as number);
    case 'int32':
      return (w, v) => w.int32(v as number);
    case 'int64':
      return (w, v) => w.int64(v as number);
    case 'float64':
      return (w, v) => w.float64(v as number);
    case 'uuid':
      return (w, v) => w.raw(v as Buffer);
    case 'string':
      return compact ? (w, v) => w.compactString(v as string | null) : (w, v) => w.string(v as string | null);
    case 'bytes':
    case 'records':
      return compact ? (w, v) => w.compactBytes(v as Buffer | null) : (w, v) => w.bytes(v as Buffer | null);
  }
}

interface CompiledField {
  readonly name: string;
  readonly decode: Decode | null; // null: absent in this version, use the default
  readonly encode: Encode | null;
  readonly nullable: boolean;
  readonly makeDefault: () => unknown;
  readonly minSize: number;
}

function compileField(spec: FieldSpec, version: number, flexible: boolean, path: string): CompiledField {
  const name = spec.name;
  const makeDefault = defaultOf(spec);
  if (!inRange(version, parseVersions(spec.versions))) {
    return { name, decode: null, encode: null, nullable: false, makeDefault, minSize: 0 };
  }
  const nullable = inRange(version, parseVersions(spec.nullableVersions));
  const compact = flexible;
  if (spec.type === '{}') {
    const struct = compileStruct(spec.fields ?? [], version, flexible, `${path}.${name}`);
    return { name, decode: (r) => struct.decode(r), encode: (w, v) => struct.encode(w, v as Record<string, unknown>), nullable: false, makeDefault, minSize: struct.minSize };
  }
  if (!spec.type.startsWith('[]')) {
    const type = spec.type as PrimitiveType;
    return {
      name,
      decode: primitiveDecoder(type, nullable, compact),
      encode: primitiveEncoder(type, compact),
      nullable,
      makeDefault,
      minSize: primitiveSize(type, compact),
    };
  }
  let elemDecode: Decode;
  let elemEncode: Encode;
  let elemSize: number;
  if (spec.type === '[]') {
    const struct = compileStruct(spec.fields ?? [], version, flexible, `${path}.${name}`);
    elemDecode = (r) => struct.decode(r);
    elemEncode = (w, v) => struct.encode(w, v as Record<string, unknown>);
    elemSize = struct.minSize;
  } else {
    const type = spec.type.slice(2) as PrimitiveType;
    elemDecode = primitiveDecoder(type, false, compact);
    elemEncode = primitiveEncoder(type, compact);
    elemSize = primitiveSize(type, compact);
  }
  const structElements = spec.type === '[]';
  const decode: Decode = (r) => {
    const n = r.arrayLength(compact, nullable, elemSize);
    if (n < 0) return null;
    // The array, and each struct in it (an array of numbers or strings costs about its bytes).
    r.chargeObjects(structElements ? n + 1 : 1);
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = elemDecode(r);
    return out;
  };
  const encode: Encode = (w, v) => {
    if (v === null) {
      if (compact) w.unsignedVarint(0);
      else w.int32(-1);
      return;
    }
    const arr = v as readonly unknown[];
    if (compact) w.unsignedVarint(arr.length + 1);
    else w.int32(arr.length);
    for (const e of arr) elemEncode(w, e);
  };
  return { name, decode, encode, nullable, makeDefault, minSize: compact ? 1 : 4 };
}

interface CompiledTaggedField extends CompiledField {
  readonly tag: number;
  readonly decode: Decode;
  readonly encode: Encode;
  /** Whether a value is the default, which Kafka leaves out of the tag section (a struct's default is null: absent). */
  isDefault(v: unknown): boolean;
}

function compileTaggedField(spec: FieldSpec, version: number, path: string): CompiledTaggedField | null {
  const c = compileField(spec, version, true, path);
  if (c.decode === null || c.encode === null) return null;
  const d = spec.type === '{}' ? null : c.makeDefault();
  const isDefault = (v: unknown): boolean => {
    if (v === undefined) return true;
    if (d === null) return v === null;
    if (Buffer.isBuffer(v) && Buffer.isBuffer(d)) return v.equals(d);
    return v === d;
  };
  return { ...c, decode: c.decode, encode: c.encode, tag: spec.tag as number, isDefault, minSize: 0 };
}

function checkTaggedOrder(tagged: readonly CompiledTaggedField[], path: string): void {
  for (let i = 1; i < tagged.length; i++) {
    if ((tagged[i] as CompiledTaggedField).tag <= (tagged[i - 1] as CompiledTaggedField).tag) throw new Error(`Tagged fields of ${path} are not in tag order`);
  }
}

/** The tag section: the known tagged fields decoded into `out`, unknown ones skipped (a newer peer's). */
function decodeTaggedFields(r: ByteReader, tagged: readonly CompiledTaggedField[], out: Record<string, unknown>, path: string): void {
  const count = r.unsignedVarint();
  let lastTag = -1;
  for (let i = 0; i < count; i++) {
    const tag = r.unsignedVarint();
    if (tag <= lastTag) throw new ProtocolError(`Tagged fields out of order: ${tag} after ${lastTag}`);
    lastTag = tag;
    const size = r.unsignedVarint();
    const field = tagged.find((t) => t.tag === tag);
    if (field === undefined) {
      r.skip(size);
      continue;
    }
    const start = r.offset;
    out[field.name] = field.decode(r);
    if (r.offset - start !== size) throw new ProtocolError(`Tagged field ${path}.${field.name} has size ${size} but ${r.offset - start} bytes were read`);
  }
}

/** Writes the tag section: only the tagged fields whose value is not the default, each sized first. */
function encodeTaggedFields(w: ByteWriter, tagged: readonly CompiledTaggedField[], value: Record<string, unknown>): void {
  let written: { tag: number; bytes: Buffer }[] | undefined;
  for (const t of tagged) {
    const v = value[t.name];
    if (t.isDefault(v)) continue;
    const sub = new ByteWriter(64);
    t.encode(sub, v);
    (written ??= []).push({ tag: t.tag, bytes: sub.toBuffer() });
  }
  if (written === undefined) {
    w.emptyTaggedFields();
    return;
  }
  w.unsignedVarint(written.length);
  for (const x of written) w.unsignedVarint(x.tag).unsignedVarint(x.bytes.length).raw(x.bytes);
}

/**
 * The struct's decode and encode with its field names written into the code. One closure shared by every
 * struct would read and write properties by a name held in a variable: in a broker that serves fifty APIs those
 * accesses see hundreds of object shapes and V8 gives up caching them (the codec was 5 % of the brokers' CPU in
 * the RF 3 benchmark). Generated per struct and version, each function builds its objects with one literal, so
 * they share one shape, and each field access has its own site. The names come from the schemas in src/protocol
 * (JSON-quoted into the code); the field codecs are passed in, not written out.
 */
function generate(compiled: readonly CompiledField[], present: readonly CompiledField[], flexible: boolean): {
  decode: (codecs: unknown) => (r: ByteReader) => Record<string, unknown>;
  encode: (codecs: unknown) => (w: ByteWriter, value: Record<string, unknown>) => void;
} {
  const key = (name: string): string => JSON.stringify(name);
  const decodeBody = [
    'return function decode(r) {',
    '  const out = {',
    ...compiled.map((c, i) => `    ${key(c.name)}: ${c.decode === null ? `defaults[${i}]()` : `decoders[${i}](r)`},`),
    '  };',
    flexible ? '  tags(r, out);' : '',
    '  return out;',
    '};',
  ].join('\n');
  const encodeBody = [
    'return function encode(w, value) {',
    '  let v;',
    ...present.flatMap((c, i) => [
      `  v = value[${key(c.name)}];`,
      `  if (v === undefined) v = defaults[${i}]();`,
      c.nullable ? '' : `  if (v === null) notNullable(${key(c.name)});`,
      `  encoders[${i}](w, v);`,
    ]),
    flexible ? '  tags(w, value);' : '',
    '};',
  ].join('\n');
  return {
    decode: new Function('{ decoders, defaults, tags }', decodeBody) as (codecs: unknown) => (r: ByteReader) => Record<string, unknown>,
    encode: new Function('{ encoders, defaults, notNullable, tags }', encodeBody) as (codecs: unknown) => (w: ByteWriter, value: Record<string, unknown>) => void,
  };
}

/** Compiles a field list for one version. Unknown tagged fields (flexible versions) are skipped on read. */
export function compileStruct(fields: readonly FieldSpec[], version: number, flexible: boolean, path = ''): CompiledStruct {
  // A tagged field is absent from the regular fields; outside flexible versions it is absent altogether.
  const compiled = fields.map((spec) =>
    spec.tag === undefined ? compileField(spec, version, flexible, path) : { name: spec.name, decode: null, encode: null, nullable: false, makeDefault: spec.type === '{}' ? () => null : defaultOf(spec), minSize: 0 },
  );
  const tagged = flexible ? fields.filter((spec) => spec.tag !== undefined).map((spec) => compileTaggedField(spec, version, path)).filter((t): t is CompiledTaggedField => t !== null) : [];
  tagged.sort((a, b) => a.tag - b.tag);
  checkTaggedOrder(tagged, path);
  const present = compiled.filter((c) => c.encode !== null);
  const minSize = compiled.reduce((sum, c) => sum + c.minSize, 0) + (flexible ? 1 : 0);
  const code = generate(compiled, present, flexible);
  const decode = code.decode({
    decoders: compiled.map((c) => c.decode),
    defaults: compiled.map((c) => c.makeDefault),
    tags: (r: ByteReader, out: Record<string, unknown>): void => {
      if (tagged.length === 0) r.skipTaggedFields();
      else decodeTaggedFields(r, tagged, out, path);
    },
  });
  const encode = code.encode({
    encoders: present.map((c) => c.encode),
    defaults: present.map((c) => c.makeDefault),
    notNullable: (name: string): never => {
      throw new TypeError(`Field ${path}.${name} is null but not nullable at version ${version}`);
    },
    tags: (w: ByteWriter, value: Record<string, unknown>): void => {
      if (tagged.length === 0) w.emptyTaggedFields();
      else encodeTaggedFields(w, tagged, value);
    },
  });
  return { minSize, decode, encode };
}

/** Per-schema cache so each (schema, version) is compiled once. */
export class SchemaCodec {
  private readonly cache = new Map<number, CompiledStruct>();

  constructor(
    readonly fields: readonly FieldSpec[],
    private readonly isFlexible: (version: number) => boolean,
    private readonly name: string,
  ) {}

  forVersion(version: number): CompiledStruct {
    let c = this.cache.get(version);
    if (c === undefined) {
      c = compileStruct(this.fields, version, this.isFlexible(version), this.name);
      this.cache.set(version, c);
    }
    return c;
  }
}
