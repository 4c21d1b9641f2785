import { ControllerZk } from '../../../src/zk/controller-zk';
import { ZkCode, ZkError } from '../../../src/zk/zk-error';
import { FakeZk } from '../../helpers/fake-zk';
import { quietLogging } from '../../helpers/quiet-logging';

/*
 * ControllerZk's batch forms (issue 13): many partitions' state nodes created, read and written with their
 * requests in flight together, each partition's outcome its own.
 */
quietLogging();

const state = (leader: number, isr: number[]) => ({ leader, leaderEpoch: 0, isr, controllerEpoch: 1 });

describe('ControllerZk batch operations', () => {
  it('createPartitionStates creates the partitions nodes, the partition nodes and the states: true when created, false when there', async () => {
    const zk = new FakeZk();
    zk.put('/brokers', null);
    zk.put('/brokers/topics', null);
    zk.put('/brokers/topics/a', '{"version":2,"partitions":{"0":[0],"1":[0]}}');
    zk.put('/brokers/topics/b', '{"version":2,"partitions":{"0":[0]}}');
    zk.put('/brokers/topics/b/partitions', null);
    zk.put('/brokers/topics/b/partitions/0', null);
    zk.put('/brokers/topics/b/partitions/0/state', '{"controller_epoch":1,"leader":0,"version":1,"leader_epoch":4,"isr":[0]}');
    const czk = new ControllerZk(zk.client);
    const results = await czk.createPartitionStates([
      { topic: 'a', partition: 0, state: state(0, [0]) },
      { topic: 'a', partition: 1, state: state(0, [0]) },
      { topic: 'b', partition: 0, state: state(0, [0]) },
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: true },
      { status: 'fulfilled', value: true },
      { status: 'fulfilled', value: false },
    ]);
    expect(JSON.parse(zk.text('/brokers/topics/a/partitions/1/state') ?? '')).toEqual({ controller_epoch: 1, leader: 0, version: 1, leader_epoch: 0, isr: [0] });
    // The existing state is left as it was.
    expect(JSON.parse(zk.text('/brokers/topics/b/partitions/0/state') ?? '').leader_epoch).toBe(4);
  });

  it('a topic whose node is gone fails its partitions only', async () => {
    const zk = new FakeZk();
    zk.put('/brokers', null);
    zk.put('/brokers/topics', null);
    zk.put('/brokers/topics/a', '{"version":2,"partitions":{"0":[0]}}');
    const czk = new ControllerZk(zk.client);
    const results = await czk.createPartitionStates([
      { topic: 'gone', partition: 0, state: state(0, [0]) },
      { topic: 'a', partition: 0, state: state(0, [0]) },
    ]);
    expect(results[0]?.status).toBe('rejected');
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new ZkError(ZkCode.NONODE, '/brokers/topics/gone/partitions'));
    expect(results[1]).toEqual({ status: 'fulfilled', value: true });
  });

  it('getPartitionStates and updatePartitionStates answer per partition: null for a missing node, null on BADVERSION', async () => {
    const zk = new FakeZk();
    zk.put('/brokers', null);
    zk.put('/brokers/topics', null);
    zk.put('/brokers/topics/a', '{"version":2,"partitions":{"0":[0,1]}}');
    zk.put('/brokers/topics/a/partitions', null);
    zk.put('/brokers/topics/a/partitions/0', null);
    zk.put('/brokers/topics/a/partitions/0/state', '{"controller_epoch":1,"leader":0,"version":1,"leader_epoch":0,"isr":[0,1]}');
    const czk = new ControllerZk(zk.client);
    const read = await czk.getPartitionStates([
      { topic: 'a', partition: 0 },
      { topic: 'a', partition: 1 },
    ]);
    expect(read).toEqual([
      { status: 'fulfilled', value: { state: { leader: 0, leaderEpoch: 0, isr: [0, 1], controllerEpoch: 1 }, zkVersion: 0 } },
      { status: 'fulfilled', value: null },
    ]);
    const written = await czk.updatePartitionStates([
      { topic: 'a', partition: 0, state: state(1, [1]), expectedZkVersion: 0 },
      { topic: 'a', partition: 0, state: state(0, [0]), expectedZkVersion: 0 },
    ]);
    expect(written).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'fulfilled', value: null },
    ]);
  });
});
