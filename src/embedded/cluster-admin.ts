import { BrokerConnection } from '../client/broker-connection';
import { errorName } from '../common/error-codes';
import { CreateTopicsApi } from '../protocol/apis/create-topics';
import { MetadataApi, MetadataResponse } from '../protocol/apis/metadata';

export interface TopicSpec {
  partitions: number;
  replicationFactor: number;
  config: Readonly<Record<string, string | number | boolean>>;
}

/**
 * The few admin requests an embedded cluster makes of its own brokers, through the project's client: Metadata
 * (is the cluster ready, where is the controller, has a topic its leaders) and CreateTopics (sent to the
 * controller, as Kafka 2.8 requires).
 */
export class ClusterAdmin {
  constructor(private readonly host: string) {}

  async metadata(port: number, topics: string[] | null = []): Promise<MetadataResponse> {
    return this.withConnection(port, (conn) =>
      conn.send(MetadataApi, { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation: false }, { version: 1 }),
    );
  }

  /** CreateTopics v4 to the controller; resolves once the controller accepted it (leaders come a moment later). */
  async createTopic(controllerPort: number, name: string, spec: TopicSpec, timeoutMs: number): Promise<void> {
    const configs = Object.entries(spec.config).map(([key, value]) => ({ name: key, value: String(value) }));
    const response = await this.withConnection(controllerPort, (conn) =>
      conn.send(
        CreateTopicsApi,
        { topics: [{ name, numPartitions: spec.partitions, replicationFactor: spec.replicationFactor, assignments: [], configs }], timeoutMs, validateOnly: false },
        { version: 4, timeoutMs: timeoutMs + 5000 },
      ),
    );
    const result = response.topics.find((t) => t.name === name);
    if (result === undefined) throw new Error(`createTopic ${name}: the controller's response does not mention the topic`);
    if (result.errorCode !== 0) throw new Error(`createTopic ${name}: ${errorName(result.errorCode)}${result.errorMessage ? `: ${result.errorMessage}` : ''}`);
  }

  private async withConnection<T>(port: number, use: (conn: BrokerConnection) => Promise<T>): Promise<T> {
    const conn = new BrokerConnection({ host: this.host, port, clientId: 'kafka-ts-embedded', requestTimeoutMs: 30000 });
    try {
      await conn.connect();
      return await use(conn);
    } finally {
      conn.close();
    }
  }
}
