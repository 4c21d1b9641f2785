import { ControllerContext } from '../../../src/controller/controller-context';
import { KafkaController } from '../../../src/controller/kafka-controller';
import { BrokerInfoZNode } from '../../../src/zk/znodes/broker-info';
import { captureLogs } from '../../helpers/capture-logs';
import { FakeZk } from '../../helpers/fake-zk';
import { RecordingControllerChannel } from '../../helpers/recording-controller-channel';

/**
 * The controller over a fake ZooKeeper holding junk: election, failover and the ZooKeeper-triggered flows must
 * end in Kafka's outcome (a controller, deleted requests) whatever the nodes hold.
 */
function cluster(): FakeZk {
  const zk = new FakeZk();
  for (const id of [0, 1]) {
    zk.put(`/brokers/ids/${id}`, BrokerInfoZNode.encode({ id, endpoints: [{ listenerName: 'PLAINTEXT', host: 'h', port: 9092 + id }], listenerSecurityProtocolMap: { PLAINTEXT: 'PLAINTEXT' }, jmxPort: -1, timestamp: 1, rack: null, version: 5 }));
  }
  zk.put('/brokers/topics/t', '{"version":2,"partitions":{"0":[0,1],"1":[1,0]},"adding_replicas":{},"removing_replicas":{}}');
  zk.put('/brokers/topics/t/partitions/0/state', '{"controller_epoch":1,"leader":0,"version":1,"leader_epoch":3,"isr":[0,1]}');
  zk.put('/brokers/topics/t/partitions/1/state', '{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":3,"isr":[1,0]}');
  zk.put('/controller_epoch', '1');
  for (const path of ['/admin/delete_topics', '/isr_change_notification', '/log_dir_event_notification', '/config/changes']) zk.put(path, null);
  return zk;
}

function controllerOn(zk: FakeZk): KafkaController {
  return new KafkaController({
    config: { brokerId: 0, deleteTopicEnable: true, logConfigDefaults: {}, autoLeaderRebalanceEnable: false, leaderImbalancePerBrokerPercentage: 10, leaderImbalanceCheckIntervalSeconds: 300 },
    zk: zk.client,
    createChannel: (_context: ControllerContext) => new RecordingControllerChannel(),
  });
}

