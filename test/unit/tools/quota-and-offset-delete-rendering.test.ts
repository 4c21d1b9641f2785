import { formatQuotaEntries, parseJavaDouble } from '../../../src/tools/config-command';
import { formatDeleteOffsetsRow } from '../../../src/tools/consumer-groups-command';
import { javaDouble, javaHashMapOrder, javaStringHash } from '../../../src/tools/java-rendering';

describe('Java renderings of the quota tools', () => {
  it("javaDouble is Java's Double.toString", () => {
    expect(javaDouble(1024)).toBe('1024.0');
    expect(javaDouble(0.5)).toBe('0.5');
    expect(javaDouble(1e7)).toBe('1.0E7');
    expect(javaDouble(12345678)).toBe('1.2345678E7');
    expect(javaDouble(0.0001)).toBe('1.0E-4');
    expect(javaDouble(9223372036854775807)).toBe('9.223372036854776E18');
  });

  it('javaHashMapOrder walks buckets as java.util.HashMap does (orders checked against a JVM)', () => {
    expect(javaHashMapOrder(['producer_byte_rate', 'consumer_byte_rate'], javaStringHash, 2)).toEqual(['consumer_byte_rate', 'producer_byte_rate']);
    expect(javaHashMapOrder(['consumer_byte_rate', 'producer_byte_rate'], javaStringHash, 2)).toEqual(['consumer_byte_rate', 'producer_byte_rate']);
    expect(javaHashMapOrder(['request_percentage', 'producer_byte_rate', 'controller_mutation_rate', 'consumer_byte_rate'], javaStringHash, 4)).toEqual([
      'producer_byte_rate',
      'consumer_byte_rate',
      'controller_mutation_rate',
      'request_percentage',
    ]);
  });

  it('parseJavaDouble accepts what Double.parseDouble does', () => {
    expect(parseJavaDouble(' 1024 ')).toBe(1024);
    expect(parseJavaDouble('1e3')).toBe(1000);
    expect(parseJavaDouble('10d')).toBe(10);
    expect(parseJavaDouble('ten')).toBeUndefined();
  });

  it("formats ConfigCommand's quota lines", () => {
    expect(formatQuotaEntries([{ entity: [{ entityType: 'client-id', entityName: 'c' }], values: [{ key: 'producer_byte_rate', value: 1024 }] }])).toEqual([
      "Quota configs for client-id 'c' are producer_byte_rate=1024.0",
    ]);
    expect(formatQuotaEntries([{ entity: [{ entityType: 'client-id', entityName: null }, { entityType: 'user', entityName: 'u' }], values: [{ key: 'consumer_byte_rate', value: 1 }] }])).toEqual([
      "Quota configs for user-principal 'u', the default client-id are consumer_byte_rate=1.0",
    ]);
    const two = formatQuotaEntries([{ entity: [{ entityType: 'client-id', entityName: 'c' }], values: [{ key: 'producer_byte_rate', value: 1 }, { key: 'consumer_byte_rate', value: 2 }] }]);
    expect(two).toEqual(["Quota configs for client-id 'c' are consumer_byte_rate=2.0, producer_byte_rate=1.0"]);
  });

  it("formats --delete-offsets rows as Kafka's %-30s %-15s %-15s", () => {
    expect(formatDeleteOffsetsRow('TOPIC', 'PARTITION', 'STATUS')).toBe(`${'TOPIC'.padEnd(30)} ${'PARTITION'.padEnd(15)} ${'STATUS'.padEnd(15)}`);
    expect(formatDeleteOffsetsRow('t', '0', 'Successful')).toBe(`t${' '.repeat(29)} 0${' '.repeat(14)} Successful     `);
  });
});
