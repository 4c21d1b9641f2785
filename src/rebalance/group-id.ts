import { zkNodeNameError } from '../zk/zk-paths';

/**
 * Why `groupId` cannot be a group here, or undefined when it can. Groups keep their offsets (and the ZooKeeper
 * consumer its registrations and owners) under `/consumers/<group>`, so a group id must be exactly one znode
 * name: not empty, not '.' or '..', no '/', none of the characters ZooKeeper refuses in paths. Anything else
 * Kafka accepts is accepted. See README.md, "Group ids".
 */
export function groupIdError(groupId: string): string | undefined {
  if (groupId.length === 0) return 'The group id must not be empty';
  const reason = zkNodeNameError(groupId);
  if (reason !== undefined) return `The group id ${JSON.stringify(groupId)} cannot be stored under /consumers: ${reason}`;
  return undefined;
}

/**
 * Kafka's old ConsumerConfig.validateChars, which the ZooKeeper consumer applies to group.id and client.id (and
 * this one also to consumer.id): the message is Kafka's. Undefined for a legal value.
 */
export function oldConsumerConfigError(prop: string, value: string): string | undefined {
  if (!/^[a-zA-Z0-9._-]*$/.test(value)) return `${prop} ${value} is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  const reason = zkNodeNameError(value);
  if (reason !== undefined) return `${prop} ${JSON.stringify(value)} is illegal: ${reason}`;
  return undefined;
}
