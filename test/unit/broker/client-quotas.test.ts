import { KafkaError } from '../../../src/common/kafka-error';
import { applyQuotaOps, describeClientQuotas, parseQuotaEntity, StoredQuotaEntity } from '../../../src/broker/handlers/client-quotas';

const stored: StoredQuotaEntity[] = [
  { user: 'alice', config: new Map([['producer_byte_rate', '100']]) },
  { user: null, config: new Map([['consumer_byte_rate', '200']]) },
  { clientId: 'c1', config: new Map([['producer_byte_rate', '1024'], ['other', 'x']]) },
  { clientId: null, config: new Map([['consumer_byte_rate', '2048']]) },
  { clientId: 'empty', config: new Map([['other', 'x']]) },
  { user: 'alice', clientId: 'c1', config: new Map([['request_percentage', '50.5']]) },
  { ip: '1.2.3.4', config: new Map([['connection_creation_rate', '10']]) },
];

const names = (entries: ReturnType<typeof describeClientQuotas>): string[] =>
  entries.map((e) => e.entity.map((x) => `${x.entityType}=${x.entityName ?? '<default>'}`).join(',')).sort();

describe('DescribeClientQuotas matching (ZkAdminManager.describeClientQuotas)', () => {
  it('EXACT, DEFAULT and SPECIFIED client-id components, strict', () => {
    expect(names(describeClientQuotas({ components: [{ entityType: 'client-id', matchType: 0, match: 'c1' }], strict: true }, stored))).toEqual(['client-id=c1']);
    expect(names(describeClientQuotas({ components: [{ entityType: 'client-id', matchType: 1, match: null }], strict: true }, stored))).toEqual(['client-id=<default>']);
    // Entities with only non-quota keys are left out.
    expect(names(describeClientQuotas({ components: [{ entityType: 'client-id', matchType: 2, match: null }], strict: true }, stored))).toEqual(['client-id=<default>', 'client-id=c1']);
  });

  it('not strict: entities with further components match too', () => {
    expect(names(describeClientQuotas({ components: [{ entityType: 'client-id', matchType: 0, match: 'c1' }], strict: false }, stored))).toEqual(['client-id=c1', 'user=alice,client-id=c1']);
    expect(names(describeClientQuotas({ components: [], strict: false }, stored))).toHaveLength(6);
    expect(describeClientQuotas({ components: [], strict: true }, stored)).toEqual([]);
  });

  it('user and ip components; values as numbers', () => {
    const r = describeClientQuotas({ components: [{ entityType: 'user', matchType: 0, match: 'alice' }, { entityType: 'client-id', matchType: 2, match: null }], strict: true }, stored);
    expect(r).toEqual([{ entity: [{ entityType: 'user', entityName: 'alice' }, { entityType: 'client-id', entityName: 'c1' }], values: [{ key: 'request_percentage', value: 50.5 }] }]);
    expect(names(describeClientQuotas({ components: [{ entityType: 'ip', matchType: 2, match: null }], strict: true }, stored))).toEqual(['ip=1.2.3.4']);
  });

  it("refuses Kafka's bad filters with its errors", () => {
    const err = (components: { entityType: string; matchType: number; match: string | null }[]): unknown => {
      try {
        describeClientQuotas({ components, strict: false }, stored);
      } catch (e) {
        return e instanceof KafkaError ? `${e.errorName}: ${e.message}` : `Error: ${(e as Error).message}`;
      }
      return 'none';
    };
    expect(err([{ entityType: 'user', matchType: 2, match: null }, { entityType: 'user', matchType: 1, match: null }])).toBe('INVALID_REQUEST: Duplicate user filter component entity type');
    expect(err([{ entityType: '', matchType: 2, match: null }])).toBe('INVALID_REQUEST: Unexpected empty filter component entity type');
    expect(err([{ entityType: 'group', matchType: 2, match: null }])).toBe("UNSUPPORTED_VERSION: Custom entity type 'group' not supported");
    expect(err([{ entityType: 'ip', matchType: 2, match: null }, { entityType: 'user', matchType: 2, match: null }])).toMatch(/^INVALID_REQUEST: Invalid entity filter component combination/);
    expect(err([{ entityType: 'user', matchType: 7, match: null }])).toBe('Error: Unexpected match type: 7');
  });
});

describe('AlterClientQuotas validation', () => {
  it('parses entities as Kafka (sanitized names, <default>)', () => {
    expect(parseQuotaEntity([{ entityType: 'client-id', entityName: 'a/b' }])).toEqual({ clientId: 'a%2Fb' });
    expect(parseQuotaEntity([{ entityType: 'client-id', entityName: null }])).toEqual({ clientId: '<default>' });
    expect(() => parseQuotaEntity([])).toThrow('Invalid empty client quota entity');
    expect(() => parseQuotaEntity([{ entityType: 'group', entityName: 'g' }])).toThrow('Unhandled client quota entity type: group');
    expect(() => parseQuotaEntity([{ entityType: 'client-id', entityName: '' }])).toThrow('Empty client-id not supported');
  });

  it('sets LONG byte rates, removes keys, refuses unknown, fractional, unapplied and non-positive values', () => {
    const base = new Map([['consumer_byte_rate', '5']]);
    expect(applyQuotaOps(base, [{ key: 'producer_byte_rate', value: 1024, remove: false }, { key: 'consumer_byte_rate', value: 0, remove: true }])).toEqual(new Map([['producer_byte_rate', '1024']]));
    expect(() => applyQuotaOps(base, [{ key: 'bogus', value: 1, remove: false }])).toThrow('Invalid configuration key bogus');
    expect(() => applyQuotaOps(base, [{ key: 'producer_byte_rate', value: 1.5, remove: false }])).toThrow('Configuration producer_byte_rate must be a LONG value');
    expect(() => applyQuotaOps(base, [{ key: 'request_percentage', value: 50, remove: false }])).toThrow(/not supported by this broker; refused: request_percentage/);
    expect(() => applyQuotaOps(base, [{ key: 'consumer_byte_rate', value: 0, remove: false }])).toThrow(/must be a positive value/);
    // Removing an unapplied key is allowed (it cleans up what --zookeeper or an older tool stored).
    expect(applyQuotaOps(new Map([['request_percentage', '5']]), [{ key: 'request_percentage', value: 0, remove: true }])).toEqual(new Map());
  });
});
