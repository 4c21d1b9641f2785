import { TestCluster } from '../../helpers/test-cluster';
import { startZkEnsemble, ZkEnsemble } from '../../helpers/zk-ensemble';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { ErrorCode } from '../../../src/common/error-codes';
import { FetchApi, FetchRequest, FetchResponse } from '../../../src/protocol/apis/fetch';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records';
import { topicsTool } from './replication-helpers';

const TOPIC = 'sessions';

function batch(value: string): Buffer {
  return new RecordBatchBuilder().append({ value: Buffer.from(value), timestamp: Date.now() }).build();
}

/** KIP-227 against real brokers: a fetcher's session, and followers replicating through theirs. */
describe('incremental fetch sessions', () => {
  let ensemble: ZkEnsemble;
  let cluster: TestCluster;
  let conn: BrokerConnection;

  const fetch = (sessionId: number, sessionEpoch: number, partitions: number[], offsets: number[] = [], forgotten: number[] = []): Promise<FetchResponse> => {
    const request: FetchRequest = {
      replicaId: -1,
      maxWaitMs: 200,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId,
      sessionEpoch,
      topics: partitions.length === 0 ? [] : [{ topic: TOPIC, partitions: partitions.map((p, i) => ({ partition: p, currentLeaderEpoch: -1, fetchOffset: offsets[i] ?? 0, logStartOffset: -1, partitionMaxBytes: 1 << 16 })) }],
      forgottenTopicsData: forgotten.length === 0 ? [] : [{ topic: TOPIC, partitions: forgotten }],
      rackId: '',
    };
    return conn.send(FetchApi, request, { version: 11 });
  };
  const answered = (r: FetchResponse): number[] => r.responses.flatMap((t) => t.partitionResponses.map((p) => p.partition)).sort();
  const produce = async (partition: number, value: string, acks = -1): Promise<number> => {
    const r = await conn.send(ProduceApi, { transactionalId: null, acks, timeoutMs: 10000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records: batch(value) }] }] });
    return r.responses[0]?.partitionResponses[0]?.errorCode ?? -1;
  };

  beforeAll(async () => {
    ensemble = await startZkEnsemble({ size: 3 });
    cluster = await TestCluster.start({ brokers: 3, ensemble, props: { 'min.insync.replicas': '3' } });
    const leader = await cluster.waitForController();
    const others = [0, 1, 2].filter((b) => b !== leader);
    // Every partition led by one broker, so one connection fetches them all.
    const assignment = [0, 1, 2].map(() => [leader, ...others].join(':')).join(',');
    expect((await topicsTool(cluster, '--create', '--topic', TOPIC, '--replica-assignment', assignment)).code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 3);
    conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(leader).port, requestTimeoutMs: 20000 });
    await conn.connect();
  }, 120000);

  afterAll(async () => {
    conn?.close();
    await cluster?.close();
    await ensemble?.close();
  });

  it('replicates through follower sessions: acks=all with min.insync.replicas=3 needs both followers', async () => {
    // The followers have fetched (full, then incremental) since the topic was created.
    for (let i = 0; i < 20; i++) expect(await produce(i % 3, `all-${i}`)).toBe(ErrorCode.NONE.code);
  }, 60000);

  it('opens a session on a full fetch, then answers only partitions with news', async () => {
    const full = await fetch(0, 0, [0, 1, 2]);
    expect(full.errorCode).toBe(ErrorCode.NONE.code);
    expect(full.sessionId).toBeGreaterThan(0);
    expect(answered(full)).toEqual([0, 1, 2]);
    const ends = new Map(full.responses[0]!.partitionResponses.map((p) => [p.partition, p.highWatermark]));
    const id = full.sessionId;

    // Fetch offsets move to the ends: news for all three (the offsets changed, nothing to read).
    const moved = await fetch(id, 1, [0, 1, 2], [0, 1, 2].map((p) => ends.get(p) ?? 0));
    expect(moved).toMatchObject({ errorCode: 0, sessionId: id });
    // Nothing new anywhere: the answer names no partition, after waiting maxWaitMs.
    expect(answered(await fetch(id, 2, []))).toEqual([]);

    expect(await produce(1, 'news')).toBe(ErrorCode.NONE.code);
    const news = await fetch(id, 3, []);
    expect(answered(news)).toEqual([1]);
    expect(news.responses[0]!.partitionResponses[0]!.highWatermark).toBe((ends.get(1) ?? 0) + 1);

    // Forgetting partition 1 leaves 0 and 2 in the session; a repeated epoch and an unknown id are refused.
    expect((await fetch(id, 4, [], [], [1])).errorCode).toBe(ErrorCode.NONE.code);
    expect((await fetch(id, 4, [])).errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH.code);
    expect((await fetch(id + 1, 1, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code);
    // Epoch -1 closes it: a sessionless answer, and the session is gone.
    const closing = await fetch(id, -1, [0], [ends.get(0) ?? 0]);
    expect(closing).toMatchObject({ errorCode: 0, sessionId: 0 });
    expect((await fetch(id, 5, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code);
  }, 60000);
});
