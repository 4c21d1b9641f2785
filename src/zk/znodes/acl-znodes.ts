import { Json, ZnodeFormatError, decodeJsonObject, encodeJson, intField, stringField } from './znode-json';

/**
 * The ACL znodes of Kafka 2.8's AclAuthorizer (ZkData.scala: ResourceZNode, AclChangeNotificationSequenceZNode).
 * Names are as Kafka writes them: resource types in Pascal case (`Topic`, `TransactionalId`), operations
 * (`Read`, `ClusterAction`) and permissions (`Allow`, `Deny`) too; pattern types upper case (`PREFIXED`).
 */
export interface ZkAclEntry {
  readonly principal: string;
  readonly permissionType: string;
  readonly operation: string;
  readonly host: string;
}

/** Which resource a znode is for: `Topic`, `foo`, `LITERAL` or `PREFIXED`. */
export interface ZkAclResource {
  readonly resourceType: string;
  readonly name: string;
  readonly patternType: 'LITERAL' | 'PREFIXED';
}

/** `/kafka-acl/<type>/<name>` and `/kafka-acl-extended/prefixed/<type>/<name>`: `{"version":1,"acls":[...]}`. */
export const AclZNode = {
  encode(acls: readonly ZkAclEntry[]): Buffer {
    return encodeJson({ version: 1, acls: acls.map((a) => ({ principal: a.principal, permissionType: a.permissionType, operation: a.operation, host: a.host })) });
  },
  decode(path: string, data: Buffer | null): ZkAclEntry[] {
    // Kafka treats a node without data as no ACLs (the node may just have been created).
    if (data === null || data.length === 0) return [];
    const obj = decodeJsonObject(path, data);
    intField(path, obj, 'version');
    const acls = obj['acls'];
    if (!Array.isArray(acls)) throw new ZnodeFormatError(path, 'field "acls" is not a list');
    return acls.map((a: unknown) => {
      if (typeof a !== 'object' || a === null || Array.isArray(a)) throw new ZnodeFormatError(path, 'an ACL is not a JSON object');
      const o = a as Json;
      return { principal: stringField(path, o, 'principal'), permissionType: stringField(path, o, 'permissionType'), operation: stringField(path, o, 'operation'), host: stringField(path, o, 'host') };
    });
  },
};

/** `/kafka-acl-changes/acl_changes_<seq>`: the changed literal resource as `Topic:foo`. */
export const LiteralAclChangeZNode = {
  encode(r: ZkAclResource): Buffer {
    return Buffer.from(`${r.resourceType}:${r.name}`, 'utf8');
  },
  decode(path: string, data: Buffer | null): ZkAclResource {
    const text = data?.toString('utf8') ?? '';
    const colon = text.indexOf(':');
    if (colon <= 0) throw new ZnodeFormatError(path, `expected <resourceType>:<name>, got ${text.slice(0, 200)}`);
    return { resourceType: text.slice(0, colon), name: text.slice(colon + 1), patternType: 'LITERAL' };
  },
};

/** `/kafka-acl-extended-changes/acl_changes_<seq>`: `{"version":1,"resourceType":"Topic","name":"x","patternType":"PREFIXED"}`. */
export const ExtendedAclChangeZNode = {
  encode(r: ZkAclResource): Buffer {
    return encodeJson({ version: 1, resourceType: r.resourceType, name: r.name, patternType: r.patternType });
  },
  decode(path: string, data: Buffer | null): ZkAclResource {
    const obj = decodeJsonObject(path, data);
    intField(path, obj, 'version');
    const patternType = stringField(path, obj, 'patternType');
    if (patternType !== 'LITERAL' && patternType !== 'PREFIXED') throw new ZnodeFormatError(path, `unknown patternType ${patternType}`);
    return { resourceType: stringField(path, obj, 'resourceType'), name: stringField(path, obj, 'name'), patternType };
  },
};
