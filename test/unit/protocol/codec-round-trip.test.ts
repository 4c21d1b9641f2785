import { ApiDefinition } from '../../../src/protocol/api-definition';
import { allApis } from '../../../src/protocol/apis';
import { ByteReader } from '../../../src/protocol/primitives/byte-reader';
import { ByteWriter } from '../../../src/protocol/primitives/byte-writer';
import { ProtocolError } from '../../../src/protocol/protocol-error';
import { presentFieldsEqual, sampleBody } from './schema-sample';

const cases: [string, ApiDefinition, number][] = allApis().flatMap((api) =>
  Array.from({ length: api.maxVersion - api.minVersion + 1 }, (_, i): [string, ApiDefinition, number] => [`${api.name} v${api.minVersion + i}`, api, api.minVersion + i]),
);

describe('encode/decode round trips for every API and version in the registry', () => {
  it.each(cases)('%s request and response', (_name, api, version) => {
    for (const side of ['request', 'response'] as const) {
      const fields = api.spec[side];
      const body = sampleBody(fields, version);
      const w = new ByteWriter(8);
      if (side === 'request') api.encodeRequest(version, w, body);
      else api.encodeResponse(version, w, body);
      const bytes = w.toBuffer();
      const r = new ByteReader(bytes);
      const decoded = (side === 'request' ? api.decodeRequest(version, r) : api.decodeResponse(version, r)) as Record<string, unknown>;
      expect(r.remaining).toBe(0);
      expect(presentFieldsEqual(fields, version, body, decoded)).toBe(true);
      const again = new ByteWriter();
      if (side === 'request') api.encodeRequest(version, again, decoded);
      else api.encodeResponse(version, again, decoded);
      expect(again.toBuffer()).toEqual(bytes);
      // Every strict prefix of a non-empty body is a truncated message and must fail cleanly.
      for (let cut = 0; cut < bytes.length; cut++) {
        const decode = (): unknown => (side === 'request' ? api.decodeRequest(version, new ByteReader(bytes, 0, cut)) : api.decodeResponse(version, new ByteReader(bytes, 0, cut)));
        expect(decode).toThrow(ProtocolError);
      }
    }
  });

  // APIs added since the policy became "Kafka 2.8's maximum, flexible versions included", with that maximum.
  const AT_KAFKA_28_MAX: ReadonlyMap<number, number> = new Map([
    [35, 2], // DescribeLogDirs
    [43, 2], // ElectLeaders
  ]);

  it('every API has min version 0; the older ones stop below their flexible boundary (except ApiVersions v3), the new ones at 2.8\'s maximum', () => {
    for (const api of allApis()) {
      expect(api.minVersion).toBe(0);
      const max = AT_KAFKA_28_MAX.get(api.key);
      if (max !== undefined) expect(api.maxVersion).toBe(max);
      else if (api.key !== 18 && api.flexibleFrom !== null) expect(api.maxVersion).toBeLessThan(api.flexibleFrom);
    }
  });
});
