import { CreateMode, ZkAcl, ZkClient, ZkStat, ZkTls } from './zk-client';
import { ZkError } from './zk-error';
import type { ZkDigestCredentials } from './zk-acls';

/**
 * What `zookeeper-shell` (ZooKeeper's CLI, ZooKeeperMain) does to ZooKeeper, over one ZkClient session: each
 * method is one CLI command's requests. The connect string may carry a chroot (`host:port/kafka`), which the C
 * client applies, so paths here are the shell user's. Failures are `ZkError`s; the shell words them.
 */
export class ZkShellSession {
  private constructor(private readonly zk: ZkClient) {}

  static async connect(connectString: string, sessionTimeoutMs = 30000, auth?: ZkDigestCredentials, tls?: ZkTls): Promise<ZkShellSession> {
    return new ZkShellSession(await ZkClient.connect({ connectString, sessionTimeoutMs, connectionTimeoutMs: sessionTimeoutMs, name: 'zookeeper-shell', ...(auth ? { auth } : {}), ...(tls ? { tls } : {}) }));
  }

  private static missing(path: string): ZkError {
    return new ZkError(-101, path);
  }

  /** Children (sorted, as the CLI prints them) and the parent's stat. */
  async ls(path: string): Promise<{ children: string[]; stat: ZkStat }> {
    const children = await this.zk.getChildren(path);
    const stat = await this.zk.exists(path);
    if (children === null || stat === null) throw ZkShellSession.missing(path);
    return { children: [...children].sort(), stat };
  }

  /** ZKUtil.visitSubTreeDFS: the path and every node below it, depth first. */
  async lsRecursive(path: string): Promise<string[]> {
    const out: string[] = [path];
    const { children } = await this.ls(path);
    for (const child of children) {
      try {
        out.push(...(await this.lsRecursive(path === '/' ? `/${child}` : `${path}/${child}`)));
      } catch (err) {
        // A child deleted during the walk is skipped, as the CLI's callback ignores NONODE.
        if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
      }
    }
    return out;
  }

  async get(path: string): Promise<{ data: Buffer | null; stat: ZkStat }> {
    const r = await this.zk.getData(path);
    if (r === null) throw ZkShellSession.missing(path);
    return r;
  }

  async stat(path: string): Promise<ZkStat> {
    const stat = await this.zk.exists(path);
    if (stat === null) throw ZkShellSession.missing(path);
    return stat;
  }

  /** The created path (with its sequence number for sequential nodes). */
  create(path: string, data: Buffer | null, mode: CreateMode): Promise<string> {
    return this.zk.create(path, data, mode);
  }

  set(path: string, data: Buffer | null, version: number): Promise<ZkStat> {
    return this.zk.setData(path, data, version);
  }

  delete(path: string, version: number): Promise<void> {
    return this.zk.delete(path, version);
  }

  /** ZKUtil.deleteRecursive: the subtree, leaves first; the node must exist. */
  async deleteAll(path: string): Promise<void> {
    await this.stat(path);
    await this.zk.deleteRecursive(path);
  }

  /** `addauth scheme auth`: the session authenticates as that identity too. */
  addAuth(scheme: string, auth: string): Promise<void> {
    return this.zk.addAuth(scheme, auth);
  }

  getAcl(path: string): Promise<{ acl: ZkAcl[]; stat: ZkStat }> {
    return this.zk.getAcl(path);
  }

  close(): void {
    this.zk.close();
  }
}
