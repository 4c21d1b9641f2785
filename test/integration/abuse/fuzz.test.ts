/*
 * Issue 12's CI slice of the structure-aware fuzzer: 50,000 frames (FUZZ_CI_FRAMES) mutated field by field from
 * every request schema's golden and sample frames, sent to a real 3-broker cluster on a real ZooKeeper ensemble.
 * `npm run fuzz` is the same with 1,000,000 frames. docs/reliability.md has the figures.
 *
 * Reproduce a failure: the message names the seed and each suspect frame k; `FUZZ_SEED=<seed> FUZZ_PRINT=<k>
 * npm run fuzz` prints it, `FUZZ_REPLAY=<k>` sends it to a fresh cluster.
 */
import { AckLedger, BackgroundProducer, MiB, assertHealthy, createTopic, kafka, mib, removeAllClientQuotas, startAbuseCluster } from '../../helpers/abuse';
import { runFuzz, summaryLine } from '../../helpers/fuzz-runner';
import { FUZZ_TOPICS, StructuredFuzzer, clusterSafeOptions } from '../../helpers/structured-fuzz';
import { TestCluster } from '../../helpers/test-cluster';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261129);
const FRAMES = Number(process.env['FUZZ_CI_FRAMES'] ?? 50_000);
/** Resident memory bound per broker during the run (an idle broker is ~115 MiB; the 1M-frame run peaked near 170). */
const RSS_BOUND = 384 * MiB;
const TOPIC = 'abuse-health';

describe('structure-aware fuzzing of a real 3-broker cluster', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startAbuseCluster();
  }, 60000);
  afterAll(async () => {
    await cluster?.close();
  });

  it(`survives ${FRAMES} mutated frames (seed ${SEED}) with bounded memory, and loses nothing acknowledged`, async () => {
    const fuzzer = new StructuredFuzzer(clusterSafeOptions(SEED));
    await createTopic(cluster, TOPIC, 3);
    for (const t of FUZZ_TOPICS) await createTopic(cluster, t, 3, { 'min.insync.replicas': '1' });
    const ledger = new AckLedger();
    const producer = kafka(cluster, 'abuse-before').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let i = 0; i < 5; i++) await ledger.send(producer, TOPIC, Array.from({ length: 100 }, (_, j) => `before-${i}-${j}`));
    await producer.disconnect();
    expect(ledger.ackedOn(TOPIC).size).toBe(500);

    const background = new BackgroundProducer(cluster, TOPIC, ledger, 200, 10);
    await background.start();
    const result = await runFuzz({ cluster, fuzzer, frames: FRAMES, connectionsPerBroker: 12, responseTimeoutMs: 1500, checkEveryFrames: 10000 });
    await background.stop();
    process.stdout.write(`${summaryLine(result)}\n`);

    const findings = result.findings.map((f) => `${f.kind} of broker ${f.brokerId} after ${f.atFrame} frames: ${f.detail}\nframes last sent to it:\n${f.recent.join('\n')}`);
    expect(findings).toEqual([]);
    expect(result.brokerDeaths).toBe(0);
    expect(result.frames).toBe(FRAMES);
    expect(result.stoppedEarly).toBe(false);
    expect(result.survived + result.closedByBroker + result.timeouts + result.sizeLies).toBe(FRAMES);
    // Silence is legitimate (a parked Fetch or JoinGroup), but rare.
    expect(result.timeouts).toBeLessThan(FRAMES / 100);
    for (const [id, rss] of result.maxRss) expect(`broker ${id} max RSS ${mib(rss)}: ${rss <= RSS_BOUND ? 'within' : 'above'} ${mib(RSS_BOUND)}`).toBe(`broker ${id} max RSS ${mib(rss)}: within ${mib(RSS_BOUND)}`);

    // Mutated AlterClientQuotas frames are valid requests too: they may leave byte-rate or connection-rate quotas
    // (a user's, an ip's, a default) that throttle the health check's clients. An operator would remove them.
    await removeAllClientQuotas(cluster);
    const health = await assertHealthy(cluster, TOPIC, ledger, 100);
    expect(health.missing).toEqual([]);
    expect(health.acked).toBeGreaterThanOrEqual(600);
  }, 240000);
});
