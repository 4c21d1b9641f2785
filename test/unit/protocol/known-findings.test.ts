import { CreateTopicsApi } from '../../../src/protocol/apis/create-topics';
import { knownFinding } from '../../helpers/known-findings';
import { encodeRequestFrame } from '../../helpers/structured-fuzz';

const createTopics = (numPartitions: number): Buffer =>
  encodeRequestFrame(CreateTopicsApi as never, 2, 1, 'x', { topics: [{ name: 't', numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });

describe('known findings the fuzz runs skip', () => {
  it('F1 is fixed: the CreateTopics frame the fuzzer found (numPartitions 2^31-1) is sent, and refused by the broker', () => {
    const found = Buffer.from('0013000200000003000f636f6e666c75656e742d6b61666b610000000100066361702d636b7fffffff000100000000000000000000138800', 'hex');
    expect(knownFinding(found)).toBeUndefined();
    expect(knownFinding(createTopics(4_000_000))).toBeUndefined();
  });

  it('C1: valid but costly topics of 1,001 to 100,000 partitions; nothing for ordinary requests or undecodable frames', () => {
    expect(knownFinding(createTopics(100_000))?.id).toBe('C1');
    expect(knownFinding(createTopics(1000))).toBeUndefined();
    expect(knownFinding(createTopics(-1))).toBeUndefined();
    expect(knownFinding(createTopics(3).subarray(0, 20))).toBeUndefined();
    expect(knownFinding(Buffer.from('0003000000000001ffff00000000', 'hex'))).toBeUndefined();
  });
});
