import { AclAuthorizer, AclStore, AuthorizableRequest, hostOf } from '../../../src/security/acl-authorizer';
import { AclBinding, AclBindingFilter, AclOperation, bindingToString, pascalName, unsupportedOperations } from '../../../src/security/acl-binding';
import { parseKafkaPrincipal } from '../../../src/security/kafka-principal';
import { ZkAclEntry, ZkAclResource } from '../../../src/zk/znodes/acl-znodes';

/** The store as ZooKeeper would keep it, with versions and a change log that can be replayed into the watcher. */
class MemoryStore implements AclStore {
  readonly nodes = new Map<string, { acls: ZkAclEntry[]; version: number }>();
  readonly changes: ZkAclResource[] = [];
  /** Writes that fail as if another broker had written first. */
  conflicts = 0;
  private onChange: ((r: ZkAclResource) => Promise<void>) | undefined;
  private key(r: ZkAclResource): string {
    return `${r.patternType}/${r.resourceType}/${r.name}`;
  }
  createPaths(): Promise<void> {
    return Promise.resolve();
  }
  loadAll(): Promise<Array<{ resource: ZkAclResource; acls: { acls: ZkAclEntry[]; version: number } }>> {
    return Promise.resolve(
      [...this.nodes].map(([k, acls]) => {
        const [patternType, resourceType, name] = k.split('/') as ['LITERAL' | 'PREFIXED', string, string];
        return { resource: { patternType, resourceType, name }, acls };
      }),
    );
  }
  read(r: ZkAclResource): Promise<{ acls: ZkAclEntry[]; version: number }> {
    return Promise.resolve(this.nodes.get(this.key(r)) ?? { acls: [], version: -1 });
  }
  conditionalWrite(r: ZkAclResource, acls: readonly ZkAclEntry[], expected: number): Promise<number | undefined> {
    const current = this.nodes.get(this.key(r));
    if (this.conflicts > 0) {
      this.conflicts--;
      // Another writer adds an ACL in between.
      this.nodes.set(this.key(r), { acls: [...(current?.acls ?? []), { principal: 'User:other', permissionType: 'Allow', operation: 'Write', host: '*' }], version: (current?.version ?? -1) + 1 });
      return Promise.resolve(undefined);
    }
    if ((current?.version ?? -1) !== expected) return Promise.resolve(undefined);
    if (acls.length === 0) {
      this.nodes.delete(this.key(r));
      return Promise.resolve(-1);
    }
    const version = expected + 1;
    this.nodes.set(this.key(r), { acls: [...acls], version });
    return Promise.resolve(version);
  }
  notifyChange(r: ZkAclResource): Promise<void> {
    this.changes.push(r);
    return Promise.resolve();
  }
  watchChanges(onChange: (r: ZkAclResource) => Promise<void>): void {
    this.onChange = onChange;
  }
  async deliver(r: ZkAclResource): Promise<void> {
    await this.onChange?.(r);
  }
  close(): void {}
}

const alice: AuthorizableRequest = { principal: parseKafkaPrincipal('User:alice'), clientAddress: '/10.0.0.1', requestName: 'Fetch' };
const bob: AuthorizableRequest = { principal: parseKafkaPrincipal('User:bob'), clientAddress: '/10.0.0.2', requestName: 'Fetch' };

function acl(resourceType: AclBinding['pattern']['resourceType'], name: string, principal: string, operation: AclBinding['entry']['operation'], permissionType: 'ALLOW' | 'DENY' = 'ALLOW', patternType: 'LITERAL' | 'PREFIXED' = 'LITERAL', host = '*'): AclBinding {
  return { pattern: { resourceType, name, patternType }, entry: { principal, host, operation, permissionType } };
}

