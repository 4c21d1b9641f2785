import fs from 'node:fs';
import path from 'node:path';
import { chromium, BrowserContext, Dialog, Page } from 'playwright-core';
import { BIN } from '../../helpers/broker-process';
import { spawnChild, TestChild } from '../../helpers/child-processes';
import { freePorts } from '../../helpers/free-port';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkStandalone, ZkEnsemble } from '../../helpers/zk-ensemble';
import { inspectZk, readJson } from '../../helpers/zk-inspect';
import { Producer } from '../../../src/client/producer';
import { NetworkClient } from '../../../src/client/network-client';
import { OffsetCommitApi } from '../../../src/protocol/apis/offset-commit';
import { FindCoordinatorApi } from '../../../src/protocol/apis/find-coordinator';
import { ZookeeperConsumer } from '../../../src/rebalance/zookeeper-consumer';
import { AdminZk } from '../../../src/zk/admin-zk';
import { ZkClient } from '../../../src/zk/zk-client';

const TOPIC = 'ui-topic';
/** A single-replica topic the reassignment copies, throttled, to a second broker. */
const MOVING = 'ui-moving';
/** Where the sparklines' traffic goes, so that ui-topic's offsets stay as the other checks expect. */
const TRAFFIC = 'ui-traffic';
const GROUP = 'ui-group';
const ZK_GROUP = 'ui-zk-group';
const ARTIFACT = path.join(__dirname, '../../../test-artifacts/kafka-ui.png');
// Debian's chromium (scripts/setup.sh installs it), never a downloaded browser.
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/**
 * The page must follow a killed broker within 5 s of the kill. ZooKeeper learns of it when the broker's session
 * expires, so these brokers take the shortest session the test server allows (minSessionTimeout 1000 with its
 * tickTime of 500, src/embedded/zookeeper-config.ts): expired 1.5 to 2 s after the broker's last ping.
 */
const SESSION_TIMEOUT_MS = 1500;

/** The text of every cell of a row of the page, or undefined when the row is not there. */
async function rowCells(page: Page, selector: string): Promise<string[] | undefined> {
  const row = await page.$(selector);
  return row === null ? undefined : row.$$eval('td', (tds) => tds.map((td) => td.textContent ?? ''));
}

