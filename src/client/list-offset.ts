import { ErrorCode, isRetriable } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ListOffsetsApi, ListOffsetsPartitionResponse } from '../protocol/apis/list-offsets';
import { authorizationError } from './authorization-error';
import { NetworkClient } from './network-client';

/**
 * ListOffsets of one partition at its leader (-2 earliest, -1 latest, else a timestamp), as a consumer asks:
 * retriable errors, a missing leader and a leader that cannot be reached (a broker just killed, still named by a
 * broker's metadata until its UpdateMetadata arrives) wait for fresh metadata (about five seconds at most), as
 * Kafka's consumer retries its ListOffsets; others throw.
 */
export async function listOffset(client: NetworkClient, tp: TopicPartition, timestamp: number, isolationLevel: 0 | 1 = 0): Promise<ListOffsetsPartitionResponse> {
  for (let attempt = 0; ; attempt++) {
    const md = await client.ensureMetadata([tp.topic]);
    const topicCode = md.topics.get(tp.topic)?.errorCode;
    if (topicCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code) throw authorizationError(topicCode, { topics: [tp.topic] });
    const leader = client.metadata.leaderFor(tp.topic, tp.partition);
    if (leader !== undefined && leader >= 0) {
      let p: ListOffsetsPartitionResponse | undefined;
      try {
        const r = await client.request(
          leader,
          ListOffsetsApi,
          {
            replicaId: -1,
            // 1, read_committed: the latest offset is the LSO.
            isolationLevel,
            topics: [{ name: tp.topic, partitions: [{ partitionIndex: tp.partition, timestamp, maxNumOffsets: 1 }] }],
          },
          // Not the same dead node again: the next attempt asks the metadata who leads now.
          { retries: 0 },
        );
        p = r.topics[0]?.partitions[0];
      } catch (e) {
        if (!(e instanceof KafkaError) || !e.retriable || attempt > 50) throw e;
      }
      if (p !== undefined && p.errorCode === ErrorCode.NONE.code) return p;
      if (p !== undefined && !isRetriable(p.errorCode)) throw authorizationError(p.errorCode, { topics: [tp.topic] });
    }
    if (attempt > 50) throw new KafkaError('LEADER_NOT_AVAILABLE', `No leader for ${tpString(tp)}`);
    await client.clock.sleep(100);
    await client.refreshMetadata([tp.topic]).catch(() => undefined);
  }
}
