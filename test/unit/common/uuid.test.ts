import { isUuidString, METADATA_TOPIC_ID, randomUuid, topicIdBytes, topicIdOf, uuidFromString, uuidToString, ZERO_UUID } from '../../../src/common/uuid';

describe('Uuid (KIP-516 topic ids)', () => {
  it("prints 16 bytes as Kafka's Uuid.toString: URL-safe Base64 without padding, 22 characters", () => {
    expect(uuidToString(Buffer.alloc(16))).toBe(ZERO_UUID);
    const one = Buffer.alloc(16);
    one[15] = 1;
    expect(uuidToString(one)).toBe(METADATA_TOPIC_ID);
    const b = Buffer.from('70caf71a9544497d8bddbc8f19ff7795', 'hex');
    expect(uuidToString(b)).toBe('cMr3GpVESX2L3byPGf93lQ');
    expect(uuidFromString('cMr3GpVESX2L3byPGf93lQ')).toEqual(b);
  });

  it('refuses text that is not a canonical base64 Uuid', () => {
    for (const bad of ['', 'abc', 'cMr3GpVESX2L3byPGf93lQ=', 'cMr3GpVESX2L3byPGf93l+', 'cMr3GpVESX2L3byPGf93lR', 'cMr3GpVESX2L3byPGf93lQA']) {
      expect(isUuidString(bad)).toBe(false);
      expect(() => uuidFromString(bad)).toThrow();
    }
  });

  it('randomUuid: version-4 UUIDs, never the zero id, METADATA_TOPIC_ID or a text starting with "-"', () => {
    for (let i = 0; i < 200; i++) {
      const id = randomUuid();
      expect(isUuidString(id)).toBe(true);
      const bytes = uuidFromString(id);
      expect((bytes[6] as number) >> 4).toBe(4);
      expect((bytes[8] as number) >> 6).toBe(2);
      expect(id.startsWith('-')).toBe(false);
    }
    const sequence = [Buffer.alloc(16), Buffer.from('00000000000000000000000000000001', 'hex'), Buffer.from('fb' + '00'.repeat(15), 'hex'), Buffer.from('70caf71a9544497d8bddbc8f19ff7795', 'hex')];
    expect(randomUuid(() => sequence.shift() as Buffer)).toBe('cMr3GpVESX2L3byPGf93lQ');
  });

  it('maps the zero Uuid on the wire to "no id" and back', () => {
    expect(topicIdOf(Buffer.alloc(16))).toBeUndefined();
    expect(topicIdBytes(undefined)).toEqual(Buffer.alloc(16));
    expect(topicIdOf(topicIdBytes('cMr3GpVESX2L3byPGf93lQ'))).toBe('cMr3GpVESX2L3byPGf93lQ');
  });
});
