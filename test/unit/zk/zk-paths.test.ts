import { parseZkConnectString, validateZkConnectString } from '../../../src/zk/zk-connect-string';
import { PERSISTENT_ZK_PATHS, ZkPaths } from '../../../src/zk/zk-paths';

describe('znode paths', () => {
  it("builds Kafka's paths", () => {
    expect(ZkPaths.brokerId(3)).toBe('/brokers/ids/3');
    expect(ZkPaths.topic('orders')).toBe('/brokers/topics/orders');
    expect(ZkPaths.partitionState('orders', 2)).toBe('/brokers/topics/orders/partitions/2/state');
    expect(ZkPaths.deleteTopic('t')).toBe('/admin/delete_topics/t');
    expect(ZkPaths.configEntity('topics', 't')).toBe('/config/topics/t');
    expect(ZkPaths.consumerOffset('g', 't', 1)).toBe('/consumers/g/offsets/t/1');
    expect(ZkPaths.consumerOwner('g', 't', 1)).toBe('/consumers/g/owners/t/1');
    expect(ZkPaths.consumerId('g', 'g_h-1-abc')).toBe('/consumers/g/ids/g_h-1-abc');
    expect(PERSISTENT_ZK_PATHS).toContain('/isr_change_notification');
    expect(PERSISTENT_ZK_PATHS).toContain('/config/ips');
  });

  it('splits the chroot off the connect string the way Kafka does', () => {
    expect(parseZkConnectString('zk1:2181,zk2:2181/kafka')).toEqual({ hosts: 'zk1:2181,zk2:2181', chroot: '/kafka' });
    expect(parseZkConnectString('zk1:2181,zk2:2181/kafka/prod/')).toEqual({ hosts: 'zk1:2181,zk2:2181', chroot: '/kafka/prod' });
    expect(parseZkConnectString('localhost:2181')).toEqual({ hosts: 'localhost:2181', chroot: undefined });
    expect(parseZkConnectString('localhost:2181/')).toEqual({ hosts: 'localhost:2181', chroot: undefined });
  });

  it('validates connect strings', () => {
    expect(validateZkConnectString('localhost:2181/kafka')).toBeUndefined();
    expect(validateZkConnectString('a:1,b:2')).toBeUndefined();
    expect(validateZkConnectString('')).toBe('no ZooKeeper host given');
    expect(validateZkConnectString('a:1/x/../y')).toMatch(/not a valid chroot/);
    expect(validateZkConnectString('a b:1')).toMatch(/is not host:port/);
  });
});
