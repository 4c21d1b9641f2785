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
import { readJson } from '../../helpers/zk-inspect';
import { Producer } from '../../../src/client/producer';
import { NetworkClient } from '../../../src/client/network-client';
import { OffsetCommitApi } from '../../../src/protocol/apis/offset-commit';
import { FindCoordinatorApi } from '../../../src/protocol/apis/find-coordinator';

const TOPIC = 'ui-topic';
const GROUP = 'ui-group';
const ARTIFACT = path.join(__dirname, '../../../test-artifacts/kafka-ui.png');
// Debian's chromium (scripts/setup.sh installs it), never a downloaded browser.
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The text of every cell of a row of the page, or undefined when the row is not there. */
async function rowCells(page: Page, selector: string): Promise<string[] | undefined> {
  const row = await page.$(selector);
  return row === null ? undefined : row.$$eval('td', (tds) => tds.map((td) => td.textContent ?? ''));
}

describe('kafka-ui, the live cluster page, in headless Chromium', () => {
  let cluster: TestCluster;
  let ui: TestChild;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const [metricsPort, uiPort] = (await freePorts(2)) as [number, number];
    [cluster, context] = await Promise.all([
      TestCluster.start({ brokers: 3, props: { 'replica.lag.time.max.ms': '2000' }, brokerProps: { 0: { 'kafka.metrics.port': String(metricsPort) } } }),
      chromium.launchPersistentContext(tmpDir('kafka-ui-chromium-'), { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, viewport: { width: 1280, height: 1000 } }),
    ]);
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', TOPIC, '--partitions', '2', '--replication-factor', '3'])).code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 2);
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: -1 });
    await Promise.all(Array.from({ length: 30 }, (_, i) => producer.send(TOPIC, Buffer.from(`k${i}`), Buffer.from(`value-${i}`), i % 2)));
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
    ui = spawnChild(BIN('kafka-ui'), ['--zookeeper', cluster.zkConnect, '--port', String(uiPort)], { name: 'kafka-ui' });
    await ui.waitForLine(/Serving the cluster page on http:\/\/localhost:\d+\//, { timeoutMs: 30000 });
    page = await context.newPage();
    await page.goto(`http://localhost:${uiPort}/`);
  }, 120000);

  afterAll(async () => {
    await context?.close();
    await ui?.stop();
    await cluster?.close();
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
      const assigned = (await readJson(cluster.zk, `${cluster.chroot}/brokers/topics/${TOPIC}`))?.['partitions'] as Record<string, number[]>;
      expect(cells?.slice(0, 4)).toEqual([String(p), String(state?.leader), assigned[String(p)]?.join(','), state?.isr.join(',')]);
      // The log end offset (15 records each) is the leader's answer; it shows once the brokers were asked.
      await waitUntil(async () => (await rowCells(page, `table.partitions tr[data-tp="${TOPIC}-${p}"]`))?.[5] === '15', { timeoutMs: 10000, message: `${TOPIC}-${p}'s LogEndOffset on the page` });
    }
    // The group's LAG is the log end offset less the offset committed in ZooKeeper.
    for (const p of [0, 1]) {
      const committed = Number((await cluster.zk.getData(`${cluster.chroot}/consumers/${GROUP}/offsets/${TOPIC}/${p}`))?.data?.toString());
      await waitUntil(async () => (await rowCells(page, `.group[data-group="${GROUP}"] tr[data-tp="${TOPIC}-${p}"]`))?.slice(2, 5).join(' ') === `${committed} 15 ${15 - committed}`, { timeoutMs: 10000, message: `${GROUP}'s lag on ${TOPIC}-${p}` });
    }
    // Broker 0 has kafka.metrics.port: its sparklines appear; the others have none.
    await page.waitForSelector('#brokers tr[data-broker="0"] .spark svg polyline', { state: 'attached', timeout: 10000 });
    expect(await page.$$('#brokers tr[data-broker="1"] .spark')).toHaveLength(0);
    // The message browser reads a partition from its log start.
    await page.selectOption('section:has(h2:text("Messages")) select >> nth=0', TOPIC);
    await page.click('section:has(h2:text("Messages")) button');
    await page.waitForSelector('#messages tbody tr', { timeout: 10000 });
    expect((await rowCells(page, '#messages tbody tr'))?.slice(2, 4)).toEqual(['k0', 'value-0']);
    fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
    await page.screenshot({ path: ARTIFACT, fullPage: true });
    process.stdout.write(`kafka-ui screenshot: ${ARTIFACT}\n`);
  }, 60000);

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
    const assigned = (await readJson(cluster.zk, `${cluster.chroot}/brokers/topics/ui-made`))?.['partitions'] as Record<string, number[]>;
    expect(Object.values(assigned).map((r) => r.length)).toEqual([2, 2, 2]);
    await page.waitForSelector('#topics tr[data-topic="ui-made"]', { timeout: 5000 });

    page.once('dialog', confirm);
    await page.click(`.group[data-group="${GROUP}"] button.danger`);
    await page.waitForSelector(`pre.notice:text("Deletion of requested consumer groups ('${GROUP}') was successful.")`, { timeout: 10000 });
    await page.waitForSelector(`.group[data-group="${GROUP}"]`, { state: 'detached', timeout: 10000 });
    expect(asked).toEqual(['confirm: Create topic ui-made with 3 partitions and replication factor 2?', `confirm: Delete consumer group '${GROUP}'?`]);
  }, 30000);

  it('follows a SIGKILLed broker within 5 s of ZooKeeper, without a reload', async () => {
    const controller = await cluster.waitForController();
    const victim = [0, 1, 2].find((b) => b !== controller) as number;
    const killedAt = Date.now();
    await cluster.broker(victim).child.stop({ signal: 'SIGKILL' });
    // ZooKeeper first (the session expires, the controller shrinks the ISRs), then the page within 5 s of it.
    await waitUntil(async () => (await Promise.all([0, 1].map((p) => cluster.partitionState(TOPIC, p)))).every((s) => s !== null && !s.isr.includes(victim)), { timeoutMs: 20000, message: `ISRs without broker ${victim} in ZooKeeper` });
    const zkAt = Date.now();
    await waitUntil(
      async () => {
        if ((await page.$(`#brokers tr[data-broker="${victim}"]`)) !== null) return false;
        for (const p of [0, 1]) {
          const row = `table.partitions tr[data-tp="${TOPIC}-${p}"]`;
          const isr = (await rowCells(page, row))?.[3];
          if (isr === undefined || isr.split(',').includes(String(victim)) || !(await page.$eval(row, (r) => r.classList.contains('under-replicated')))) return false;
        }
        return (await page.$eval(`#topics tr[data-topic="${TOPIC}"]`, (r) => r.classList.contains('under-replicated')));
      },
      { timeoutMs: 5000, intervalMs: 100, message: `the page without broker ${victim}, within 5 s of ZooKeeper` },
    );
    process.stdout.write(`kafka-ui followed the kill in ${Date.now() - zkAt} ms after ZooKeeper (${Date.now() - killedAt} ms after SIGKILL)\n`);
    for (const p of [0, 1]) expect((await rowCells(page, `table.partitions tr[data-tp="${TOPIC}-${p}"]`))?.[3]).toBe((await cluster.partitionState(TOPIC, p))?.isr.join(','));
    await page.screenshot({ path: ARTIFACT.replace(/\.png$/, '-after-kill.png'), fullPage: true });
  }, 40000);
});
