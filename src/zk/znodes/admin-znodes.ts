import { decodeJsonObject, encodeJson, intArray, intField, Json, ZnodeFormatError } from './znode-json';

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

function partitionRef(path: string, v: unknown): Json & TopicPartitionRef {
  if (typeof v !== 'object' || v === null) throw new ZnodeFormatError(path, 'partition entry is not an object');
  const o = v as Json;
  if (typeof o['topic'] !== 'string') throw new ZnodeFormatError(path, 'partition entry has no topic');
  return { ...o, topic: o['topic'], partition: intField(path, o, 'partition') };
}

function partitionList(path: string, data: Buffer | null): (Json & TopicPartitionRef)[] {
  const o = decodeJsonObject(path, data);
  const list = o['partitions'];
  if (!Array.isArray(list)) throw new ZnodeFormatError(path, 'field "partitions" is not a list');
  return list.map((p) => partitionRef(path, p));
}

/**
 * `/admin/preferred_replica_election`, `/isr_change_notification/isr_change_<seq>`: a list of partitions,
 * `{"version":1,"partitions":[{"topic":"orders","partition":0}]}`.
 */
export const PartitionListZNode = {
  encode(partitions: readonly TopicPartitionRef[]): Buffer {
    return encodeJson({ version: 1, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition })) });
  },
  decode(path: string, data: Buffer | null): TopicPartitionRef[] {
    return partitionList(path, data).map((p) => ({ topic: p.topic, partition: p.partition }));
  },
};

export interface PartitionReassignment extends TopicPartitionRef {
  replicas: number[];
  logDirs?: string[];
}

/** `/admin/reassign_partitions`: `{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[3,1,2]}]}`. */
export const ReassignPartitionsZNode = {
  encode(partitions: readonly PartitionReassignment[]): Buffer {
    return encodeJson({
      version: 1,
      partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })),
    });
  },
  decode(path: string, data: Buffer | null): PartitionReassignment[] {
    return partitionList(path, data).map((p) => {
      const r: PartitionReassignment = { topic: p.topic, partition: p.partition, replicas: intArray(path, p['replicas'], 'replicas') };
      if (Array.isArray(p['log_dirs'])) r.logDirs = (p['log_dirs'] as unknown[]).map(String);
      return r;
    });
  },
};

/** `/log_dir_event_notification/log_dir_event_<seq>`: `{"version":1,"broker":2,"event":1}`; 1 = LogDirFailure. */
export const LogDirEventZNode = {
  encode(brokerId: number): Buffer {
    return encodeJson({ version: 1, broker: brokerId, event: 1 });
  },
  decode(path: string, data: Buffer | null): { brokerId: number; event: number } {
    const o = decodeJsonObject(path, data);
    return { brokerId: intField(path, o, 'broker'), event: intField(path, o, 'event') };
  },
};
