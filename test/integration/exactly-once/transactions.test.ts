import * as path from 'node:path';
import { Kafka, logLevel, Producer } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { FindCoordinatorApi } from '../../../src/protocol/apis/find-coordinator';
import { OffsetCommitApi } from '../../../src/protocol/apis/offset-commit';
import { OffsetFetchApi, OffsetFetchResponsePartition } from '../../../src/protocol/apis/offset-fetch';
import { runTool } from '../../helpers/run-tool';
import { runChild } from '../protocol/run-child';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/*
 * The transaction coordinator with kafkajs 2.2.4's transactional producer on 3 brokers: FindCoordinator finds it,
 * `__transaction_state` is created with its configs, commits and aborts leave markers in the data logs, offsets
 * sent in a transaction reach ZooKeeper only on commit, a zombie is fenced, an open transaction past its timeout
 * is aborted, librdkafka (confluent-kafka) commits and aborts too, group offsets (leader epoch, metadata and
 * transactional ones) survive a SIGKILL of the group coordinator through `__consumer_offsets`, and a commit whose
 * coordinator is SIGKILLed after EndTxn is completed by the next coordinator.
 */
const PROPS = {
  'transaction.state.log.num.partitions': '4',
  'offsets.topic.num.partitions': '4',
  'offsets.topic.replication.factor': '3',
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': '500',
  'replica.lag.time.max.ms': '3000',
};

