import { EventEmitter } from 'node:events';
import { SYSTEM_CLOCK } from '../common/time';
import { getLogger, Logger } from '../common/logging/logging';
import { Semaphore } from '../common/semaphore';
import { ZkCode, ZkError } from './zk-error';

/** ZooKeeper's Stat, as the C client reports it. zxids fit a double (epoch << 32 | counter). */
export interface ZkStat {
  czxid: number;
  mzxid: number;
  ctime: number;
  mtime: number;
  version: number;
  cversion: number;
  aversion: number;
  ephemeralOwner: string;
  dataLength: number;
  numChildren: number;
  pzxid: number;
}

export type CreateMode = 'PERSISTENT' | 'EPHEMERAL' | 'PERSISTENT_SEQUENTIAL' | 'EPHEMERAL_SEQUENTIAL';

/** What fired a one-shot watch. `session` means the watch was lost with the session. */
export type WatchEventType = 'created' | 'deleted' | 'changed' | 'child' | 'session';
/** A watch callback; a promise it returns is awaited for its failure only (logged, never reaching the process). */
export type Watcher = (event: WatchEventType, path: string) => void | Promise<unknown>;

export interface ZkClientOptions {
  connectString: string;
  sessionTimeoutMs: number;
  connectionTimeoutMs: number;
  /** The name in log prefixes: `[ZooKeeperClient Kafka server] `. */
  name?: string;
  /** zookeeper.max.in.flight.requests (default 10): requests outstanding at once; the rest wait their turn. */
  maxInFlightRequests?: number;
}

type Callback = (...args: unknown[]) => void;

/** The callback surface of the npm `zookeeper` binding that this client uses. */
interface NativeZk extends EventEmitter {
  init(config: Record<string, unknown>): NativeZk;
  close(): void;
  readonly client_id: string;
  readonly client_password: string;
  a_create(path: string, data: Buffer | string | null, flags: number, cb: Callback): number;
  a_exists(path: string, watch: boolean, cb: Callback): number;
  aw_exists(path: string, watchCb: Callback, cb: Callback): number;
  a_get(path: string, watch: boolean, cb: Callback): number;
  aw_get(path: string, watchCb: Callback, cb: Callback): number;
  a_get_children(path: string, watch: boolean, cb: Callback): number;
  aw_get_children(path: string, watchCb: Callback, cb: Callback): number;
  a_set(path: string, data: Buffer | string | null, version: number, cb: Callback): number;
  a_delete_(path: string, version: number, cb: Callback): number;
}

interface NativeZkClass {
  new (config: Record<string, unknown>): NativeZk;
}

// The only import of the ZooKeeper binding in the project; everything else goes through ZkClient.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const NativeZooKeeper = require('zookeeper') as NativeZkClass;

const CREATE_FLAGS: Record<CreateMode, number> = { PERSISTENT: 0, EPHEMERAL: 1, PERSISTENT_SEQUENTIAL: 2, EPHEMERAL_SEQUENTIAL: 3 };
const EVENT_TYPES: Record<number, WatchEventType> = { 1: 'created', 2: 'deleted', 3: 'changed', 4: 'child', [-1]: 'session', [-2]: 'session' };
const EXPIRED_SESSION_STATE = -112;

export class ZkTimeoutError extends Error {}

/**
 * A promise API over the ZooKeeper C client, modelled on Kafka's ZooKeeperClient: operations that fail with
 * connection loss wait for the reconnection and are retried; when the session expires a new session is built
 * and the owners are told (before and after) so they can re-create their ephemeral nodes and re-arm watches.
 * Watches are one-shot, as in ZooKeeper: callers re-read and re-watch in one call (see zk-watch.ts).
 */
export class ZkClient {
  private handle: NativeZk;
  private connected = false;
  private closed = false;
  private readonly waiters = new Set<() => void>();
  private readonly beforeReinit = new Set<() => Promise<void> | void>();
  private readonly afterReinit = new Set<() => Promise<void> | void>();
  private readonly log: Logger;
  private reinitializing: Promise<void> | undefined;
  private readonly inFlight: Semaphore;