describe('the controller over junk in ZooKeeper', () => {
  it('is elected over a junk /controller (persistent, no owner) and over junk written into its own node later', async () => {
    const zk = cluster();
    zk.put('/controller', 'junk');
    const logs = captureLogs();
    const controller = controllerOn(zk);
    controller.startup();
    await controller.whenIdle();
    expect(controller.isActive).toBe(true);
    expect(JSON.parse(zk.text('/controller') ?? '')).toMatchObject({ brokerid: 0 });
    expect(zk.text('/controller_epoch')).toBe('2');
    expect(controller.context.liveBrokerIds()).toEqual(new Set([0, 1]));

    await zk.setData('/controller', Buffer.from('{"brokerid":"me"}'));
    await controller.process({ kind: 'ControllerChange' });
    await controller.whenIdle();
    expect(controller.isActive).toBe(true);
    expect(zk.text('/controller_epoch')).toBe('3');
    await controller.shutdown();
    expect(logs.text()).toMatch(/Deleting \/controller with unreadable data/);
  });

  it('fails over with an unreadable broker registration, topic assignment and partition state, handling the rest', async () => {
    const zk = cluster();
    zk.put('/brokers/ids/1', '{"version":5,"endpoints":["PLAINTEXT://h:123456"]}');
    zk.put('/brokers/topics/broken', 'junk');
    zk.put('/brokers/topics/t/partitions/1/state', 'junk');
    zk.put('/brokers/topics/bad name', '{"version":2,"partitions":{"0":[0]}}');
    const logs = captureLogs();
    const controller = controllerOn(zk);
    controller.startup();
    await controller.whenIdle();
    expect(controller.isActive).toBe(true);
    expect(controller.context.liveBrokerIds()).toEqual(new Set([0]));
    expect([...controller.context.allTopics].sort()).toEqual(['broken', 't']);
    expect(controller.context.partitionsForTopic('broken')).toEqual([]);
    expect(controller.context.leadership.has('t-1')).toBe(false);
    expect(controller.context.leadership.get('t-0')?.state.leader).toBe(0);
    await controller.shutdown();
    const text = logs.text();
    expect(text).toMatch(/Ignoring broker 1: failed to parse ZooKeeper registration at \/brokers\/ids\/1/);
    expect(text).toMatch(/Ignoring the unreadable partition assignment of topic broken at \/brokers\/topics\/broken/);
    expect(text).toMatch(/Ignoring unreadable partition state at \/brokers\/topics\/t\/partitions\/1\/state/);
    expect(text).toMatch(/Ignoring \/brokers\/topics\/bad name: Topic name "bad name" is illegal/);
  });

  it('deletes junk reassignment, preferred election, ISR notification and deletion requests; rewrites no partial assignment', async () => {
    const zk = cluster();
    const controller = controllerOn(zk);
    controller.startup();
    await controller.whenIdle();
    expect(controller.isActive).toBe(true);
    const logs = captureLogs();

    zk.put('/admin/reassign_partitions', 'junk');
    await controller.process({ kind: 'ZkPartitionReassignment' });
    expect(zk.nodes.has('/admin/reassign_partitions')).toBe(false);

    zk.put('/admin/reassign_partitions', '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[]},{"topic":"t","partition":1,"replicas":[0,0]}]}');
    await controller.process({ kind: 'ZkPartitionReassignment' });
    expect(zk.nodes.has('/admin/reassign_partitions')).toBe(false);

    zk.put('/admin/preferred_replica_election', 'junk');
    await controller.process({ kind: 'ReplicaLeaderElection' });
    expect(zk.nodes.has('/admin/preferred_replica_election')).toBe(false);

    zk.put('/isr_change_notification/isr_change_0000000001', 'junk');
    zk.put('/isr_change_notification/isr_change_0000000002', '{"version":1,"partitions":[{"topic":"t","partition":0}]}');
    zk.put('/brokers/topics/t/partitions/0/state', 'junk');
    await controller.process({ kind: 'IsrChangeNotification' });
    expect(await zk.getChildren('/isr_change_notification')).toEqual([]);

    zk.put('/admin/delete_topics/bad name', null);
    zk.put(`/admin/delete_topics/${'z'.repeat(300)}`, null);
    await controller.process({ kind: 'TopicDeletion' });
    expect(await zk.getChildren('/admin/delete_topics')).toEqual([]);

    // Junk over a live topic's assignment: no partitions are added or removed, nothing is written back.
    zk.put('/brokers/topics/t', 'junk');
    await controller.process({ kind: 'PartitionModifications', topic: 't' });
    expect(controller.context.partitionsForTopic('t')).toHaveLength(2);
    expect(zk.text('/brokers/topics/t')).toBe('junk');
    // A reassignment then rewrites the whole assignment from what the controller knows, never one partition of it.
    zk.put('/admin/reassign_partitions', '{"version":1,"partitions":[{"topic":"t","partition":1,"replicas":[0,1]}]}');
    await controller.process({ kind: 'ZkPartitionReassignment' });
    expect(JSON.parse(zk.text('/brokers/topics/t') ?? '').partitions).toEqual({ 0: [0, 1], 1: [0, 1] });
    expect(zk.nodes.has('/admin/reassign_partitions')).toBe(false);

    await controller.whenIdle();
    expect(controller.isActive).toBe(true);
    await controller.shutdown();
    const text = logs.text();
    expect(text).toMatch(/Ignoring partition reassignment due to invalid json: .*Deleting zk path \/admin\/reassign_partitions/);
    // Kafka's processZkPartitionReassignment: the failed entries in one warning, then dropped from the node.
    expect(text).toMatch(/Failed reassignment through zk with the following errors: HashMap\(t-0 -> ApiError\(error=INVALID_REPLICA_ASSIGNMENT, message=Empty replica list specified in partition reassignment\.\)/);
    expect(text).toMatch(/t-1 -> ApiError\(error=INVALID_REPLICA_ASSIGNMENT, message=Duplicate replica ids in partition reassignment replica list: List\(0, 0\)\)/);
    expect(text).toMatch(/Ignoring unreadable notification \/isr_change_notification\/isr_change_0000000001/);
    expect(text).toMatch(/Ignoring request to delete non-existing topics/);
  });
});
