import { ZkPaths } from '../../../src/zk/zk-paths';
import { AclZNode, ExtendedAclChangeZNode, LiteralAclChangeZNode } from '../../../src/zk/znodes/acl-znodes';

describe('ACL znodes', () => {
  it("writes and reads Kafka 2.8's ACL JSON", () => {
    const acls = [{ principal: 'User:alice', permissionType: 'Allow', operation: 'Read', host: '*' }];
    expect(AclZNode.encode(acls).toString()).toBe('{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}');
    expect(AclZNode.decode('/kafka-acl/Topic/foo', AclZNode.encode(acls))).toEqual(acls);
    expect(AclZNode.decode('/kafka-acl/Topic/foo', null)).toEqual([]);
    expect(() => AclZNode.decode('/kafka-acl/Topic/foo', Buffer.from('{"version":1,"acls":[{"principal":1}]}'))).toThrow('Invalid data at /kafka-acl/Topic/foo: field "principal" is not a string');
    expect(() => AclZNode.decode('/kafka-acl/Topic/foo', Buffer.from('nope'))).toThrow(/not JSON/);
  });

  it('writes both kinds of change notification as Kafka does', () => {
    expect(LiteralAclChangeZNode.encode({ resourceType: 'Topic', name: 'a:b', patternType: 'LITERAL' }).toString()).toBe('Topic:a:b');
    expect(LiteralAclChangeZNode.decode('/x', Buffer.from('Group:g:1'))).toEqual({ resourceType: 'Group', name: 'g:1', patternType: 'LITERAL' });
    expect(() => LiteralAclChangeZNode.decode('/x', Buffer.from('nocolon'))).toThrow(/expected <resourceType>:<name>/);
    const prefixed = { resourceType: 'Topic', name: 'x', patternType: 'PREFIXED' } as const;
    expect(ExtendedAclChangeZNode.encode(prefixed).toString()).toBe('{"version":1,"resourceType":"Topic","name":"x","patternType":"PREFIXED"}');
    expect(ExtendedAclChangeZNode.decode('/x', ExtendedAclChangeZNode.encode(prefixed))).toEqual(prefixed);
    expect(() => ExtendedAclChangeZNode.decode('/x', Buffer.from('{"version":1,"resourceType":"Topic","name":"x","patternType":"MATCH"}'))).toThrow(/unknown patternType/);
  });

  it('keeps ACL paths one segment per name', () => {
    expect(ZkPaths.aclResource(ZkPaths.aclLiteralRoot, 'Topic', 'foo')).toBe('/kafka-acl/Topic/foo');
    expect(ZkPaths.aclResource(ZkPaths.aclPrefixedRoot, 'Group', 'app')).toBe('/kafka-acl-extended/prefixed/Group/app');
    expect(() => ZkPaths.aclResource(ZkPaths.aclLiteralRoot, 'Group', 'a/b')).toThrow(/contains '\/'/);
  });
});