async function authorizer(bindings: AclBinding[], config: { superUsers?: string; allowEveryoneIfNoAclFound?: boolean } = {}): Promise<{ auth: AclAuthorizer; store: MemoryStore }> {
  const store = new MemoryStore();
  const auth = new AclAuthorizer({ superUsers: config.superUsers ?? '', allowEveryoneIfNoAclFound: config.allowEveryoneIfNoAclFound ?? false }, store);
  await auth.start();
  const results = await auth.createAcls(bindings);
  expect(results.filter((r) => r.error !== undefined)).toEqual([]);
  return { auth, store };
}

const can = (auth: AclAuthorizer, who: AuthorizableRequest, operation: AclBinding['entry']['operation'], name = 'foo', resourceType: AclBinding['pattern']['resourceType'] = 'TOPIC'): boolean =>
  auth.authorize(who, { resourceType, name, operation });

describe('AclAuthorizer matching', () => {
  it('denies without ACLs unless allow.everyone.if.no.acl.found, and allows super users everything', async () => {
    expect(can((await authorizer([])).auth, alice, 'READ')).toBe(false);
    expect(can((await authorizer([], { allowEveryoneIfNoAclFound: true })).auth, alice, 'READ')).toBe(true);
    const { auth } = await authorizer([acl('TOPIC', 'foo', 'User:bob', 'READ')], { superUsers: 'User:admin; User:alice', allowEveryoneIfNoAclFound: true });
    expect(can(auth, alice, 'DELETE')).toBe(true);
    // An ACL exists for the resource: allow.everyone no longer applies to it.
    expect(can(auth, { ...bob, principal: parseKafkaPrincipal('User:carol') }, 'READ')).toBe(false);
  });

  it('puts deny before allow, and All covers every operation', async () => {
    const { auth } = await authorizer([acl('TOPIC', 'foo', 'User:alice', 'ALL'), acl('TOPIC', 'foo', 'User:alice', 'WRITE', 'DENY')]);
    expect(can(auth, alice, 'READ')).toBe(true);
    expect(can(auth, alice, 'WRITE')).toBe(false);
    const denyAll = await authorizer([acl('TOPIC', '*', 'User:*', 'READ'), acl('TOPIC', 'foo', 'User:alice', 'ALL', 'DENY')]);
    expect(can(denyAll.auth, alice, 'READ')).toBe(false);
    expect(can(denyAll.auth, bob, 'READ')).toBe(true);
  });

  it('matches wildcard resources and principals, prefixes and hosts', async () => {
    const { auth } = await authorizer([
      acl('TOPIC', '*', 'User:alice', 'READ'),
      acl('TOPIC', 'pay', 'User:*', 'WRITE', 'ALLOW', 'PREFIXED'),
      acl('GROUP', 'g1', 'User:bob', 'READ', 'ALLOW', 'LITERAL', '10.0.0.2'),
      acl('GROUP', 'g2', 'User:bob', 'READ', 'ALLOW', 'LITERAL', '10.0.0.9'),
    ]);
    expect(can(auth, alice, 'READ', 'anything')).toBe(true);
    expect(can(auth, bob, 'READ', 'anything')).toBe(false);
    expect(can(auth, bob, 'WRITE', 'payments')).toBe(true);
    expect(can(auth, bob, 'WRITE', 'pa')).toBe(false);
    expect(can(auth, bob, 'READ', 'g1', 'GROUP')).toBe(true);
    expect(can(auth, bob, 'READ', 'g2', 'GROUP')).toBe(false);
    // Prefixed ACLs are not wildcards of another resource type.
    expect(can(auth, bob, 'WRITE', 'payments', 'TRANSACTIONAL_ID')).toBe(false);
  });

  it('implies Describe from Read, Write, Delete and Alter, and DescribeConfigs from AlterConfigs, and nothing else', async () => {
    for (const op of ['READ', 'WRITE', 'DELETE', 'ALTER'] as const) expect(can((await authorizer([acl('TOPIC', 'foo', 'User:alice', op)])).auth, alice, 'DESCRIBE')).toBe(true);
    expect(can((await authorizer([acl('TOPIC', 'foo', 'User:alice', 'CREATE')])).auth, alice, 'DESCRIBE')).toBe(false);
    const { auth } = await authorizer([acl('TOPIC', 'foo', 'User:alice', 'ALTER_CONFIGS')]);
    expect(can(auth, alice, 'DESCRIBE_CONFIGS')).toBe(true);
    expect(can(auth, alice, 'DESCRIBE')).toBe(false);
    // A deny on Read does not deny the Describe that an allowed Write implies.
    const both = await authorizer([acl('TOPIC', 'foo', 'User:alice', 'WRITE'), acl('TOPIC', 'foo', 'User:alice', 'READ', 'DENY')]);
    expect(can(both.auth, alice, 'DESCRIBE')).toBe(true);
  });

  it('computes authorized operations as a bit field of AclOperation codes', async () => {
    const { auth } = await authorizer([acl('GROUP', 'g', 'User:alice', 'READ')]);
    expect(auth.authorizedOperations(alice, 'GROUP', 'g', AclOperation)).toBe((1 << 3) | (1 << 8));
  });

  it('authorizes by resource type as KIP-679 does: some allowed pattern that no deny covers', async () => {
    const byType = (auth: AclAuthorizer, who: AuthorizableRequest): boolean => auth.authorizeByResourceType(who, 'WRITE', 'TOPIC');
    expect(byType((await authorizer([])).auth, alice)).toBe(false);
    expect(byType((await authorizer([], { allowEveryoneIfNoAclFound: true })).auth, alice)).toBe(true);
    expect(byType((await authorizer([acl('TOPIC', 'orders', 'User:alice', 'WRITE')])).auth, alice)).toBe(true);
    expect(byType((await authorizer([acl('TOPIC', 'orders', 'User:alice', 'READ')])).auth, alice)).toBe(false);
    expect(byType((await authorizer([acl('TOPIC', 'orders', 'User:*', 'ALL')])).auth, bob)).toBe(true);
    // A literal deny of the same name, or a deny prefix covering it, takes the allow away.
    expect(byType((await authorizer([acl('TOPIC', 'orders', 'User:alice', 'WRITE'), acl('TOPIC', 'orders', 'User:alice', 'WRITE', 'DENY')])).auth, alice)).toBe(false);
    expect(byType((await authorizer([acl('TOPIC', 'orders', 'User:alice', 'WRITE'), acl('TOPIC', 'ord', 'User:alice', 'WRITE', 'DENY', 'PREFIXED')])).auth, alice)).toBe(false);
    expect(byType((await authorizer([acl('TOPIC', 'orders', 'User:alice', 'WRITE'), acl('TOPIC', 'pay', 'User:alice', 'WRITE', 'DENY', 'PREFIXED')])).auth, alice)).toBe(true);
    expect(byType((await authorizer([acl('TOPIC', 'app-', 'User:alice', 'WRITE', 'ALLOW', 'PREFIXED')])).auth, alice)).toBe(true);
    // A wildcard deny refuses even with allow.everyone.if.no.acl.found; super users pass regardless.
    const denied = await authorizer([acl('TOPIC', '*', 'User:alice', 'WRITE', 'DENY')], { allowEveryoneIfNoAclFound: true, superUsers: 'User:bob' });
    expect(byType(denied.auth, alice)).toBe(false);
    expect(byType(denied.auth, bob)).toBe(true);
  });

  it('normalises the client address as InetAddress.getHostAddress prints it', () => {
    expect(hostOf('/127.0.0.1')).toBe('127.0.0.1');
    expect(hostOf('/::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(hostOf('/::1')).toBe('::1');
  });
});

describe('AclAuthorizer updates', () => {
  const any: AclBindingFilter = { resourceType: 'ANY', name: null, patternType: 'ANY', principal: null, host: null, operation: 'ANY', permissionType: 'ANY' };

  it('writes Kafka names to the store, notifies, and retries a write that lost a race', async () => {
    const { auth, store } = await authorizer([]);
    store.conflicts = 1;
    expect(await auth.createAcls([acl('TOPIC', 'foo', 'User:alice', 'READ')])).toEqual([{}]);
    expect(store.nodes.get('LITERAL/Topic/foo')?.acls).toEqual([
      { principal: 'User:other', permissionType: 'Allow', operation: 'Write', host: '*' },
      { principal: 'User:alice', permissionType: 'Allow', operation: 'Read', host: '*' },
    ]);
    expect(store.changes).toEqual([{ resourceType: 'Topic', name: 'foo', patternType: 'LITERAL' }]);
    expect(auth.acls(any).map(bindingToString)).toEqual([
      '(pattern=ResourcePattern(resourceType=TOPIC, name=foo, patternType=LITERAL), entry=(principal=User:other, host=*, operation=WRITE, permissionType=ALLOW))',
      '(pattern=ResourcePattern(resourceType=TOPIC, name=foo, patternType=LITERAL), entry=(principal=User:alice, host=*, operation=READ, permissionType=ALLOW))',
    ]);
  });

  it('follows change notifications written by other brokers', async () => {
    const { auth, store } = await authorizer([]);
    store.nodes.set('PREFIXED/Group/app', { acls: [{ principal: 'User:alice', permissionType: 'Allow', operation: 'Read', host: '*' }], version: 0 });
    expect(can(auth, alice, 'READ', 'app-1', 'GROUP')).toBe(false);
    await store.deliver({ resourceType: 'Group', name: 'app', patternType: 'PREFIXED' });
    expect(can(auth, alice, 'READ', 'app-1', 'GROUP')).toBe(true);
    store.nodes.delete('PREFIXED/Group/app');
    await store.deliver({ resourceType: 'Group', name: 'app', patternType: 'PREFIXED' });
    expect(can(auth, alice, 'READ', 'app-1', 'GROUP')).toBe(false);
  });

  it('deletes what each filter matches and removes the znode once empty', async () => {
    const { auth, store } = await authorizer([acl('TOPIC', 'foo', 'User:alice', 'READ'), acl('TOPIC', 'foo', 'User:bob', 'READ'), acl('TOPIC', 'fo', 'User:bob', 'WRITE', 'ALLOW', 'PREFIXED')]);
    const [byBob] = await auth.deleteAcls([{ ...any, principal: 'User:bob', resourceType: 'TOPIC', name: 'foo', patternType: 'MATCH' }]);
    expect(byBob?.deleted.map((b) => `${b.pattern.patternType}:${b.pattern.name}:${b.entry.principal}`).sort()).toEqual(['LITERAL:foo:User:bob', 'PREFIXED:fo:User:bob']);
    expect(store.nodes.has('PREFIXED/Topic/fo')).toBe(false);
    expect(store.nodes.get('LITERAL/Topic/foo')?.acls.map((a) => a.principal)).toEqual(['User:alice']);
  });

  it("refuses what Kafka's AclAuthorizer refuses", async () => {
    const { auth } = await authorizer([]);
    const [r1, r2, r3] = await auth.createAcls([
      acl('TOPIC', 'foo', 'alice', 'READ'),
      { ...acl('TOPIC', 'foo', 'User:a', 'READ'), pattern: { resourceType: 'TOPIC', name: 'foo', patternType: 'MATCH' } },
      acl('ANY', 'foo', 'User:a', 'READ'),
    ]);
    expect(r1?.error?.code).toBe('INVALID_REQUEST');
    expect(r2?.error?.code).toBe('INVALID_REQUEST');
    expect(r3?.error?.code).toBe('INVALID_REQUEST');
  });
});

describe('ACL vocabulary', () => {
  it("names enums as Kafka's SecurityUtils and AclCommand do", () => {
    expect(pascalName('CLUSTER_ACTION')).toBe('ClusterAction');
    expect(pascalName('TRANSACTIONAL_ID')).toBe('TransactionalId');
    expect(unsupportedOperations('GROUP', ['READ', 'WRITE', 'ALL'])).toEqual(['WRITE']);
  });
});
