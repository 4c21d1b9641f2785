import { ApiDefinition } from '../../../src/protocol/api-definition';
import { allApis } from '../../../src/protocol/apis';
import { kafkaApiVersion } from '../../../src/protocol/kafka-api-versions';
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

  it('every API has min version 0, none goes past Kafka 2.8, and a window into the flexible versions goes to 2.8\'s maximum', () => {
    for (const api of allApis()) {
      expect(api.minVersion).toBe(0);
      const kafka = kafkaApiVersion(api.key);
      expect(kafka).toBeDefined();
      expect(api.maxVersion).toBeLessThanOrEqual(kafka?.maxVersion ?? -1);
      // The older APIs still stop below their flexible boundary; those opened since go all the way.
      if (api.flexibleFrom !== null && api.maxVersion >= api.flexibleFrom) expect([api.name, api.maxVersion]).toEqual([api.name, kafka?.maxVersion]);
    }
  });
});
