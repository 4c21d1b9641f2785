import { getLogger } from '../common/logging/logging';
import { SerialQueue } from '../common/serial-queue';
import { Clock } from '../common/time';
import { ZkClient } from './zk-client';
import { isZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { watchChildren, ZkWatch } from './zk-watch';
import { AclZNode, ExtendedAclChangeZNode, LiteralAclChangeZNode, ZkAclEntry, ZkAclResource } from './znodes/acl-znodes';

/** Kafka's AclAuthorizer change notifications older than this are deleted by whoever processes them. */
export const ACL_CHANGE_EXPIRATION_MS = 15 * 60 * 1000;

/** A resource's ACLs and the version of the znode they were read from (-1: no znode). */
export interface VersionedZkAcls {
  readonly acls: ZkAclEntry[];
  readonly version: number;
}

const log = getLogger('kafka.common.ZkNodeChangeNotificationListener');

interface Store {
  readonly patternType: 'LITERAL' | 'PREFIXED';
  readonly root: string;
  readonly changes: string;
  readonly encodeChange: (r: ZkAclResource) => Buffer;
  readonly decodeChange: (path: string, data: Buffer | null) => ZkAclResource;
}

/** Kafka's ZkAclStore.stores: the literal store and the extended (prefixed) one, each with its change path. */
const STORES: readonly Store[] = [
  { patternType: 'LITERAL', root: ZkPaths.aclLiteralRoot, changes: ZkPaths.aclLiteralChanges, encodeChange: LiteralAclChangeZNode.encode, decodeChange: LiteralAclChangeZNode.decode },
  { patternType: 'PREFIXED', root: ZkPaths.aclPrefixedRoot, changes: ZkPaths.aclExtendedChanges, encodeChange: ExtendedAclChangeZNode.encode, decodeChange: ExtendedAclChangeZNode.decode },
];

function storeOf(patternType: string): Store {
  const store = STORES.find((s) => s.patternType === patternType);
  if (store === undefined) throw new Error(`Unsupported pattern type ${patternType}`);
  return store;
}

/**
 * The ZooKeeper side of Kafka's AclAuthorizer (KafkaZkClient's ACL calls and the two
 * ZkNodeChangeNotificationListeners): ACL znodes read with their version and written conditionally on it, change
 * notifications written after each update and watched on every broker, old notifications purged.
 */
export class AclStoreZk {
  private readonly watches: ZkWatch[] = [];
  private readonly queue = new SerialQueue();
  private readonly lastProcessed = new Map<string, number>();

  constructor(
    private readonly zk: ZkClient,
    private readonly clock: Clock,
  ) {}

  /** Kafka's createAclPaths: each store's root with one child per resource type, and its change path. */
  async createPaths(resourceTypes: readonly string[]): Promise<void> {
    for (const store of STORES) {
      await this.zk.ensurePath(store.changes);
      for (const type of resourceTypes) await this.zk.ensurePath(ZkPaths.aclResourceType(store.root, type));
    }
  }

  /** Every resource with ACLs, in both stores (Kafka's loadCache). */
  async loadAll(): Promise<Array<{ resource: ZkAclResource; acls: VersionedZkAcls }>> {
    const out: Array<{ resource: ZkAclResource; acls: VersionedZkAcls }> = [];
    for (const store of STORES) {
      for (const resourceType of (await this.zk.getChildren(store.root)) ?? []) {
        for (const name of (await this.zk.getChildren(ZkPaths.aclResourceType(store.root, resourceType))) ?? []) {
          const resource = { resourceType, name, patternType: store.patternType };
          out.push({ resource, acls: await this.read(resource) });
        }
      }
    }
    return out;
  }

  async read(resource: ZkAclResource): Promise<VersionedZkAcls> {
    const path = ZkPaths.aclResource(storeOf(resource.patternType).root, resource.resourceType, resource.name);
    const node = await this.zk.getData(path);
    if (node === null) return { acls: [], version: -1 };
    return { acls: AclZNode.decode(path, node.data), version: node.stat.version };
  }

  /**
   * Writes a resource's ACLs if its znode is still at `expectedVersion` (-1: absent), deleting the znode when
   * nothing is left. Resolves with the znode's new version (-1 once deleted), or undefined when another writer
   * got there first (Kafka's conditionalSetAclsForResource / createAclsForResourceIfNotExists /
   * conditionalDelete), so the caller re-reads and retries.
   */
  async conditionalWrite(resource: ZkAclResource, acls: readonly ZkAclEntry[], expectedVersion: number): Promise<number | undefined> {
    const path = ZkPaths.aclResource(storeOf(resource.patternType).root, resource.resourceType, resource.name);
    try {
      if (acls.length === 0) {
        if (expectedVersion >= 0) await this.zk.delete(path, expectedVersion);
        return -1;
      }
      if (expectedVersion < 0) {
        await this.zk.createRecursive(path, AclZNode.encode(acls));
        return 0;
      }
      return (await this.zk.setData(path, AclZNode.encode(acls), expectedVersion)).version;
    } catch (e) {
      if (isZkError(e, 'BADVERSION') || isZkError(e, 'NODEEXISTS') || isZkError(e, 'NONODE')) return undefined;
      throw e;
    }
  }

  /** Kafka's createAclChangeNotification: a sequential node under the store's change path naming the resource. */
  async notifyChange(resource: ZkAclResource): Promise<void> {
    const store = storeOf(resource.patternType);
    await this.zk.createRecursive(`${store.changes}/${ZkPaths.aclChangePrefix}`, store.encodeChange(resource), 'PERSISTENT_SEQUENTIAL');
  }

  /**
   * Watches both change paths; every notification newer than the last one handled is decoded and passed to
   * `onChange` (in order, one at a time), and notifications older than 15 minutes are deleted. The existing
   * ones are processed at start, as Kafka's listener does.
   */
  watchChanges(onChange: (resource: ZkAclResource) => Promise<void>): void {
    for (const store of STORES) {
      this.watches.push(
        watchChildren(this.zk, store.changes, (children) => {
          this.queue.run(() => this.process(store, children ?? [], onChange)).catch((err: unknown) => log.error(`Error processing notifications under ${store.changes}`, err));
        }),
      );
    }
  }

  close(): void {
    for (const w of this.watches.splice(0)) w.close();
  }

  private async process(store: Store, children: string[], onChange: (resource: ZkAclResource) => Promise<void>): Promise<void> {
    const sorted = children.filter((c) => c.startsWith(ZkPaths.aclChangePrefix)).sort();
    for (const child of sorted) {
      const seq = Number(child.slice(ZkPaths.aclChangePrefix.length));
      const path = `${store.changes}/${child}`;
      const node = await this.zk.getData(path);
      if (node === null) continue;
      if (seq > (this.lastProcessed.get(store.changes) ?? -1)) {
        this.lastProcessed.set(store.changes, seq);
        try {
          await onChange(store.decodeChange(path, node.data));
        } catch (err) {
          // Kafka's ZkNodeChangeNotificationListener logs and goes on with the next notification.
          log.error(`error processing change notification ${node.data?.toString('utf8').slice(0, 500) ?? ''} from ${path}`, err);
        }
      }
      if (this.clock.nowMs() - node.stat.ctime > ACL_CHANGE_EXPIRATION_MS) await this.zk.delete(path).catch(() => undefined);
    }
  }
}