describe('transactions with kafkajs and confluent-kafka on 3 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  const producers: Producer[] = [];

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: PROPS });
    kafka = new Kafka({ clientId: 'txn-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
  }, 180000);

  afterAll(async () => {
    for (const p of producers) await p.disconnect().catch(() => undefined);
    await cluster?.close();
  });

  function producer(transactionalId: string, transactionTimeout = 60000): Producer {
    const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout });
    producers.push(p);
    return p;
  }

  async function createTopic(topic: string, assignment: string): Promise<void> {
    const r = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--replica-assignment', assignment]);
    if (r.code !== 0) throw new Error(`kafka-topics failed: ${r.output}`);
    await cluster.waitForLeaders(topic, assignment.split(',').length);
  }

  /** kafka-dump-log --deep-iteration of the first segment of `topic-partition` on `brokerId`. */
  async function dumpLog(brokerId: number, topic: string, partition: number, ...extra: string[]): Promise<string> {
    const file = path.join(cluster.broker(brokerId).logDirs[0]!, `${topic}-${partition}`, '00000000000000000000.log');
    const r = await runTool('kafka-dump-log', ['--files', file, '--deep-iteration', ...extra]);
    return r.output;
  }

  async function coordinatorOf(transactionalId: string, keyType = 1): Promise<number> {
    return waitUntil(
      async () => {
        const [host, port] = cluster.bootstrap.split(',')[0]!.split(':') as [string, string];
        const c = new BrokerConnection({ host, port: Number(port) });
        try {
          const r = await c.send(FindCoordinatorApi, { key: transactionalId, keyType }, { version: 2 });
          return r.errorCode === 0 ? r.nodeId + 1 : undefined;
        } finally {
          c.close();
        }
      },
      { timeoutMs: 30000, message: `a coordinator for ${transactionalId}` },
    ).then((id) => id - 1);
  }

  it('commits and aborts: markers in the log, __transaction_state with its configs, offsets only on commit', async () => {
    await createTopic('txt', '0:1:2');
    const p = producer('tx-commit');
    await p.connect();
    const committed = await p.transaction();
    await committed.send({ topic: 'txt', messages: [{ value: 'c1' }, { value: 'c2' }] });
    await committed.commit();

    const config = await cluster.zk.getData(`${cluster.chroot}/config/topics/__transaction_state`);
    expect(JSON.parse(config!.data!.toString()).config).toEqual({
      'compression.type': 'uncompressed',
      'cleanup.policy': 'compact',
      'min.insync.replicas': '2',
      'segment.bytes': '104857600',
      'unclean.leader.election.enable': 'false',
    });
    const partitions = await cluster.zk.getChildren(`${cluster.chroot}/brokers/topics/__transaction_state/partitions`);
    expect(partitions?.length).toBe(4);

    const aborted = await p.transaction();
    await aborted.send({ topic: 'txt', messages: [{ value: 'a1' }] });
    await aborted.sendOffsets({ consumerGroupId: 'txn-group', topics: [{ topic: 'txt', partitions: [{ partition: 0, offset: '2' }] }] });
    // While the offset is pending, OffsetFetch v7 with require_stable answers UNSTABLE_OFFSET_COMMIT (88).
    const groupCoordinator = cluster.broker(await coordinatorOf('txn-group', 0));
    const conn = new BrokerConnection({ host: '127.0.0.1', port: groupCoordinator.port });
    try {
      const fetch = (requireStable: boolean) => conn.send(OffsetFetchApi, { groupId: 'txn-group', topics: [{ name: 'txt', partitionIndexes: [0] }], requireStable }, { version: 7 });
      expect((await fetch(true)).topics[0]!.partitions[0]).toMatchObject({ errorCode: 88, committedOffset: -1 });
      expect((await fetch(false)).topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, committedOffset: -1 });
    } finally {
      conn.close();
    }
    await aborted.abort();

    const third = await p.transaction();
    await third.send({ topic: 'txt', messages: [{ value: 'c3' }] });
    await third.sendOffsets({ consumerGroupId: 'txn-group', topics: [{ topic: 'txt', partitions: [{ partition: 0, offset: '5' }] }] });
    await third.commit();

    const leader = (await cluster.partitionState('txt', 0))!.leader;
    const dump = await waitUntil(
      async () => {
        const out = await dumpLog(leader, 'txt', 0);
        return (out.match(/endTxnMarker: /g) ?? []).length >= 3 ? out : undefined;
      },
      { timeoutMs: 30000, message: 'three markers in txt-0' },
    );
    const markers = [...dump.matchAll(/endTxnMarker: (COMMIT|ABORT) coordinatorEpoch: (\d+)/g)].map((m) => m[1]);
    expect(markers).toEqual(['COMMIT', 'ABORT', 'COMMIT']);
    expect(dump).toMatch(/isTransactional: true isControl: true/);
    // The aborted offset never reached ZooKeeper; the committed one did once its marker reached the group's partition.
    await waitUntil(async () => (await cluster.zk.getData(`${cluster.chroot}/consumers/txn-group/offsets/txt/0`))?.data?.toString() === '5', {
      timeoutMs: 30000,
      message: 'the committed transactional offset in ZooKeeper',
    });

    // The coordinator's records, read with Kafka's decoder.
    const coordinator = await coordinatorOf('tx-commit');
    const txnPartitions = await Promise.all([0, 1, 2, 3].map((i) => dumpLog(coordinator, '__transaction_state', i, '--transaction-log-decoder').catch(() => '')));
    const txnLog = txnPartitions.find((out) => out.includes('transactionalId=tx-commit')) ?? '';
    expect(txnLog).toMatch(/key: transaction_metadata::transactionalId=tx-commit payload: producerId:\d+,producerEpoch:0,state=Ongoing,partitions=\[txt-0\]/);
    expect(txnLog).toMatch(/state=PrepareCommit/);
    expect(txnLog).toMatch(/state=CompleteAbort,partitions=\[\]/);
  }, 120000);

  it('fences a zombie: a second producer with the same transactional id aborts the first one\'s transaction', async () => {
    const zombie = producer('tx-zombie');
    await zombie.connect();
    const open = await zombie.transaction();
    await open.send({ topic: 'txt', messages: [{ value: 'zombie' }] });
    const successor = producer('tx-zombie');
    await successor.connect();
    // kafkajs sends InitProducerId when the first transaction begins: that fences the zombie.
    const t = await successor.transaction();
    await expect(open.commit()).rejects.toMatchObject({ type: expect.stringMatching(/INVALID_PRODUCER_EPOCH|PRODUCER_FENCED/) });
    await t.send({ topic: 'txt', messages: [{ value: 'successor' }] });
    await t.commit();
    // After the first test's three markers: the zombie's transaction aborted, then the successor's committed.
    const leader = (await cluster.partitionState('txt', 0))!.leader;
    const markers = await waitUntil(
      async () => {
        const found = [...(await dumpLog(leader, 'txt', 0)).matchAll(/endTxnMarker: (COMMIT|ABORT)/g)].map((m) => m[1]);
        return found.length >= 5 ? found : undefined;
      },
      { timeoutMs: 30000, message: 'five markers in txt-0' },
    );
    expect(markers.slice(3)).toEqual(['ABORT', 'COMMIT']);
  }, 120000);

  it('aborts a transaction left open past its timeout', async () => {
    await createTopic('tto', '1');
    const p = producer('tx-timeout', 1500);
    await p.connect();
    const open = await p.transaction();
    await open.send({ topic: 'tto', messages: [{ value: 'never committed' }] });
    await waitUntil(async () => /endTxnMarker: ABORT/.test(await dumpLog(1, 'tto', 0)), { timeoutMs: 30000, message: 'an ABORT marker in tto-0' });
    await expect(open.commit()).rejects.toMatchObject({ type: expect.stringMatching(/INVALID_PRODUCER_EPOCH|PRODUCER_FENCED/) });
  }, 120000);

  it('serves librdkafka (confluent-kafka) transactions: init, commit, abort', async () => {
    await createTopic('tck', '2');
    const script = [
      'import sys',
      'from confluent_kafka import Producer',
      "p = Producer({'bootstrap.servers': sys.argv[1], 'transactional.id': 'tx-rdkafka', 'enable.idempotence': True})",
      'p.init_transactions(60)',
      'p.begin_transaction()',
      "p.produce('tck', b'committed')",
      'p.commit_transaction(60)',
      'p.begin_transaction()',
      "p.produce('tck', b'aborted')",
      // Delivered first: librdkafka sends no EndTxn for a transaction that never added a partition.
      'p.flush(60)',
      'p.abort_transaction(60)',
      "print('done')",
    ].join('\n');
    const r = await runChild('/usr/bin/python3', ['-c', script, cluster.bootstrap], { timeoutMs: 90000 });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('done');
    let last = '';
    const markers = await waitUntil(
      async () => {
        last = await dumpLog(2, 'tck', 0);
        const found = [...last.matchAll(/endTxnMarker: (COMMIT|ABORT)/g)].map((m) => m[1]);
        return found.length >= 2 ? found : undefined;
      },
      { timeoutMs: 30000, message: () => `two markers in tck-0, the log has:\n${last}` },
    );
    expect(markers).toEqual(['COMMIT', 'ABORT']);
  }, 120000);

  it('keeps group offsets in __consumer_offsets: epoch and metadata, and transactional ones, across a SIGKILL of the group coordinator', async () => {
    const group = 'tof-group';
    await createTopic('tof', '0:1:2,1:2:0,2:0:1');
    const groupCoordinator = await coordinatorOf(group, 0);
    const live = [0, 1, 2].find((id) => id !== groupCoordinator)!;
    /** One OffsetFetch v7 at the group's current coordinator, found through a broker that stays up. */
    const fetchOffsets = async (requireStable = false): Promise<OffsetFetchResponsePartition[] | undefined> => {
      const find = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(live).port });
      try {
        const c = await find.send(FindCoordinatorApi, { key: group, keyType: 0 }, { version: 2 });
        if (c.errorCode !== 0) return undefined;
        const conn = new BrokerConnection({ host: '127.0.0.1', port: c.port });
        try {
          const r = await conn.send(OffsetFetchApi, { groupId: group, topics: [{ name: 'tof', partitionIndexes: [0, 1, 2] }], requireStable }, { version: 7 });
          return r.errorCode === 0 ? r.topics[0]!.partitions : undefined;
        } finally {
          conn.close();
        }
      } catch {
        return undefined;
      } finally {
        find.close();
      }
    };
    const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(groupCoordinator).port });
    try {
      const r = await conn.send(OffsetCommitApi, { groupId: group, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: [{ name: 'tof', partitions: [{ partitionIndex: 0, committedOffset: 3, committedLeaderEpoch: 7, commitTimestamp: -1, committedMetadata: 'm' }] }] }, { version: 8 });
      expect(r.topics[0]!.partitions[0]!.errorCode).toBe(0);
    } finally {
      conn.close();
    }
    expect((await fetchOffsets())?.[0]).toMatchObject({ committedOffset: 3, committedLeaderEpoch: 7, metadata: 'm', errorCode: 0 });

    // Two transactions coordinated elsewhere send offsets of the group, then its coordinator dies before either ends.
    const ids: string[] = [];
    for (let i = 0; ids.length < 2; i++) if ((await coordinatorOf(`tof-txn-${i}`)) !== groupCoordinator) ids.push(`tof-txn-${i}`);
    const [toCommit, toAbort] = await Promise.all(
      ids.map(async (id, i) => {
        const p = producer(id);
        await p.connect();
        const t = await p.transaction();
        await t.send({ topic: 'tof', messages: [{ value: id }] });
        await t.sendOffsets({ consumerGroupId: group, topics: [{ topic: 'tof', partitions: [{ partition: i + 1, offset: String(11 * (i + 1)) }] }] });
        return t;
      }),
    );
    await cluster.broker(groupCoordinator).child.stop({ signal: 'SIGKILL' });
    // The new coordinator loaded both transactional batches: pending again, so require_stable is refused.
    const unstable = await waitUntil(async () => {
      const parts = await fetchOffsets(true);
      return parts !== undefined && parts[1]!.errorCode === 88 && parts[2]!.errorCode === 88 ? parts : undefined;
    }, { timeoutMs: 60000, message: 'the transactional offsets pending at the new coordinator' });
    expect(unstable[0]).toMatchObject({ committedOffset: 3, committedLeaderEpoch: 7, metadata: 'm', errorCode: 0 });
    await toCommit!.commit();
    await toAbort!.abort();
    const zkOffset = async (p: number): Promise<string | undefined> => (await cluster.zk.getData(`${cluster.chroot}/consumers/${group}/offsets/tof/${p}`))?.data?.toString();
    await waitUntil(async () => (await zkOffset(1)) === '11', { timeoutMs: 60000, message: 'the committed transactional offset in ZooKeeper' });
    const settled = await waitUntil(async () => {
      const parts = await fetchOffsets(true);
      return parts?.every((p) => p.errorCode === 0) === true ? parts : undefined;
    }, { timeoutMs: 30000, message: 'no offset pending once both transactions ended' });
    expect(settled.map((p) => p.committedOffset)).toEqual([3, 11, -1]);
    expect(await zkOffset(2)).toBeUndefined();

    // The killed broker comes back: whoever leads the group's partition still answers the epoch and metadata.
    await cluster.startBroker(groupCoordinator);
    await cluster.waitForBrokerInMetadata(groupCoordinator);
    await waitUntil(async () => (await fetchOffsets())?.[0]?.committedLeaderEpoch === 7, { timeoutMs: 30000, message: 'epoch 7 after the restart' });
    expect((await fetchOffsets())?.[0]).toMatchObject({ committedOffset: 3, committedLeaderEpoch: 7, metadata: 'm' });
    expect(await zkOffset(2)).toBeUndefined();
    // Kafka's decoder reads the records: the plain commit, and the transactional ones in batches of their producers.
    const dumps = await Promise.all([0, 1, 2, 3].map((i) => dumpLog(live, '__consumer_offsets', i, '--offsets-decoder').catch(() => '')));
    const offsetsLog = dumps.find((d) => d.includes(`group=${group}`)) ?? '';
    expect(offsetsLog).toMatch(/key: offset_commit::group=tof-group,partition=tof-0 payload: offset=3,metadata=m/);
    expect(offsetsLog).toMatch(/isTransactional: true .*\n.*key: offset_commit::group=tof-group,partition=tof-1 payload: offset=11/);
    expect(offsetsLog).toMatch(/endTxnMarker: COMMIT/);
    expect(offsetsLog).toMatch(/endTxnMarker: ABORT/);
  }, 180000);

  it('completes a commit whose coordinator is SIGKILLed after EndTxn', async () => {
    const transactionalId = 'tx-failover';
    const p = producer(transactionalId);
    await p.connect();
    const coordinator = await coordinatorOf(transactionalId);
    // The data partition lives on another broker, stopped before the commit so no marker can reach it in time.
    const dataBroker = [0, 1, 2].find((id) => id !== coordinator)!;
    await createTopic('tfo', String(dataBroker));
    const t = await p.transaction();
    await t.send({ topic: 'tfo', messages: [{ value: 'survives' }] });
    const stopped = cluster.broker(dataBroker).child;
    stopped.signal('SIGSTOP');
    try {
      await t.commit();
      await cluster.broker(coordinator).child.stop({ signal: 'SIGKILL' });
    } finally {
      stopped.signal('SIGCONT');
    }
    const dump = await waitUntil(
      async () => {
        const out = await dumpLog(dataBroker, 'tfo', 0);
        return /endTxnMarker: COMMIT/.test(out) ? out : undefined;
      },
      { timeoutMs: 90000, message: 'the COMMIT marker in tfo-0 written by the new coordinator' },
    );
    expect(dump).toMatch(/endTxnMarker: COMMIT coordinatorEpoch: \d+/);
    expect(dump).not.toMatch(/endTxnMarker: ABORT/);
    // The new coordinator answers for the id and has it completed.
    const newCoordinator = await waitUntil(async () => {
      const id = await coordinatorOf(transactionalId);
      return id !== coordinator ? id + 1 : undefined;
    }, { timeoutMs: 60000, message: 'a new coordinator' }).then((id) => id - 1);
    // It found the commit prepared in the log it loaded, and sent the markers itself. Waited for: the marker
    // above may be the old coordinator's request, buffered in the stopped broker's socket before the kill, and
    // FindCoordinator names the new coordinator before it has loaded the partition.
    const sending = new RegExp(`Sending txn markers for ${transactionalId} \\(COMMIT\\) after loading transaction state at coordinator epoch \\d+`);
    await waitUntil(() => sending.test(cluster.broker(newCoordinator).readLog()), { timeoutMs: 60000, message: `broker ${newCoordinator} to send the markers after loading` });
    await waitUntil(
      async () => {
        const outs = await Promise.all([0, 1, 2, 3].map((i) => dumpLog(newCoordinator, '__transaction_state', i, '--transaction-log-decoder').catch(() => '')));
        return outs.some((o) => o.includes(`transactionalId=${transactionalId}`) && /state=CompleteCommit/.test(o.slice(o.lastIndexOf(`transactionalId=${transactionalId}`))));
      },
      { timeoutMs: 60000, message: 'CompleteCommit in the new coordinator\'s log' },
    );
  }, 240000);
});
