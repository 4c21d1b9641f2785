import { checkAclArgs, filterToAcls, formatAclBlock, resourceFilters } from '../../../src/tools/acl-command';

const zk = { authorizerProperties: ['zookeeper.connect=localhost:2181'] };

describe('kafka-acls options', () => {
  it("refuses what Kafka's AclCommandOptions.checkArgs refuses, with its messages", () => {
    expect(() => checkAclArgs({ list: true })).toThrow('One of --authorizer-properties or --bootstrap-server must be specified');
    expect(() => checkAclArgs({ ...zk, bootstrapServer: 'h:9092', list: true })).toThrow('Only one of --authorizer-properties or --bootstrap-server must be specified');
    expect(() => checkAclArgs({ ...zk, commandConfig: 'c.properties', list: true })).toThrow('The --command-config option can only be used with --bootstrap-server option');
    expect(() => checkAclArgs({ ...zk, add: true, list: true })).toThrow('Command must include exactly one action: --list, --add, --remove. ');
    expect(() => checkAclArgs({ ...zk, list: true, allowPrincipal: ['User:a'] })).toThrow('Option "[list]" can\'t be used with option "[allow-principal]"');
    expect(() => checkAclArgs({ ...zk, add: true, principal: ['User:a'] })).toThrow('The --principal option is only available if --list is set');
    expect(() => checkAclArgs({ ...zk, add: true, producer: true })).toThrow('With --producer you must specify a --topic');
    expect(() => checkAclArgs({ ...zk, add: true, idempotent: true, topic: ['t'] })).toThrow('The --idempotent option is only available if --producer is set');
    expect(() => checkAclArgs({ ...zk, add: true, consumer: true, topic: ['t'] })).toThrow('With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.');
    expect(() => resourceFilters({ ...zk, add: true })).toThrow('You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>');
  });

  it('builds the ACLs of --operation, --allow/--deny principals and hosts (default host *)', () => {
    const plan = filterToAcls({ ...zk, add: true, topic: ['foo'], operation: ['Read', 'write'], allowPrincipal: ['User:alice'], denyPrincipal: ['User:bob'], denyHost: ['10.0.0.1'] });
    expect(plan).toEqual([
      {
        filter: { resourceType: 'TOPIC', name: 'foo', patternType: 'LITERAL' },
        acls: [
          { principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW' },
          { principal: 'User:alice', host: '*', operation: 'WRITE', permissionType: 'ALLOW' },
          { principal: 'User:bob', host: '10.0.0.1', operation: 'READ', permissionType: 'DENY' },
          { principal: 'User:bob', host: '10.0.0.1', operation: 'WRITE', permissionType: 'DENY' },
        ],
      },
    ]);
    expect(() => filterToAcls({ ...zk, add: true, group: ['g'], operation: ['Write'], allowPrincipal: ['User:a'] })).toThrow('ResourceType GROUP only supports operations READ,DESCRIBE,DELETE,ALL');
  });

  it('expands --producer (with --idempotent) and --consumer as Kafka does', () => {
    const plan = filterToAcls({ ...zk, add: true, producer: true, idempotent: true, consumer: true, topic: ['t'], group: ['g'], allowPrincipal: ['User:a'], resourcePatternType: 'prefixed' });
    const ops = (type: string): string[] => (plan.find((p) => p.filter.resourceType === type)?.acls ?? []).map((a) => a.operation);
    expect(ops('TOPIC')).toEqual(['WRITE', 'DESCRIBE', 'CREATE', 'READ']);
    expect(ops('GROUP')).toEqual(['READ']);
    expect(ops('CLUSTER')).toEqual(['IDEMPOTENT_WRITE']);
    expect(plan.find((p) => p.filter.resourceType === 'TOPIC')?.filter.patternType).toBe('PREFIXED');
  });

  it("prints blocks as AclCommand's println does", () => {
    const block = formatAclBlock('Adding ACLs for resource', 'ResourcePattern(resourceType=TOPIC, name=foo, patternType=LITERAL)', [
      { principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW' },
      { principal: 'User:bob', host: '*', operation: 'READ', permissionType: 'DENY' },
    ]);
    expect(block).toBe(
      'Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=foo, patternType=LITERAL)`: \n \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n\t(principal=User:bob, host=*, operation=READ, permissionType=DENY) \n',
    );
  });
});
