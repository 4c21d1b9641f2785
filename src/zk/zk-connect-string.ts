/**
 * `zookeeper.connect` is `host:port[,host:port...][/chroot]`. Kafka (KafkaServer.initZkClient) takes everything
 * from the first `/` as the chroot and makes sure it exists through a session without it.
 */
export interface ZkConnectString {
  hosts: string;
  chroot: string | undefined;
}

export function parseZkConnectString(connect: string): ZkConnectString {
  const slash = connect.indexOf('/');
  if (slash <= 0) return { hosts: connect, chroot: undefined };
  const chroot = connect.slice(slash).replace(/\/+$/, '');
  return { hosts: connect.slice(0, slash), chroot: chroot === '' ? undefined : chroot };
}

export function validateZkConnectString(connect: string): string | undefined {
  const { hosts, chroot } = parseZkConnectString(connect);
  if (hosts.trim() === '') return 'no ZooKeeper host given';
  for (const hp of hosts.split(',')) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[^:/\s]+)(:\d{1,5})?$/.test(hp.trim())) return `'${hp}' is not host:port`;
  }
  if (chroot !== undefined && (/\/\//.test(chroot) || /\/\.\.?(\/|$)/.test(chroot))) return `'${chroot}' is not a valid chroot path`;
  return undefined;
}
