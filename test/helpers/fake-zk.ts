import { CreateMode, ZkClient, ZkStat } from '../../src/zk/zk-client';
import { ZkCode, ZkError } from '../../src/zk/zk-error';

interface FakeNode {
  data: Buffer | null;
  stat: ZkStat;
}

/**
 * An in-memory ZooKeeper for unit tests of the code that reads and writes znodes (ControllerZk, AdminZk,
 * BrokerRegistryZk, ZkOffsetStore ...): the subset of ZkClient they use, with ZooKeeper's semantics for
 * versions (setData bumps `version`, conditional setData/delete answer BADVERSION), czxids, ephemeral owners,
 * NONODE for a missing parent and NODEEXISTS. Watches are accepted and never fire: tests drive the events. Cast it where a
 * ZkClient is wanted with `fake.client`.
 */
export class FakeZk {
  readonly nodes = new Map<string, FakeNode>();
  sessionId = '1001';
  private zxid = 100;

  get client(): ZkClient {
    return this as unknown as ZkClient;
  }

  /** Sessions never expire here. */
  onBeforeSessionReinitialized(): () => void {
    return () => undefined;
  }

  onSessionReinitialized(): () => void {
    return () => undefined;
  }

  /** Puts a node in place (parents too), as someone else wrote it; `owner` makes it ephemeral of that session. */
  put(path: string, data: string | Buffer | null, owner = '0'): void {
    this.ensureParents(path);
    const existing = this.nodes.get(path);
    const buf = data === null ? null : Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
    if (existing !== undefined) {
      existing.data = buf;
      existing.stat = { ...existing.stat, version: existing.stat.version + 1, mzxid: ++this.zxid };
      return;
    }
    this.nodes.set(path, { data: buf, stat: this.newStat(owner) });
  }

  text(path: string): string | undefined {
    const node = this.nodes.get(path);
    return node === undefined ? undefined : (node.data?.toString('utf8') ?? '');
  }

  private newStat(owner: string): ZkStat {
    const zxid = ++this.zxid;
    return { czxid: zxid, mzxid: zxid, ctime: 0, mtime: 0, version: 0, cversion: 0, aversion: 0, ephemeralOwner: owner, dataLength: 0, numChildren: 0, pzxid: zxid };
  }

  private ensureParents(path: string): void {
    const parts = path.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const p = `/${parts.slice(0, i).join('/')}`;
      if (!this.nodes.has(p)) this.nodes.set(p, { data: null, stat: this.newStat('0') });
    }
  }

  private parentOf(path: string): string {
    return path.slice(0, path.lastIndexOf('/')) || '/';
  }

  async create(path: string, data: Buffer | null, mode: CreateMode = 'PERSISTENT'): Promise<string> {
    let actual = path;
    if (mode === 'PERSISTENT_SEQUENTIAL' || mode === 'EPHEMERAL_SEQUENTIAL') actual = `${path}${String(++this.zxid).padStart(10, '0')}`;
    if (this.nodes.has(actual)) throw new ZkError(ZkCode.NODEEXISTS, actual);
    const parent = this.parentOf(actual);
    if (parent !== '/' && !this.nodes.has(parent)) throw new ZkError(ZkCode.NONODE, actual);
    this.nodes.set(actual, { data, stat: this.newStat(mode.startsWith('EPHEMERAL') ? this.sessionId : '0') });
    return actual;
  }

  async createRecursive(path: string, data: Buffer | null, mode: CreateMode = 'PERSISTENT'): Promise<string> {
    await this.ensurePath(this.parentOf(path));
    return this.create(path, data, mode);
  }

  async ensurePath(path: string): Promise<void> {
    if (path === '/' || path === '') return;
    this.ensureParents(`${path}/x`);
  }

  async exists(path: string): Promise<ZkStat | null> {
    const node = this.nodes.get(path);
    return node === undefined ? null : { ...node.stat };
  }

  async getData(path: string): Promise<{ data: Buffer | null; stat: ZkStat } | null> {
    const node = this.nodes.get(path);
    return node === undefined ? null : { data: node.data, stat: { ...node.stat } };
  }

  async getChildren(path: string): Promise<string[] | null> {
    if (path !== '/' && !this.nodes.has(path)) return null;
    const prefix = path === '/' ? '/' : `${path}/`;
    return [...this.nodes.keys()].filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/')).map((p) => p.slice(prefix.length));
  }

  async setData(path: string, data: Buffer | null, version = -1): Promise<ZkStat> {
    const node = this.nodes.get(path);
    if (node === undefined) throw new ZkError(ZkCode.NONODE, path);
    if (version >= 0 && node.stat.version !== version) throw new ZkError(ZkCode.BADVERSION, path);
    node.data = data;
    node.stat = { ...node.stat, version: node.stat.version + 1, mzxid: ++this.zxid };
    return { ...node.stat };
  }

  async delete(path: string, version = -1): Promise<void> {
    const node = this.nodes.get(path);
    if (node === undefined) throw new ZkError(ZkCode.NONODE, path);
    if (version >= 0 && node.stat.version !== version) throw new ZkError(ZkCode.BADVERSION, path);
    if (((await this.getChildren(path)) ?? []).length > 0) throw new ZkError(ZkCode.NOTEMPTY, path);
    this.nodes.delete(path);
  }

  async deleteRecursive(path: string): Promise<void> {
    for (const child of (await this.getChildren(path)) ?? []) await this.deleteRecursive(`${path}/${child}`);
    this.nodes.delete(path);
  }
}
