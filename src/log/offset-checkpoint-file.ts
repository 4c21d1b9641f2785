import { CheckpointFile } from './checkpoint-file';
import { TopicPartition, tpString } from '../common/topic-partition';

/** One line of an offset checkpoint. */
export interface PartitionOffset {
  readonly topicPartition: TopicPartition;
  readonly offset: number;
}

/**
 * recovery-point-offset-checkpoint, replication-offset-checkpoint and log-start-offset-checkpoint: one
 * `topic partition offset` line per partition (Kafka's OffsetCheckpointFile). Keys of the returned map are
 * `topic-partition` strings.
 */
export class OffsetCheckpointFile {
  private readonly checkpoint: CheckpointFile<PartitionOffset>;

  constructor(readonly file: string) {
    this.checkpoint = new CheckpointFile(file, {
      toLine: (e) => `${e.topicPartition.topic} ${e.topicPartition.partition} ${e.offset}`,
      fromLine: (f) => {
        if (f.length !== 3 || !/^\d+$/.test(f[1] as string) || !/^-?\d+$/.test(f[2] as string)) return undefined;
        return { topicPartition: { topic: f[0] as string, partition: Number(f[1]) }, offset: Number(f[2]) };
      },
    });
  }

  write(offsets: Iterable<PartitionOffset>): void {
    this.checkpoint.write(offsets);
  }

  read(): Map<string, number> {
    const out = new Map<string, number>();
    for (const e of this.checkpoint.read()) out.set(tpString(e.topicPartition), e.offset);
    return out;
  }
}
