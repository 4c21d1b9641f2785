import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';


describe('controller session expiry and automatic leader rebalance', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({
      brokers: 3,
      props: { 'auto.leader.rebalance.enable': 'true', 'leader.imbalance.check.interval.seconds': '2', 'leader.imbalance.per.broker.percentage': '0', 'replica.lag.time.max.ms': '3000' },
    });
  }, 120000);
  afterAll(async () => cluster?.close());

  it('a controller whose session expires resigns, another takes over with a higher epoch, and the old one re-registers', async () => {
    const old = (await cluster.controllerId()) as number;
    const epoch = await cluster.controllerEpoch();
    const broker = cluster.broker(old);
    const registration = await cluster.zk.exists(`${cluster.chroot}/brokers/ids/${old}`);
    broker.child.signal('SIGSTOP');
    let successor: number;
    try {
      successor = await waitUntil(async () => {
        const id = await cluster.controllerId();
        return id !== undefined && id !== old ? id : undefined;
      }, { timeoutMs: 30000, message: 'another broker to win /controller after the session expires' });
    } finally {
      broker.child.signal('SIGCONT');
    }
    // /controller and /controller_epoch are two writes (the binding has no multi): the epoch follows shortly.
    await waitUntil(async () => (await cluster.controllerEpoch()) > epoch, { timeoutMs: 10000, message: 'a higher controller epoch' });
    await waitUntil(async () => {
      const now = await cluster.zk.exists(`${cluster.chroot}/brokers/ids/${old}`);
      return now !== null && now.czxid > (registration?.czxid ?? 0);
    }, { timeoutMs: 30000, message: 'the old controller to re-register with a new broker epoch' });
    await waitUntil(() => /\[Controller id=\d+\] Resigned/.test(broker.readLog('controller.log')), {
      timeoutMs: 30000,
      message: () => `the old controller to resign; its controller.log ends:\n${broker.readLog('controller.log').split('\n').slice(-40).join('\n')}`,
    });
    expect(await cluster.controllerId()).toBe(successor);
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'after-expiry', '--partitions', '3', '--replication-factor', '3'])).code).toBe(0);
    await cluster.waitForLeaders('after-expiry', 3);
  });

  it('moves leadership back to the preferred replicas on its own (auto.leader.rebalance.enable)', async () => {
    for (const id of [0, 1, 2]) await cluster.waitForBrokerInMetadata(id);
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'balanced', '--replica-assignment', '0:1,0:2'])).code).toBe(0);
    await cluster.waitForLeaders('balanced', 2);
    await cluster.broker(0).child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => (await cluster.partitionState('balanced', 0))?.leader === 1 && (await cluster.partitionState('balanced', 1))?.leader === 2, { timeoutMs: 30000, message: 'followers to take over' });
    await cluster.startBroker(0);
    await waitUntil(async () => (await cluster.partitionState('balanced', 0))?.leader === 0 && (await cluster.partitionState('balanced', 1))?.leader === 0, {
      timeoutMs: 60000,
      message: 'the automatic rebalance to give both partitions back to broker 0',
    });
    const controller = (await cluster.controllerId()) as number;
    expect(cluster.broker(controller).readLog('controller.log')).toMatch(/Starting replica leader election \(PREFERRED\) for partitions .*balanced-\d.* triggered by AutoTriggered/);
  });
});
