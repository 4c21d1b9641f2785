import { ApiKey, apiKeyName } from './api-keys';
import { ByteReader } from './primitives/byte-reader';
import { ByteWriter } from './primitives/byte-writer';
import { FieldSpec, inRange, parseVersions } from './schema/field';
import { SchemaCodec } from './schema/codec';

export interface ApiSpec<Req = unknown, Res = unknown> {
  /** Kafka's API key, from the ApiKey table (the enum name is derived from it). */
  readonly key: number;
  /** Lowest and highest version we decode, encode and advertise. */
  readonly minVersion: number;
  readonly maxVersion: number;
  /** First version that is flexible (KIP-482) in Kafka; null if none of Kafka's versions is. */
  readonly flexibleFrom: number | null;
  /** Inter-broker API (controller or replica traffic) rather than a client API. */
  readonly interBroker?: boolean;
  readonly request: readonly FieldSpec[];
  readonly response: readonly FieldSpec[];
  /**
   * Kafka's AbstractRequest.getErrorResponse for APIs whose errors live below the top level: the response that
   * puts `errorCode` in every slot the client reads (each requested partition, each topic). Without it an API
   * whose response has a top-level `errorCode` answers `{ errorCode }`, and any other API cannot carry an error.
   */
  // A method, not a function property: method parameters stay bivariant, so ApiDefinition<Req, Res> still fits
  // where an ApiDefinition of unknown bodies is expected.
  errorResponse?(request: Req, version: number, errorCode: number): Res;
}

/**
 * One API: key, supported version window, flexible boundary and the two schemas, compiled per version on first use.
 * `Req`/`Res` are the TypeScript shapes of the bodies; they are phantom here and checked where API files declare
 * them next to the schema.
 */
export class ApiDefinition<Req = unknown, Res = unknown> {
  readonly key: number;
  /** Kafka's enum name (PRODUCE, API_VERSIONS, ...). */
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly flexibleFrom: number | null;
  readonly interBroker: boolean;
  /** The declarative schemas (read by tests and tools; the codecs are compiled from them). */
  readonly spec: ApiSpec<Req, Res>;
  private readonly requestCodec: SchemaCodec;
  private readonly responseCodec: SchemaCodec;
  declare readonly _types?: { request: Req; response: Res };

  constructor(spec: ApiSpec<Req, Res>) {
    this.key = spec.key;
    this.name = apiKeyName(spec.key);
    this.minVersion = spec.minVersion;
    this.maxVersion = spec.maxVersion;
    this.flexibleFrom = spec.flexibleFrom;
    this.interBroker = spec.interBroker ?? false;
    this.spec = spec;
    const flexible = (v: number): boolean => this.isFlexible(v);
    this.requestCodec = new SchemaCodec(spec.request, flexible, `${this.name}Request`);
    this.responseCodec = new SchemaCodec(spec.response, flexible, `${this.name}Response`);
  }

  isSupported(version: number): boolean {
    return version >= this.minVersion && version <= this.maxVersion;
  }

  isFlexible(version: number): boolean {
    return this.flexibleFrom !== null && version >= this.flexibleFrom;
  }

  /**
   * Request header version (ApiMessageTypeGenerator.requestHeaderVersion): 2 for flexible versions, else 1, except
   * ControlledShutdown v0 which predates client ids and uses header v0.
   */
  requestHeaderVersion(version: number): number {
    if (this.isFlexible(version)) return 2;
    if (this.key === ApiKey.CONTROLLED_SHUTDOWN && version === 0) return 0;
    return 1;
  }

  /** Response header version: 1 for flexible versions, except ApiVersions which always answers with v0 (KIP-511). */
  responseHeaderVersion(version: number): number {
    if (this.key === ApiKey.API_VERSIONS) return 0;
    return this.isFlexible(version) ? 1 : 0;
  }

  /** Whether the response body has a top-level field of that name at `version` (e.g. `errorCode`). */
  hasResponseField(name: string, version: number): boolean {
    return this.spec.response.some((field) => field.name === name && inRange(version, parseVersions(field.versions)));
  }

  /**
   * The response that reports `errorCode` for the whole of `request` (see ApiSpec.errorResponse), or null when
   * this API's response has nowhere to put it (the connection is closed instead, as Kafka does).
   */
  errorResponse(request: Req, version: number, errorCode: number): Res | null {
    if (this.spec.errorResponse !== undefined) return this.spec.errorResponse(request, version, errorCode);
    return this.hasResponseField('errorCode', version) ? ({ errorCode } as Res) : null;
  }

  decodeRequest(version: number, r: ByteReader): Req {
    return this.requestCodec.forVersion(version).decode(r) as Req;
  }

  encodeRequest(version: number, w: ByteWriter, body: Req): void {
    this.requestCodec.forVersion(version).encode(w, body as Record<string, unknown>);
  }

  decodeResponse(version: number, r: ByteReader): Res {
    return this.responseCodec.forVersion(version).decode(r) as Res;
  }

  encodeResponse(version: number, w: ByteWriter, body: Res): void {
    this.responseCodec.forVersion(version).encode(w, body as Record<string, unknown>);
  }
}

/** Request and response body types of an ApiDefinition. */
export type RequestOf<A> = A extends { readonly _types?: { request: infer Req } } ? Req : never;
export type ResponseOf<A> = A extends { readonly _types?: { response: infer Res } } ? Res : never;

/** RECORDS as the codec accepts them for writing: one Buffer, or several written back to back (log slices). */
export type RecordsData = Buffer | readonly Buffer[] | null;