describe('kafka-ui, the live cluster page, in headless Chromium', () => {
  let zookeeper: ZkEnsemble | undefined;
  let chrootZk: ZkClient | undefined;
  let cluster: TestCluster;
  let ui: TestChild;
  let context: BrowserContext;
  let page: Page;
  const zkConsumers: ZookeeperConsumer[] = [];
  const assigned = async (topic: string): Promise<Record<string, number[]>> => (await readJson(cluster.zk, `${cluster.chroot}/brokers/topics/${topic}`))?.['partitions'] as Record<string, number[]>;

  beforeAll(async () => {
    const started = Date.now();
    const [uiPort, ...metricsPorts] = (await freePorts(4)) as [number, number, number, number];
    [cluster, context] = await Promise.all([
      startZkStandalone().then((zk) => {
        zookeeper = zk;
        return TestCluster.start({
          brokers: 3,
          ensemble: zk,
          // replica.fetch.max.bytes: a fetch copies little of ui-moving, so that its throttle keeps it moving.
          props: { 'replica.lag.time.max.ms': '2000', 'zookeeper.session.timeout.ms': String(SESSION_TIMEOUT_MS), 'replica.fetch.max.bytes': '16384' },
          brokerProps: Object.fromEntries(metricsPorts.map((port, id) => [id, { 'kafka.metrics.port': String(port) }])),
        });
      }),
      chromium.launchPersistentContext(tmpDir('kafka-ui-chromium-'), { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, viewport: { width: 1280, height: 1000 } }),
    ]);
    // Created as kafka-topics --zookeeper creates them (AdminZk), in this process: three tool processes cost seconds.
    chrootZk = await inspectZk(cluster.zkConnect);
    const admin = new AdminZk(chrootZk);
    for (const [topic, assignment] of [[TOPIC, [[1, 0, 2], [2, 1, 0]]], [MOVING, [[0]]], [TRAFFIC, [[0]]]] as const) {
      await admin.createTopic(topic, new Map(assignment.map((replicas, p) => [p, replicas])), new Map());
    }
    await Promise.all([cluster.waitForLeaders(TOPIC, 2), cluster.waitForLeaders(MOVING, 1), cluster.waitForLeaders(TRAFFIC, 1)]);
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: -1 });
    const big = Buffer.alloc(8000, 'm');
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => producer.send(TOPIC, Buffer.from(`k${i}`), Buffer.from(`value-${i}`), i % 2)),
      // 512 KB in batches of 16 KB at most: dozens of fetches to copy, where a throttled fetch waits out seconds.
      ...Array.from({ length: 64 }, () => producer.send(MOVING, null, big, 0)),
    ]);
    await producer.close();
    // A coordinator group with committed offsets (a simple commit, generation -1), so that it has lag.
    const client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    // The offsets topic's partitions are still getting their leaders: commit again on NOT_COORDINATOR and the like.
    await waitUntil(
      async () => {
        const found = await client.request('any', FindCoordinatorApi, { key: GROUP, keyType: 0 });
        if (found.errorCode !== 0) return false;
        await client.refreshMetadata();
        const commit = await client.request(found.nodeId, OffsetCommitApi, {
          groupId: GROUP, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 4, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' }, { partitionIndex: 1, committedOffset: 11, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' }] }],
        });
        return commit.topics[0]?.partitions.every((p) => p.errorCode === 0) === true;
      },
      { timeoutMs: 30000, intervalMs: 200, message: `offsets committed for ${GROUP}` },
    );
    client.close();
    // Two ZooKeeper-based consumers (Kafka 0.8's high-level consumer) sharing ui-topic: one partition each, 3 and
    // 7 records consumed and committed to /consumers, and they stay registered.
    for (const id of ['a', 'b']) {
      const consumer = new ZookeeperConsumer({ zkConnect: cluster.zkConnect, groupId: ZK_GROUP, consumerId: id, topics: [TOPIC], autoCommitEnable: false, autoOffsetReset: 'smallest', rebalanceBackoffMs: 200 });
      zkConsumers.push(consumer);
      await consumer.start();
    }
    await waitUntil(() => zkConsumers.every((c) => c.assignment.length === 1), { timeoutMs: 20000, message: `each member of ${ZK_GROUP} owning one partition` });
    await Promise.all(
      zkConsumers.map(async (consumer, i) => {
        const wanted = [3, 7][i] as number;
        let consumed = 0;
        await waitUntil(async () => (consumed += (await consumer.poll(wanted - consumed)).length) === wanted, { timeoutMs: 20000, message: `${consumer.consumerId} to consume ${wanted} records` });
        await consumer.commitOffsets();
      }),
    );
    ui = spawnChild(BIN('kafka-ui'), ['--zookeeper', cluster.zkConnect, '--port', String(uiPort)], { name: 'kafka-ui' });
    await ui.waitForLine(/Serving the cluster page on http:\/\/localhost:\d+\//, { timeoutMs: 30000 });
    page = await context.newPage();
    await page.goto(`http://localhost:${uiPort}/`);
    process.stdout.write(`kafka-ui test set-up: ${Date.now() - started} ms\n`);
  }, 120000);

  afterAll(async () => {
    await Promise.all([context?.close(), ui?.stop(), ...zkConsumers.map((c) => c.close())]);
    // Nothing is checked of the shutdown, and the last broker's, with both peers killed, takes its whole grace
    // (10 s) in TestCluster.close: kill it.
    await Promise.all([...(cluster?.brokers.values() ?? [])].map((b) => b.child.stop({ signal: 'SIGKILL' })));
    await cluster?.close();
    chrootZk?.close();
    await zookeeper?.close();
  });

  it('shows the brokers, the controller, the topics, ISRs and a group lag as ZooKeeper has them', async () => {
    const controller = await cluster.waitForController();
    await page.waitForSelector('#brokers tbody tr[data-broker="2"]', { timeout: 10000 });
    expect(await page.textContent('#controller')).toBe(String(controller));
    for (const id of [0, 1, 2]) {
      const cells = await rowCells(page, `#brokers tr[data-broker="${id}"]`);
      expect(cells?.slice(0, 3)).toEqual([String(id), '127.0.0.1', String(cluster.broker(id).port)]);
      expect(cells?.[4]).toBe(id === controller ? 'Controller' : '');
    }
    expect((await rowCells(page, `#topics tr[data-topic="${TOPIC}"]`))?.slice(0, 5)).toEqual([TOPIC, '2', '3', '0', '0']);
    for (const p of [0, 1]) {
      const state = await cluster.partitionState(TOPIC, p);
      const cells = await rowCells(page, `table.partitions tr[data-tp="${TOPIC}-${p}"]`);
      expect(cells?.slice(0, 4)).toEqual([String(p), String(state?.leader), (await assigned(TOPIC))[String(p)]?.join(','), state?.isr.join(',')]);
      // The log end offset (15 records each) is the leader's answer; it shows once the brokers were asked.
      await waitUntil(async () => (await rowCells(page, `table.partitions tr[data-tp="${TOPIC}-${p}"]`))?.[5] === '15', { timeoutMs: 10000, message: `${TOPIC}-${p}'s LogEndOffset on the page` });
    }
    // The group's LAG is the log end offset less the offset committed in ZooKeeper.
    expect(await page.textContent(`.group[data-group="${GROUP}"] h3 small`)).toMatch(/^Group coordinator · STATE Empty · LAG /);
    for (const p of [0, 1]) {
      const committed = Number((await cluster.zk.getData(`${cluster.chroot}/consumers/${GROUP}/offsets/${TOPIC}/${p}`))?.data?.toString());
      await waitUntil(async () => (await rowCells(page, `.group[data-group="${GROUP}"] tr[data-tp="${TOPIC}-${p}"]`))?.slice(2, 5).join(' ') === `${committed} 15 ${15 - committed}`, { timeoutMs: 10000, message: `${GROUP}'s lag on ${TOPIC}-${p}` });
    }
    // The message browser reads a partition from its log start.
    await page.selectOption('section:has(h2:text("Messages")) select >> nth=0', TOPIC);
    await page.click('section:has(h2:text("Messages")) button');
    await page.waitForSelector('#messages tbody tr', { timeout: 10000 });
    expect((await rowCells(page, '#messages tbody tr'))?.slice(2, 4)).toEqual(['k0', 'value-0']);
  }, 60000);

  it('shows the ZooKeeper consumers under /consumers next to the coordinator group: members, owners and lag', async () => {
    const group = `.group[data-group="${ZK_GROUP}"]`;
    await page.waitForSelector(group, { timeout: 10000 });
    const root = `${cluster.chroot}/consumers/${ZK_GROUP}`;
    const ids = ((await cluster.zk.getChildren(`${root}/ids`)) ?? []).sort();
    expect(ids).toEqual([`${ZK_GROUP}_a`, `${ZK_GROUP}_b`]);
    // Each partition's owner is a consumer thread (`<consumer id>-<n>`) in /owners; its offset in /offsets.
    const owners = new Map<number, string>();
    const committed = new Map<number, number>();
    for (const p of [0, 1]) {
      owners.set(p, (await cluster.zk.getData(`${root}/owners/${TOPIC}/${p}`))?.data?.toString().replace(/-\d+$/, '') ?? '');
      committed.set(p, Number((await cluster.zk.getData(`${root}/offsets/${TOPIC}/${p}`))?.data?.toString()));
    }
    expect([...committed.values()].sort()).toEqual([3, 7]);
    expect(await page.textContent(`${group} h3 small`)).toBe('ZooKeeper consumers (/consumers) · STATE Stable · LAG 20');
    const members = await page.$$eval(`${group} table.members tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(members.map((m) => [m[0], m[3]]).sort()).toEqual(ids.map((id) => [id, [0, 1].filter((p) => owners.get(p) === id).map((p) => `${TOPIC}-${p}`).join(', ')]));
    for (const p of [0, 1]) {
      const offset = committed.get(p) as number;
      expect(await rowCells(page, `${group} table.lag tr[data-tp="${TOPIC}-${p}"]`)).toEqual([TOPIC, String(p), String(offset), '15', String(15 - offset), owners.get(p)]);
    }
  }, 30000);

  it('shows a throttled partition reassignment in flight as the topic znode has it', async () => {
    const plan = path.join(tmpDir('kafka-ui-plan-'), 'plan.json');
    fs.writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: MOVING, partition: 0, replicas: [0, 1] }] }));
    // 1 B/s: after its first fetch the new replica waits out the quota's window (11 s) for each further one.
    const run = await runTool('kafka-reassign-partitions', ['--zookeeper', cluster.zkConnect, '--execute', '--reassignment-json-file', plan, '--throttle', '1']);
    expect(run.code).toBe(0);
    expect(run.output).toContain('The inter-broker throttle limit was set to 1 B/s');
    const row = `#reassignments tr[data-tp="${MOVING}-0"]`;
    await page.waitForSelector(row, { timeout: 10000 });
    const cells = await rowCells(page, row);
    // Kafka 2.8's controller keeps the full set, and what it adds and removes, in the topic znode while it moves.
    const znode = await readJson(cluster.zk, `${cluster.chroot}/brokers/topics/${MOVING}`);
    expect((znode?.['adding_replicas'] as Record<string, number[]>)['0']).toEqual([1]);
    expect(cells).toEqual([MOVING, '0', '0,1', '1', '']);
    expect(await page.textContent('section:has(#reassignments) h2')).toBe('Current partition reassignments');
  }, 30000);

  it('draws BrokerTopicMetrics sparklines from each broker\'s kafka.metrics.port while records are produced', async () => {
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: 1 });
    try {
      // A few records every 200 ms into broker 0's partition, until its MessagesInPerSec line has risen.
      const risen = async (): Promise<boolean> => {
        await Promise.all(Array.from({ length: 5 }, (_, i) => producer.send(TRAFFIC, null, Buffer.from(`traffic-${i}`), 0)));
        const points = await page.getAttribute('#brokers tr[data-broker="0"] .spark:has(span:text-is("MessagesInPerSec")) polyline', 'points');
        // The line is drawn 28 px high, 28 meaning zero.
        return (points ?? '').split(' ').some((xy) => Number(xy.split(',')[1]) < 28);
      };
      await waitUntil(risen, { timeoutMs: 15000, intervalMs: 200, message: "broker 0's MessagesInPerSec sparkline above zero" });
    } finally {
      await producer.close();
    }
    for (const id of [0, 1, 2]) {
      expect(await page.$$eval(`#brokers tr[data-broker="${id}"] .spark span`, (spans) => spans.map((s) => s.textContent))).toEqual(['MessagesInPerSec', 'BytesInPerSec', 'BytesOutPerSec']);
    }
    fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
    await page.screenshot({ path: ARTIFACT, fullPage: true });
    process.stdout.write(`kafka-ui screenshot: ${ARTIFACT}\n`);
  }, 30000);

  it('creates a topic and deletes a group from the page, each only after its confirmation', async () => {
    const section = 'section:has(h2:text("Create topic"))';
    await page.fill(`${section} label:has-text("Topic") input`, 'ui-made');
    await page.fill(`${section} label:has-text("Partitions") input`, '3');
    await page.fill(`${section} label:has-text("Replication factor") input`, '2');
    const asked: string[] = [];
    const confirm = (d: Dialog): void => {
      asked.push(`${d.type()}: ${d.message()}`);
      void d.accept();
    };
    page.once('dialog', confirm);
    await page.click(`${section} button`);
    await page.waitForSelector('pre.notice:text("Created topic ui-made.")', { timeout: 10000 });
    expect(Object.values(await assigned('ui-made')).map((r) => r.length)).toEqual([2, 2, 2]);
    await page.waitForSelector('#topics tr[data-topic="ui-made"]', { timeout: 5000 });

    page.once('dialog', confirm);
    await page.click(`.group[data-group="${GROUP}"] button.danger`);
    await page.waitForSelector(`pre.notice:text("Deletion of requested consumer groups ('${GROUP}') was successful.")`, { timeout: 10000 });
    await page.waitForSelector(`.group[data-group="${GROUP}"]`, { state: 'detached', timeout: 10000 });
    expect(asked).toEqual(['confirm: Create topic ui-made with 3 partitions and replication factor 2?', `confirm: Delete consumer group '${GROUP}'?`]);
  }, 30000);

  it('follows each of two SIGKILLed brokers within 5 s of the kill, without a reload', async () => {
    const controller = await cluster.waitForController();
    const followed: string[] = [];
    for (const victim of [0, 1, 2].filter((b) => b !== controller)) {
      const killedAt = Date.now();
      cluster.broker(victim).child.signal('SIGKILL');
      // When ZooKeeper has it (the session expired, the controller shrank the ISRs), for the figure only.
      let zkMs: number | undefined;
      const zkFollowed = waitUntil(async () => (await Promise.all([0, 1].map((p) => cluster.partitionState(TOPIC, p)))).every((s) => s !== null && !s.isr.includes(victim)), { timeoutMs: 10000, intervalMs: 50 }).then(
        () => (zkMs = Date.now() - killedAt),
        () => undefined,
      );
      // One look at the page per try: its broker rows, and ui-topic's rows with their ISRs and highlights.
      const pageFollowed = (): Promise<boolean> =>
        page.$eval(
          '#app',
          (app, { victim, topic }) => {
            if (app.querySelector(`#brokers tr[data-broker="${victim}"]`) !== null) return false;
            const topicRow = app.querySelector(`#topics tr[data-topic="${topic}"]`);
            if (topicRow === null || !topicRow.classList.contains('under-replicated')) return false;
            return [0, 1].every((p) => {
              const row = app.querySelector(`table.partitions tr[data-tp="${topic}-${p}"]`);
              const isr = row?.querySelector('td.isr')?.textContent ?? undefined;
              return row !== null && isr !== undefined && !isr.split(',').includes(String(victim)) && row.classList.contains('under-replicated');
            });
          },
          { victim, topic: TOPIC },
        );
      await waitUntil(pageFollowed, { timeoutMs: Math.max(0, killedAt + 5000 - Date.now()), intervalMs: 50, message: `the page without broker ${victim}, within 5 s of its SIGKILL` });
      const pageMs = Date.now() - killedAt;
      await zkFollowed;
      followed.push(`broker ${victim}: ${pageMs} ms (ZooKeeper had it after ${zkMs ?? '?'} ms)`);
      await cluster.broker(victim).child.exited;
      // The page's ISRs are ZooKeeper's, and the controller is still the one ZooKeeper names.
      for (const p of [0, 1]) expect((await rowCells(page, `table.partitions tr[data-tp="${TOPIC}-${p}"]`))?.[3]).toBe((await cluster.partitionState(TOPIC, p))?.isr.join(','));
      expect(await page.textContent('#controller')).toBe(String(await cluster.controllerId()));
    }
    process.stdout.write(`kafka-ui followed each SIGKILL, from the kill: ${followed.join('; ')}\n`);
    await page.screenshot({ path: ARTIFACT.replace(/\.png$/, '-after-kill.png'), fullPage: true });
  }, 40000);
});
