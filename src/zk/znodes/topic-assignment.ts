import { decodeJsonObject, encodeJson, intArray, intField, Json, ZnodeFormatError } from './znode-json';

/**
 * `/brokers/topics/<topic>`: replica assignment, partition ids as string keys, first replica = preferred leader.
 * Written as version 2 (Kafka 2.4-2.7: adding_replicas/removing_replicas during reassignment); 1-3 are read.
 */
export interface TopicAssignment {
  partitions: Map<number, number[]>;
  addingReplicas: Map<number, number[]>;
  removingReplicas: Map<number, number[]>;
}

function toObject(m: Map<number, number[]>): Record<string, number[]> {
  const o: Record<string, number[]> = {};
  for (const [p, replicas] of [...m.entries()].sort((a, b) => a[0] - b[0])) o[String(p)] = replicas;
  return o;
}

function fromObject(path: string, v: unknown, what: string): Map<number, number[]> {
  const m = new Map<number, number[]>();
  if (v === undefined || v === null) return m;
  if (typeof v !== 'object' || Array.isArray(v)) throw new ZnodeFormatError(path, `${what} is not an object`);
  for (const [k, replicas] of Object.entries(v as Json)) {
    if (!/^\d+$/.test(k)) throw new ZnodeFormatError(path, `partition id "${k}" is not a number`);
    m.set(Number(k), intArray(path, replicas, `replicas of partition ${k}`));
  }
  return m;
}

export const TopicAssignmentZNode = {
  encode(a: TopicAssignment): Buffer {
    return encodeJson({
      version: 2,
      partitions: toObject(a.partitions),
      adding_replicas: toObject(a.addingReplicas),
      removing_replicas: toObject(a.removingReplicas),
    });
  },

  decode(path: string, data: Buffer | null): TopicAssignment {
    const o = decodeJsonObject(path, data);
    intField(path, o, 'version');
    return {
      partitions: fromObject(path, o['partitions'], 'partitions'),
      addingReplicas: fromObject(path, o['adding_replicas'], 'adding_replicas'),
      removingReplicas: fromObject(path, o['removing_replicas'], 'removing_replicas'),
    };
  },
};
