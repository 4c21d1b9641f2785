import { CERTIFICATE_CREATOR, creatorAllAcl, defaultAcls, digestId, isOpenAcl, isSensitivePath, OPEN_ACL_UNSAFE, SECURE_ROOT_PATHS } from '../../../src/zk/zk-acls';

const kafka = { username: 'kafka', password: 'kafka-secret' };
const owner = creatorAllAcl(kafka);
const worldRead = { perms: 1, scheme: 'world', id: 'anyone' };

describe('ZooKeeper ACLs as Kafka sets them (ZkData.defaultAcls)', () => {
  it("computes ZooKeeper's digest id: user:base64(sha1(user:password))", () => {
    // The value ZooKeeper's documentation gives for super:admin (DigestAuthenticationProvider.generateDigest).
    expect(digestId({ username: 'super', password: 'admin' })).toBe('super:xQJmxLMiHGwaqBvst5y6rkB6HQs=');
    expect(owner).toEqual({ perms: 31, scheme: 'digest', id: `kafka:${digestId(kafka).split(':')[1] as string}` });
  });

  it('opens every path without secure ACLs', () => {
    expect(defaultAcls(undefined, '/brokers/ids/0')).toEqual(OPEN_ACL_UNSAFE);
    expect(isOpenAcl(defaultAcls(undefined, '/config/users/alice'))).toBe(true);
  });

  it('gives the owner every right and the world read, except on sensitive paths', () => {
    for (const path of ['/brokers/ids/0', '/brokers/topics/t/partitions/0/state', '/config/topics/t', '/config/changes/config_change_0000000001', '/admin/delete_topics/t', '/controller', '/cluster/id', '/kafka-acl/Topic/t', '/config']) {
      expect(defaultAcls(kafka, path)).toEqual([owner, worldRead]);
    }
    for (const path of ['/config/users', '/config/users/alice', '/config/brokers/0', '/config/brokers/<default>', '/delegation_token/tokens', '/delegation_token/tokens/abc']) {
      expect(isSensitivePath(path)).toBe(true);
      expect(defaultAcls(kafka, path)).toEqual([owner]);
    }
    // The token root and its change notifications stay world-readable, as in Kafka.
    expect(defaultAcls(kafka, '/delegation_token')).toEqual([owner, worldRead]);
    expect(defaultAcls(kafka, '/delegation_token/token_changes')).toEqual([owner, worldRead]);
  });

  it("keeps the old consumer's root open and secures what is under it", () => {
    expect(defaultAcls(kafka, '/consumers')).toEqual(OPEN_ACL_UNSAFE);
    expect(defaultAcls(kafka, '/consumers/g/offsets')).toEqual([owner, worldRead]);
  });

  it('names a TLS session as CREATOR_ALL_ACL does (auth scheme, empty id), for the server to expand to its x509 id', () => {
    const creator = { perms: 31, scheme: 'auth', id: '' };
    expect(creatorAllAcl(CERTIFICATE_CREATOR)).toEqual(creator);
    expect(defaultAcls(CERTIFICATE_CREATOR, '/brokers/ids/0')).toEqual([creator, worldRead]);
    expect(defaultAcls(CERTIFICATE_CREATOR, '/config/users/alice')).toEqual([creator]);
  });

  it("lists Kafka's secure root paths, the ACL stores' included", () => {
    expect(SECURE_ROOT_PATHS).toEqual(expect.arrayContaining(['/admin', '/brokers', '/config', '/controller', '/delegation_token', '/kafka-acl', '/kafka-acl-extended-changes']));
    expect(SECURE_ROOT_PATHS).not.toContain('/consumers');
  });
});
