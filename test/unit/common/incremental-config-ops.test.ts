import { applyIncrementalConfigOps, checkConfigOps, ConfigOp, OP_APPEND, OP_DELETE, OP_SET, OP_SUBTRACT } from '../../../src/common/config/incremental-config-ops';
import { ConfigException } from '../../../src/common/config/config-def';
import { validateLogConfig } from '../../../src/common/config/log-config';
import { KafkaError } from '../../../src/common/kafka-error';

const op = (name: string, o: number, value: string | null): ConfigOp => ({ name, op: o, value });

function thrown(f: () => unknown): KafkaError {
  try {
    f();
  } catch (e) {
    return e as KafkaError;
  }
  throw new Error('did not throw');
}

describe("IncrementalAlterConfigs' operations (ZkAdminManager.prepareIncrementalConfigs)", () => {
  const stored = new Map([['retention.ms', '1000'], ['segment.bytes', '1048576']]);

  it('SET sets and DELETE removes, in order, on a copy of the stored overrides', () => {
    const result = applyIncrementalConfigOps(stored, [op('retention.ms', OP_SET, '2000'), op('segment.bytes', OP_DELETE, null), op('max.message.bytes', OP_SET, '5000')]);
    expect([...result]).toEqual([['retention.ms', '2000'], ['max.message.bytes', '5000']]);
    expect(stored.get('segment.bytes')).toBe('1048576');
  });

  it('DELETE of a key that is not set is no error', () => {
    expect([...applyIncrementalConfigOps(new Map(), [op('retention.ms', OP_DELETE, null)])]).toEqual([]);
  });

  it('APPEND adds to the stored list, or to the default (cleanup.policy=delete)', () => {
    expect(applyIncrementalConfigOps(new Map(), [op('cleanup.policy', OP_APPEND, 'compact')]).get('cleanup.policy')).toBe('delete,compact');
    expect(applyIncrementalConfigOps(new Map([['cleanup.policy', 'compact']]), [op('cleanup.policy', OP_APPEND, 'delete')]).get('cleanup.policy')).toBe('compact,delete');
  });

  it('SUBTRACT removes one occurrence per value, from the stored list or the default', () => {
    expect(applyIncrementalConfigOps(new Map([['cleanup.policy', 'compact,delete']]), [op('cleanup.policy', OP_SUBTRACT, 'delete')]).get('cleanup.policy')).toBe('compact');
    expect(applyIncrementalConfigOps(new Map(), [op('cleanup.policy', OP_SUBTRACT, 'delete')]).get('cleanup.policy')).toBe('');
    expect(applyIncrementalConfigOps(new Map([['cleanup.policy', 'delete,delete,compact']]), [op('cleanup.policy', OP_SUBTRACT, 'delete')]).get('cleanup.policy')).toBe('delete,compact');
  });

  it('APPEND/SUBTRACT of a non-list key is INVALID_REQUEST, of an unknown key INVALID_CONFIG', () => {
    const append = thrown(() => applyIncrementalConfigOps(stored, [op('retention.ms', OP_APPEND, '1')]));
    expect([append.errorName, append.message]).toEqual(['INVALID_REQUEST', 'Config value append is not allowed for config key: retention.ms']);
    const subtract = thrown(() => applyIncrementalConfigOps(stored, [op('retention.ms', OP_SUBTRACT, '1')]));
    expect([subtract.errorName, subtract.message]).toEqual(['INVALID_REQUEST', 'Config value subtract is not allowed for config key: retention.ms']);
    const unknown = thrown(() => applyIncrementalConfigOps(stored, [op('no.such.key', OP_APPEND, '1')]));
    expect([unknown.errorName, unknown.message]).toEqual(['INVALID_CONFIG', 'Unknown topic config name: no.such.key']);
  });

  it('checkConfigOps: duplicate keys, then null values except for DELETE, then unknown operations', () => {
    const dup = thrown(() => checkConfigOps([op('a', OP_SET, '1'), op('a', OP_DELETE, null), op('b', OP_SET, null)]));
    expect([dup.errorName, dup.message]).toEqual(['INVALID_REQUEST', 'Error due to duplicate config keys : a']);
    const nulls = thrown(() => checkConfigOps([op('a', OP_SET, null), op('b', OP_DELETE, null), op('c', OP_APPEND, null)]));
    expect([nulls.errorName, nulls.message]).toEqual(['INVALID_REQUEST', 'Null value not supported for : SET:a,APPEND:c']);
    expect(thrown(() => checkConfigOps([op('a', 7, 'x')])).errorName).toBe('INVALID_REQUEST');
    expect(() => checkConfigOps([op('a', OP_SET, '1'), op('b', OP_DELETE, null)])).not.toThrow();
  });
});

describe('validateLogConfig (LogConfig.validate)', () => {
  it('refuses unknown keys with INVALID_CONFIG, bad values with the ConfigException message', () => {
    const unknown = thrown(() => validateLogConfig(new Map([['no.such.key', '1']])));
    expect([unknown.errorName, unknown.message]).toEqual(['INVALID_CONFIG', 'Unknown topic config name: no.such.key']);
    const bad = thrown(() => validateLogConfig(new Map([['retention.ms', 'abc']])));
    expect(bad).toBeInstanceOf(ConfigException);
    expect(bad.message).toBe('Invalid value abc for configuration retention.ms: Not a number of type LONG');
    expect(thrown(() => validateLogConfig(new Map([['min.insync.replicas', '0']]))).message).toBe('Invalid value 0 for configuration min.insync.replicas: Value must be at least 1');
  });

  it('refuses min.compaction.lag.ms above max.compaction.lag.ms', () => {
    const e = thrown(() => validateLogConfig(new Map([['min.compaction.lag.ms', '10'], ['max.compaction.lag.ms', '5']])));
    expect([e.errorName, e.message]).toEqual(['INVALID_CONFIG', 'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)']);
  });

  it('accepts a valid set', () => {
    expect(() => validateLogConfig(new Map([['retention.ms', '1000'], ['cleanup.policy', 'compact,delete']]))).not.toThrow();
  });
});