  private constructor(private readonly options: ZkClientOptions) {
    this.inFlight = new Semaphore(options.maxInFlightRequests ?? 10);
    this.log = getLogger('kafka.zookeeper.ZooKeeperClient', `[ZooKeeperClient ${options.name ?? 'Kafka server'}] `);
    this.handle = this.newHandle();
  }

  /** Opens a session; fails like Kafka (`Timed out waiting for connection while in state: CONNECTING`). */
  static async connect(options: ZkClientOptions): Promise<ZkClient> {
    const client = new ZkClient(options);
    try {
      await client.waitUntilConnected(options.connectionTimeoutMs);
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  /** The session id in decimal, comparable with ZkStat.ephemeralOwner. */
  get sessionId(): string {
    const id = this.handle.client_id;
    return /^[0-9a-fA-F]+$/.test(id) ? BigInt(`0x${id}`).toString() : id;
  }

  get sessionPassword(): string {
    return this.handle.client_password;
  }

  get isConnected(): boolean {
    return this.connected;
  }

  /** Runs before a replacement session is built after expiry (the controller resigns here). */
  onBeforeSessionReinitialized(handler: () => Promise<void> | void): () => void {
    this.beforeReinit.add(handler);
    return () => this.beforeReinit.delete(handler);
  }

  /** Runs once a replacement session exists (ephemeral nodes are re-created and watches re-armed here). */
  onSessionReinitialized(handler: () => Promise<void> | void): () => void {
    this.afterReinit.add(handler);
    return () => this.afterReinit.delete(handler);
  }

  private newHandle(): NativeZk {
    this.log.info(`Initializing a new session to ${this.options.connectString}.`);
    const handle = new NativeZooKeeper({
      connect: this.options.connectString,
      timeout: this.options.sessionTimeoutMs,
      debug_level: 0,
      host_order_deterministic: false,
      data_as_buffer: true,
    });
    handle.on('connect', () => {
      if (handle !== this.handle) return;
      this.connected = true;
      this.log.info('Connected.');
      for (const w of [...this.waiters]) w();
    });
    handle.on('connecting', () => {
      if (handle === this.handle) this.connected = false;
    });
    handle.on('close', (_self: unknown, code: unknown) => {
      if (handle !== this.handle) return;
      this.connected = false;
      if (this.closed) return;
      // The binding closes the handle on expiry (and on its own give-up heuristics): either way the session
      // is gone and a new one must be built.
      if (code === EXPIRED_SESSION_STATE) this.log.info('Session expired.');
      else this.log.warn(`Session closed by the client library (state ${String(code)}).`);
      this.scheduleReinitialize();
    });
    handle.init({});
    return handle;
  }

  private scheduleReinitialize(): void {
    if (this.reinitializing) return;
    this.reinitializing = (async () => {
      for (const h of [...this.beforeReinit]) await this.runHandler(h);
      while (!this.closed) {
        this.handle = this.newHandle();
        try {
          await this.waitUntilConnected(this.options.connectionTimeoutMs);
          break;
        } catch {
          this.log.warn(`Unable to re-establish a session to ${this.options.connectString}; retrying.`);
          this.handle.close();
        }
      }
      this.reinitializing = undefined;
      for (const w of [...this.waiters]) w();
      for (const h of [...this.afterReinit]) await this.runHandler(h);
    })();
  }

  private async runHandler(h: () => Promise<void> | void): Promise<void> {
    try {
      await h();
    } catch (err) {
      this.log.error('Error in a session re-initialisation handler', err);
    }
  }

  private waitUntilConnected(timeoutMs: number): Promise<void> {
    if (this.connected) return Promise.resolve();
    this.log.info('Waiting until connected.');
    return new Promise((resolve, reject) => {
      // A sleep, not an unref'd timer: until the session is up, this wait may be all that keeps the process alive.
      const connectedOrClosed = new AbortController();
      const done = (): void => {
        if (!this.connected && !this.closed) return;
        connectedOrClosed.abort();
        this.waiters.delete(done);
        if (this.closed) reject(new ZkError(ZkCode.CLOSING, ''));
        else resolve();
      };
      void SYSTEM_CLOCK.sleep(timeoutMs, connectedOrClosed.signal).then(() => {
        if (connectedOrClosed.signal.aborted) return;
        this.waiters.delete(done);
        reject(new ZkTimeoutError('Timed out waiting for connection while in state: CONNECTING'));
      });
      this.waiters.add(done);
    });
  }

  /** Waits for a connected session with no deadline but the client's own closing. */
  private async awaitConnection(): Promise<void> {
    while (!this.closed && (!this.connected || this.reinitializing)) {
      if (this.reinitializing) await this.reinitializing;
      else await this.waitUntilConnected(this.options.sessionTimeoutMs).catch(() => undefined);
    }
    if (this.closed) throw new ZkError(ZkCode.CLOSING, '');
  }

  /**
   * Issues one request and retries it after connection loss, as Kafka's ZooKeeperClient does. A retried create
   * may meet its own node (NODEEXISTS): callers that care compare ephemeralOwner with the session.
   */
  private async call<T>(path: string, issue: (h: NativeZk, cb: Callback) => number, read: (args: unknown[]) => T): Promise<T> {
    for (;;) {
      await this.awaitConnection();
      const release = await this.inFlight.acquire();
      const handle = this.handle;
      const result = await new Promise<{ rc: number; args: unknown[] }>((resolve) => {
        const rc = issue(handle, (...args: unknown[]) => resolve({ rc: args[0] as number, args }));
        if (rc !== ZkCode.OK) resolve({ rc, args: [] });
      }).finally(release);
      if (result.rc === ZkCode.OK) return read(result.args);
      const err = new ZkError(result.rc, path);
      if (this.closed) throw err;
      // A request caught on a handle closed by expiry comes back CLOSING: it belongs to the new session.
      const replaced = handle !== this.handle || this.reinitializing !== undefined;
      if (!(err.isConnectionLoss || err.code === 'INVALIDSTATE' || err.code === 'SESSIONEXPIRED' || (err.code === 'CLOSING' && replaced))) throw err;
      if (err.code === 'SESSIONEXPIRED' || err.code === 'INVALIDSTATE') this.connected = false;
    }
  }

  private wrapWatcher(watcher: Watcher): Callback {
    return (type: unknown, _state: unknown, path: unknown) => {
      const failed = (err: unknown): void => this.log.error('Error in a ZooKeeper watcher', err);
      try {
        const result = watcher(EVENT_TYPES[type as number] ?? 'session', String(path ?? ''));
        if (result instanceof Promise) result.catch(failed);
      } catch (err) {
        failed(err);
      }
    };
  }

  create(path: string, data: Buffer | null, mode: CreateMode = 'PERSISTENT'): Promise<string> {
    return this.call(path, (h, cb) => h.a_create(path, data, CREATE_FLAGS[mode], cb), (a) => String(a[2]));
  }

  /** Creates the node and any missing parents (parents without data), as Kafka's createRecursive. */
  async createRecursive(path: string, data: Buffer | null, mode: CreateMode = 'PERSISTENT'): Promise<string> {
    try {
      return await this.create(path, data, mode);
    } catch (err) {
      if (!(err instanceof ZkError) || err.code !== 'NONODE') throw err;
    }
    await this.ensurePath(path.slice(0, path.lastIndexOf('/')));
    return this.create(path, data, mode);
  }

  /** Makes sure a persistent path exists, creating each missing ancestor without data. */
  async ensurePath(path: string): Promise<void> {
    if (path === '' || path === '/') return;
    if ((await this.exists(path)) !== null) return;
    await this.ensurePath(path.slice(0, path.lastIndexOf('/')));
    try {
      await this.create(path, null);
    } catch (err) {
      if (!(err instanceof ZkError) || err.code !== 'NODEEXISTS') throw err;
    }
  }

  /** Stat, or null when the node does not exist; the watch (if any) is set either way. */
  async exists(path: string, watcher?: Watcher): Promise<ZkStat | null> {
    try {
      return await this.call(
        path,
        (h, cb) => (watcher ? h.aw_exists(path, this.wrapWatcher(watcher), cb) : h.a_exists(path, false, cb)),
        (a) => normalizeStat(a[2]),
      );
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NONODE') return null;
      throw err;
    }
  }

  /** Data and stat, or null when the node does not exist. */
  async getData(path: string, watcher?: Watcher): Promise<{ data: Buffer | null; stat: ZkStat } | null> {
    try {
      return await this.call(
        path,
        (h, cb) => (watcher ? h.aw_get(path, this.wrapWatcher(watcher), cb) : h.a_get(path, false, cb)),
        (a) => ({ stat: normalizeStat(a[2]), data: toBuffer(a[3]) }),
      );
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NONODE') return null;
      throw err;
    }
  }

  /** Children names (unsorted, as ZooKeeper returns them), or null when the node does not exist. */
  async getChildren(path: string, watcher?: Watcher): Promise<string[] | null> {
    try {
      return await this.call(
        path,
        (h, cb) => (watcher ? h.aw_get_children(path, this.wrapWatcher(watcher), cb) : h.a_get_children(path, false, cb)),
        (a) => (a[2] as string[] | undefined) ?? [],
      );
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NONODE') return null;
      throw err;
    }
  }

  /** Conditional write when version >= 0 (BADVERSION on a mismatch); -1 writes whatever the version. */
  setData(path: string, data: Buffer | null, version = -1): Promise<ZkStat> {
    return this.call(path, (h, cb) => h.a_set(path, data, version, cb), (a) => normalizeStat(a[2]));
  }

  delete(path: string, version = -1): Promise<void> {
    return this.call(path, (h, cb) => h.a_delete_(path, version, cb), () => undefined);
  }

  /** Depth-first delete of a subtree; a node that is already gone counts as deleted. */
  /**
   * Deletes `path` and everything under it. A child created meanwhile (an offset commit racing a group delete)
   * makes the delete fail with NOTEMPTY: the walk is repeated a few times before that error is given up.
   */
  async deleteRecursive(path: string, attempts = 5): Promise<void> {
    const children = await this.getChildren(path);
    if (children === null) return;
    for (const child of children) await this.deleteRecursive(`${path === '/' ? '' : path}/${child}`, attempts);
    try {
      await this.delete(path);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NONODE') return;
      if (err instanceof ZkError && err.code === 'NOTEMPTY' && attempts > 1) return this.deleteRecursive(path, attempts - 1);
      throw err;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connected = false;
    this.log.info('Closing.');
    for (const w of [...this.waiters]) w();
    this.handle.close();
    this.log.info('Closed.');
  }
}

function toBuffer(data: unknown): Buffer | null {
  if (data === null || data === undefined) return null;
  if (Buffer.isBuffer(data)) return data.length === 0 ? null : data;
  return Buffer.from(String(data), 'utf8');
}

/** The binding reports times as Date and the owner session as hex; Kafka prints both as decimal numbers. */
function normalizeStat(raw: unknown): ZkStat {
  const s = raw as Record<string, unknown>;
  const time = (v: unknown): number => (v instanceof Date ? v.getTime() : Number(v));
  const owner = String(s['ephemeralOwner'] ?? '0');
  return {
    czxid: Number(s['czxid']),
    mzxid: Number(s['mzxid']),
    ctime: time(s['ctime']),
    mtime: time(s['mtime']),
    version: Number(s['version']),
    cversion: Number(s['cversion']),
    aversion: Number(s['aversion']),
    ephemeralOwner: /^[0-9a-fA-F]+$/.test(owner) ? BigInt(`0x${owner}`).toString() : owner,
    dataLength: Number(s['dataLength']),
    numChildren: Number(s['numChildren']),
    pzxid: Number(s['pzxid']),
  };
}

/** ZooKeeper's Stat.toString(): the comma list Kafka logs after creating an ephemeral node. */
export function formatStat(s: ZkStat): string {
  return `${s.czxid},${s.mzxid},${s.ctime},${s.mtime},${s.version},${s.cversion},${s.aversion},${s.ephemeralOwner},${s.dataLength},${s.numChildren},${s.pzxid}\n`;
}
