import { NetworkClient } from '../client/network-client';
import { CliError } from '../tools/cli';
import { connectToolZk } from '../tools/tool-zk-client';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { watchChildren, watchData } from '../zk/zk-watch';
import { BrokerState, ClusterReader, ZkState } from './cluster-reader';
import { browseMessages } from './message-browser';
import { RefreshLoop } from './refresh-loop';
import { ActionResult, UiActions } from './ui-actions';
import { buildUiBundle, uiBundleIsStale } from './ui-bundle';
import { ApiAnswer, HttpError, UiHttpServer } from './ui-http-server';

export interface KafkaUiOptions {
  zookeeper?: string;
  bootstrapServer?: string;
  port: string;
  host: string;
}

/**
 * How often ZooKeeper is read (the page's freshness for brokers, leaders and ISRs; sooner when a watch fires) and
 * the brokers asked.
 */
const ZK_INTERVAL_MS = 1000;
const BROKER_INTERVAL_MS = 2000;

function portOption(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new CliError(`Invalid value ${text} for option --port: must be a port number (0 to 65535)`);
  return port;
}

function stringField(body: unknown, name: string): string {
  const v = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new HttpError(400, `Missing field ${name}`);
}

function intParam(url: URL, name: string, fallback?: number): number {
  const text = url.searchParams.get(name);
  if (text === null && fallback !== undefined) return fallback;
  if (text === null || !/^-?\d{1,15}$/.test(text)) throw new HttpError(400, `Invalid value ${String(text)} for ${name}`);
  return Number(text);
}

/**
 * kafka-ui: serves the live cluster page. ZooKeeper is read every second, and at once when a watched znode
 * changes (a broker's registration, the controller, ISR changes), and the brokers every two seconds (their
 * offsets, sizes, groups and metrics endpoints) in separate loops, so a dead broker's request timeouts never
 * delay what ZooKeeper already says. Runs until SIGINT or SIGTERM.
 */
export async function runKafkaUi(o: KafkaUiOptions, out: (line: string) => void): Promise<number> {
  if (o.zookeeper === undefined) throw new CliError('Missing required argument "[zookeeper]"');
  const port = portOption(o.port);
  if (uiBundleIsStale()) await buildUiBundle();
  let zk: ZkClient;
  try {
    zk = await connectToolZk(o.zookeeper, 'kafka-ui');
  } catch (err) {
    throw new CliError(`Could not connect to ZooKeeper at ${o.zookeeper}: ${(err as Error).message}`);
  }
  let bootstrap = o.bootstrapServer?.split(',').filter((s) => s !== '');
  if (bootstrap === undefined || bootstrap.length === 0) {
    const registered = await new BrokerRegistryZk(zk).getAllBrokersAndEpochs();
    bootstrap = [...registered.values()].flatMap(({ info }) => info.endpoints.slice(0, 1).map((e) => `${e.host}:${e.port}`));
    if (bootstrap.length === 0) {
      zk.close();
      throw new CliError(`No broker is registered in ZooKeeper at ${o.zookeeper}; give --bootstrap-server`);
    }
  }
  // A short request timeout and no re-sends: the page asks again in two seconds anyway.
  const client = new NetworkClient({ bootstrapServers: bootstrap, clientId: 'kafka-ui', requestTimeoutMs: 3000, retries: 0, metadataMaxAgeMs: 2000 });
  const reader = new ClusterReader(zk, client);
  const actions = new UiActions(zk, client);
  let zkState: ZkState | undefined;
  let brokerState: BrokerState | undefined;

  const api = async (method: string, url: URL, body: unknown): Promise<ApiAnswer> => {
    const route = `${method} ${url.pathname}`;
    if (route === 'GET /api/cluster') {
      if (zkState === undefined) throw new HttpError(503, 'The cluster has not been read yet');
      return { status: 200, body: ClusterReader.snapshot(zkState, brokerState, reader.throughput) };
    }
    if (route === 'GET /api/messages') {
      const topic = url.searchParams.get('topic');
      if (topic === null || topic === '') throw new HttpError(400, 'Missing topic');
      const messages = await browseMessages(client, topic, intParam(url, 'partition'), intParam(url, 'offset', -1), Math.min(500, Math.max(1, intParam(url, 'limit', 50))));
      return { status: 200, body: messages };
    }
    let result: ActionResult | undefined;
    if (route === 'POST /api/topics') result = await actions.createTopic(stringField(body, 'topic'), stringField(body, 'partitions'), stringField(body, 'replicationFactor'));
    if (route === 'POST /api/groups/delete') {
      const kind = stringField(body, 'kind');
      if (kind !== 'zookeeper' && kind !== 'coordinator') throw new HttpError(400, `Invalid group kind ${kind}`);
      result = await actions.deleteGroup(stringField(body, 'group'), kind);
    }
    if (result !== undefined) return { status: result.ok ? 200 : 400, body: result };
    throw new HttpError(404, `No such API: ${route}`);
  };

  const server = new UiHttpServer(o.host, port, api);
  try {
    await server.startup();
  } catch (err) {
    client.close();
    zk.close();
    throw new CliError(`Could not listen on ${o.host}:${port}: ${(err as Error).message}`);
  }
  const zkLoop = new RefreshLoop(async () => {
    zkState = await reader.readZk();
  }, { intervalMs: ZK_INTERVAL_MS });
  const loops = [
    zkLoop,
    new RefreshLoop(async () => {
      if (zkState !== undefined) brokerState = await reader.readBrokers(zkState);
    }, { intervalMs: BROKER_INTERVAL_MS }),
    new RefreshLoop(async () => {
      if (brokerState !== undefined) await reader.sampleMetrics(brokerState.metricsEndpoints);
    }, { intervalMs: ZK_INTERVAL_MS }),
  ];
  // The znodes whose changes the page must follow at once: brokers coming and going, the controller, the ISR
  // changes brokers announce, topics, reassignments. Watches only hurry the ZooKeeper loop, which reads it all.
  const hurry = (): void => zkLoop.hurry();
  const watches = [
    watchChildren(zk, ZkPaths.brokerIds, hurry),
    watchChildren(zk, ZkPaths.topics, hurry),
    watchChildren(zk, ZkPaths.isrChangeNotification, hurry),
    watchData(zk, ZkPaths.controller, hurry),
    watchData(zk, ZkPaths.reassignPartitions, hurry),
  ];
  out(`Serving the cluster page on http://${o.host}:${server.boundPort()}/`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  for (const w of watches) w.close();
  const loopsDone = Promise.all(loops.map((l) => l.stop()));
  await server.shutdown();
  client.close();
  zk.close();
  await Promise.race([loopsDone, new Promise((r) => setTimeout(r, 3000))]);
  return 0;
}
