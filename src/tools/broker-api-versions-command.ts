import { ErrorCode, errorNameOf } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { ApiVersionsApi, ApiVersionsResponseKey } from '../protocol/apis/api-versions';
import { KAFKA_2_8_APIS, kafkaApiVersion } from '../protocol/kafka-api-versions';
import { CliError } from './cli';
import { AdminClientConfig, adminNetworkClient, javaExceptionName } from './admin-client-config';

/**
 * One API line of Kafka's NodeApiVersions.toString: `Name(key): min to max [usable: v]`, the usable version
 * being the highest both this (Kafka 2.8) client and the node support, or why there is none.
 */
function apiVersionText(v: ApiVersionsResponseKey): string {
  const known = kafkaApiVersion(v.apiKey);
  const range = v.minVersion === v.maxVersion ? `${v.minVersion}` : `${v.minVersion} to ${v.maxVersion}`;
  if (known === undefined) return `UNKNOWN(${v.apiKey}): ${range}`;
  let usable: string;
  if (known.maxVersion < v.minVersion) usable = '[unusable: node too new]';
  else if (v.maxVersion < known.minVersion) usable = '[unusable: node too old]';
  else usable = `[usable: ${Math.min(known.maxVersion, v.maxVersion)}]`;
  return `${known.name}(${known.key}): ${range} ${usable}`;
}

/**
 * Kafka's NodeApiVersions.toString(lineBreaks = true): every API the node lists, and every API a Kafka 2.8
 * ZooKeeper broker serves that it does not list as `Name(key): UNSUPPORTED`, in key order.
 */
export function formatNodeApiVersions(apiKeys: readonly ApiVersionsResponseKey[]): string {
  const lines = new Map<number, string>();
  for (const v of apiKeys) lines.set(v.apiKey, apiVersionText(v));
  for (const a of KAFKA_2_8_APIS) if (!lines.has(a.key)) lines.set(a.key, `${a.name}(${a.key}): UNSUPPORTED`);
  const ordered = [...lines].sort((a, b) => a[0] - b[0]).map(([, text]) => text);
  return `(\n\t${ordered.join(',\n\t')}\n)`;
}

/** Kafka's Node.toString. */
export function formatNode(node: { nodeId: number; host: string; port: number; rack: string | null }): string {
  return `${node.host}:${node.port} (id: ${node.nodeId} rack: ${node.rack ?? 'null'})`;
}

function failureText(err: unknown): string {
  if (err instanceof KafkaError) {
    const name = errorNameOf(err.code) ?? 'UNKNOWN_SERVER_ERROR';
    return `${javaExceptionName(name)}: ${err.message}`;
  }
  return String(err);
}

/**
 * Kafka's BrokerApiVersionsCommand: the cluster's brokers from Metadata, then each broker's ApiVersions,
 * printed as `host:port (id: N rack: R) -> (` ... `)` or `-> ERROR: ...` for a broker that could not be asked.
 */
export async function runBrokerApiVersions(config: AdminClientConfig, out: (text: string) => void): Promise<number> {
  const client = adminNetworkClient(config);
  try {
    await client.refreshMetadata([]).catch((err: unknown) => {
      throw new CliError(`Failed to find brokers to send ApiVersions: ${err instanceof Error ? err.message : String(err)}`);
    });
    const brokers = [...client.metadata.brokers.values()];
    const answers = await Promise.all(
      brokers.map(async (b) => {
        try {
          const response = await client.request(b.nodeId, ApiVersionsApi, { clientSoftwareName: 'kafka-ts', clientSoftwareVersion: '0.1.0' });
          if (response.errorCode !== ErrorCode.NONE.code) throw new KafkaError(errorNameOf(response.errorCode) ?? 'UNKNOWN_SERVER_ERROR');
          return `${formatNode(b)} -> ${formatNodeApiVersions(response.apiKeys)}\n`;
        } catch (err) {
          return `${formatNode(b)} -> ERROR: ${failureText(err)}\n`;
        }
      }),
    );
    for (const a of answers) out(a);
    return 0;
  } finally {
    client.close();
  }
}
