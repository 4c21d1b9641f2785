import { lazyChild } from './lazy-child';

/**
 * One topic's BrokerTopicMetrics meters (or the broker-wide ones), as plain numbers: the produce and fetch paths
 * add to them once per partition of a request (the record count comes from the batch header, the bytes are the
 * batch's size), and the registry reads them at scrape time.
 */
export class TopicStats {
  messagesIn = 0;
  bytesIn = 0;
  bytesOut = 0;
  bytesRejected = 0;
  failedProduceRequests = 0;
  failedFetchRequests = 0;
  totalProduceRequests = 0;
  totalFetchRequests = 0;
}

/** The meters and their MBean names (kafka.server:type=BrokerTopicMetrics,name=<name>[,topic=<topic>]). */
export const BROKER_TOPIC_METERS: readonly { readonly name: string; readonly field: keyof TopicStats; readonly help: string }[] = [
  { name: 'MessagesInPerSec', field: 'messagesIn', help: 'Messages appended to the log as leader' },
  { name: 'BytesInPerSec', field: 'bytesIn', help: 'Bytes of the record batches produced to this broker' },
  { name: 'BytesOutPerSec', field: 'bytesOut', help: 'Bytes of record batches sent in fetch responses' },
  { name: 'BytesRejectedPerSec', field: 'bytesRejected', help: 'Bytes of produced batches the log refused' },
  { name: 'FailedProduceRequestsPerSec', field: 'failedProduceRequests', help: 'Partition appends that failed' },
  { name: 'FailedFetchRequestsPerSec', field: 'failedFetchRequests', help: 'Partition reads that failed' },
  { name: 'TotalProduceRequestsPerSec', field: 'totalProduceRequests', help: 'Partition appends of produce requests' },
  { name: 'TotalFetchRequestsPerSec', field: 'totalFetchRequests', help: 'Partition reads of fetch requests' },
];

/**
 * Kafka's BrokerTopicStats: the per-topic stats, created on a topic's first request and cached (one map lookup
 * per partition of a request, as Kafka's topicStats pool does), plus the all-topics stats. `forget` drops a
 * deleted topic's series (Kafka's removeMetrics on StopReplica with deletion).
 */
export class BrokerTopicStats {
  readonly allTopics = new TopicStats();
  private readonly topics = new Map<string, TopicStats>();

  topicStats(topic: string): TopicStats {
    return lazyChild(this.topics, topic, newTopicStats, undefined);
  }

  forget(topic: string): void {
    this.topics.delete(topic);
  }

  entries(): IterableIterator<[string, TopicStats]> {
    return this.topics.entries();
  }

  /** A produced batch appended as leader (Kafka's ReplicaManager.appendToLocalLog). */
  recordAppend(topic: string, bytes: number, messages: number): void {
    const t = this.topicStats(topic);
    const all = this.allTopics;
    t.totalProduceRequests++;
    all.totalProduceRequests++;
    t.bytesIn += bytes;
    all.bytesIn += bytes;
    t.messagesIn += messages;
    all.messagesIn += messages;
  }

  /** A partition append that failed; a refused batch's bytes count as rejected, as Kafka's do. */
  recordFailedAppend(topic: string, rejectedBytes: number): void {
    const t = this.topicStats(topic);
    t.totalProduceRequests++;
    this.allTopics.totalProduceRequests++;
    t.failedProduceRequests++;
    this.allTopics.failedProduceRequests++;
    t.bytesRejected += rejectedBytes;
    this.allTopics.bytesRejected += rejectedBytes;
  }

  /** A partition read for a consumer (Kafka's readFromLocalLog, whose bytes out are the fetch response's records). */
  recordRead(topic: string, bytesOut: number, failed: boolean): void {
    const t = this.topicStats(topic);
    t.totalFetchRequests++;
    this.allTopics.totalFetchRequests++;
    t.bytesOut += bytesOut;
    this.allTopics.bytesOut += bytesOut;
    if (failed) {
      t.failedFetchRequests++;
      this.allTopics.failedFetchRequests++;
    }
  }
}

function newTopicStats(): TopicStats {
  return new TopicStats();
}
