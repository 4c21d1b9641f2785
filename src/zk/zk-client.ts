import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { SYSTEM_CLOCK } from '../common/time';
import { getLogger, Logger } from '../common/logging/logging';
import { Semaphore } from '../common/semaphore';
import { ZkCode, ZkError } from './zk-error';
import { CERTIFICATE_CREATOR, defaultAcls, isOpenAcl, ZkAcl, ZkDigestCredentials } from './zk-acls';
import { handleOutcome, HandleOutcome } from './handle-outcome';

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

export type { ZkAcl } from './zk-acls';

export type CreateMode = 'PERSISTENT' | 'EPHEMERAL' | 'PERSISTENT_SEQUENTIAL' | 'EPHEMERAL_SEQUENTIAL';

/** What fired a one-shot watch. `session` means the watch was lost with the session. */
export type WatchEventType = 'created' | 'deleted' | 'changed' | 'child' | 'session';
/** A watch callback; a promise it returns is awaited for its failure only (logged, never reaching the process). */
export type Watcher = (event: WatchEventType, path: string) => void | Promise<unknown>;

/** TLS protocol versions as OpenSSL numbers them (TLS1_VERSION = 0x0301 ... TLS1_3_VERSION = 0x0304). */
export type TlsProtocolNumber = 0x0301 | 0x0302 | 0x0303 | 0x0304;

/**
 * ZooKeeper over TLS, as `src/security/zookeeper-tls.ts` makes it from Kafka's zookeeper.ssl.* keys: the PEM files
 * the C client's zookeeper_init_ssl reads (its "ca,cert,key,passphrase", so none may hold a comma) and what the
 * TLS build of the binding applies to every connection.
 */
export interface ZkTls {
  caFile: string;
  /** The client certificate first, then its chain. */
  certFile: string;
  keyFile: string;
  /** The key file's passphrase (no comma); empty for an unencrypted key. */
  keyPassphrase: string;
  /**
   * The server's certificate must name the address connected to, or a host name of the connect string that
   * resolves to it (Kafka's zookeeper.ssl.endpoint.identification.algorithm=HTTPS); a mismatch fails the
   * connection like a bad chain does.
   */
  verifyHostname: boolean;
  minVersion: TlsProtocolNumber;
  maxVersion: TlsProtocolNumber;
  /** OpenSSL's cipher list for TLS 1.2 and below; undefined leaves OpenSSL's default. */
  cipherList?: string;
  /** OpenSSL's TLS 1.3 suites; undefined leaves OpenSSL's default. */
  cipherSuites?: string;
}

export interface ZkClientOptions {
  connectString: string;
  sessionTimeoutMs: number;
  connectionTimeoutMs: number;
  /** The name in log prefixes: `[ZooKeeperClient Kafka server] `. */
  name?: string;
  /** zookeeper.max.in.flight.requests (default 10): requests outstanding at once; the rest wait their turn. */
  maxInFlightRequests?: number;
  /**
   * The binding's response_counter_limit (default RESPONSE_COUNTER_LIMIT): polls in a row with nothing complete
   * to process before it closes the handle. Tests lower it to the binding's own default (10) to have handles
   * closed under them.
   */
  responseCounterLimit?: number;
  /**
   * Credentials every handle authenticates with (`digest` scheme) before its first request, as Kafka's client
   * logs in with its JAAS `Client` section.
   */
  auth?: ZkDigestCredentials;
  /**
   * Kafka's `isSecure` (zookeeper.set.acl on the broker, JaasUtils.isZkSaslEnabled in the tools): every node this
   * client creates gets ZkData.defaultAcls for its path, for the identity in `auth` (which it then requires).
   */
  secureAcls?: boolean;
  /**
   * Connect over TLS with this client certificate (Kafka's zookeeper.ssl.client.enable); needs the TLS build of
   * the binding (scripts/build-zookeeper-tls.sh). The servers then know the session by its certificate (the
   * `x509` scheme), and with `secureAcls` but no `auth` the nodes this client creates belong to that identity.
   */
  tls?: ZkTls;
  /** Kafka's ZooKeeperClientMetrics and SessionExpireListener meters, when the broker has metrics on. */
  observer?: ZkClientObserver;
}

/** The session events Kafka's ZooKeeperClient meters (`ZooKeeper<event>PerSec`) that this client can see. */
export type ZkSessionEvent = 'Disconnects' | 'SyncConnects' | 'AuthFailures' | 'Expires';

/** What a ZkClient reports to metrics; without one, no request is timed. */
export interface ZkClientObserver {
  /** One request's round trip in ms, from issue to its callback (Kafka's ZooKeeperRequestLatencyMs). */
  onRequest(latencyMs: number): void;
  onSessionEvent(event: ZkSessionEvent): void;
}

type Callback = (...args: unknown[]) => void;

/** The callback surface of the npm `zookeeper` binding that this client uses. */
interface NativeZk extends EventEmitter {
  init(config: Record<string, unknown>): NativeZk;
  close(): void;
  readonly client_id: string;
  readonly client_password: string;
  /** The negotiated session timeout (ms) once connected. */
  readonly timeout: number;
  a_create(path: string, data: Buffer | string | null, flags: number, cb: Callback): number;
  a_exists(path: string, watch: boolean, cb: Callback): number;
  aw_exists(path: string, watchCb: Callback, cb: Callback): number;
  a_get(path: string, watch: boolean, cb: Callback): number;
  aw_get(path: string, watchCb: Callback, cb: Callback): number;
  a_get_children(path: string, watch: boolean, cb: Callback): number;
  aw_get_children(path: string, watchCb: Callback, cb: Callback): number;
  a_set(path: string, data: Buffer | string | null, version: number, cb: Callback): number;
  a_delete_(path: string, version: number, cb: Callback): number;
  a_get_acl(path: string, cb: Callback): number;
  /** ACL entries as the binding's native side reads them: `perm`, not `perms`. */
  a_set_acl(path: string, version: number, acl: { perm: number; scheme: string; auth: string }[], cb: Callback): number;
  add_auth(scheme: string, auth: string, cb: Callback): number;
  /** The TLS build only: why this handle's last TLS connection attempt failed ('' when it did not). */
  readonly kafka_ts_tls_error?: string;
  /** The TLS build only: the version of scripts/zookeeper-tls' patch it was built from. */
  readonly kafka_ts_tls_patch?: number;
}

interface NativeZkClass {
  new (config: Record<string, unknown>): NativeZk;
}

// The only import of the ZooKeeper binding in the project; everything else goes through ZkClient.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const NativeZooKeeper = require('zookeeper') as NativeZkClass;

/** Where scripts/build-zookeeper-tls.sh puts the binding's TLS build, under the project's root. */
const TLS_BINDING = path.join('.kafka-ts', 'zookeeper-tls');
/**
 * The patch level (scripts/zookeeper-tls) this file needs: 2 added host name verification, protocol versions and
 * cipher suites. A build from an older patch would silently ignore them, so it is refused instead.
 */
const TLS_PATCH_LEVEL = 2;
let tlsZooKeeper: NativeZkClass | undefined;

/**
 * The TLS build of the binding (its native side calls zookeeper_init_ssl), loaded only when a client asks for
 * TLS: the stock binding, which every other client uses, stays as npm built it. Found from this file upwards, so
 * that src/ and dist/src/ both find it.
 */
function tlsZooKeeperClass(): NativeZkClass {
  if (tlsZooKeeper !== undefined) return tlsZooKeeper;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, TLS_BINDING);
    if (fs.existsSync(path.join(candidate, 'build', 'Release', 'zookeeper.node'))) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const loaded = require(candidate) as NativeZkClass;
      // A handle object that is never initialised: it opens nothing, and tells which patch the build has.
      const level = requestTarget(new loaded({})).kafka_ts_tls_patch ?? 1;
      if (level < TLS_PATCH_LEVEL) {
        throw new Error(`The TLS build of the zookeeper binding (${candidate}) is out of date (patch level ${level}, ${TLS_PATCH_LEVEL} needed): run scripts/build-zookeeper-tls.sh`);
      }
      tlsZooKeeper = loaded;
      return tlsZooKeeper;
    }
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(`ZooKeeper over TLS needs the TLS build of the zookeeper binding (${TLS_BINDING}), which is missing: run scripts/build-zookeeper-tls.sh (it needs Debian's libssl-dev)`);
}

/**
 * Where requests go. The binding's JavaScript wrapper formats every request's arguments with util.inspect for its
 * debug logger before forwarding them, logger or not: a tenth of the controller's CPU while it wrote 10,000
 * partition states. The request methods used here are plain forwards to the native object it holds (a_get's
 * and aw_get's convert data only without data_as_buffer, which is always set), so they are called on that.
 */
function requestTarget(handle: NativeZk): NativeZk {
  const inner = (handle as unknown as { native?: NativeZk }).native;
  return inner !== undefined && typeof inner.a_set === 'function' ? inner : handle;
}

/** The TLS build's init options for `tls` (the patched node-zk.cpp reads them). */
function tlsInitOptions(tls: ZkTls): Record<string, unknown> {
  return {
    cert: `${tls.caFile},${tls.certFile},${tls.keyFile},${tls.keyPassphrase}`,
    tls_verify_host: tls.verifyHostname,
    tls_min_version: tls.minVersion,
    tls_max_version: tls.maxVersion,
    ...(tls.cipherList === undefined ? {} : { tls_cipher_list: tls.cipherList }),
    ...(tls.cipherSuites === undefined ? {} : { tls_ciphersuites: tls.cipherSuites }),
  };
}

const CREATE_FLAGS: Record<CreateMode, number> = { PERSISTENT: 0, EPHEMERAL: 1, PERSISTENT_SEQUENTIAL: 2, EPHEMERAL_SEQUENTIAL: 3 };
const EVENT_TYPES: Record<number, WatchEventType> = { 1: 'created', 2: 'deleted', 3: 'changed', 4: 'child', [-1]: 'session', [-2]: 'session' };

/**
 * The binding closes a handle as if its session had expired (`realClose(ZOO_EXPIRED_SESSION_STATE)` in
 * node-zk.cpp) once zookeeper_process has returned ZNOTHING this many times in a row; its default is 10. ZNOTHING
 * is also what every partial read of a response gives, so the default ends any session that reads a large znode (a
 * 1 MB read takes about 20 reads on loopback). The limit stays finite so that a handle polling in a loop for good
 * still ends.
 */
const RESPONSE_COUNTER_LIMIT = 100_000;
/** Kafka's ZooKeeperClient.RetryBackoffMs: the pause before the next handle when one failed to connect. */
const RETRY_BACKOFF_MS = 1000;

export class ZkTimeoutError extends Error {}

/** A session as the binding identifies it (hex id and password), with its negotiated timeout. */
interface SessionCredentials {
  id: string;
  password: string;
  timeoutMs: number;
}


/** A one-shot watch set through a handle: `lost` delivers the `session` event when the handle goes first. */
interface TrackedWatch {
  readonly callback: Callback;
  /** The request did not set the watch after all (the C client keeps it only for some results). */
  forget(): void;
  lost(): void;
}

/**
 * A promise API over the ZooKeeper C client, modelled on Kafka's ZooKeeperClient: operations that fail with
 * connection loss wait for the reconnection and are retried; when the session expires a new session is built
 * and the owners are told (before and after) so they can re-create their ephemeral nodes and re-arm watches.
 * Watches are one-shot, as in ZooKeeper: callers re-read and re-watch in one call (see zk-watch.ts).
 *
 * A handle that the binding closes is not always a lost session: the binding closes handles on its own heuristics
 * (see RESPONSE_COUNTER_LIMIT) with the state it also uses for a real expiry. While the session can still be alive
 * on the servers (within its timeout of the last moment it was known alive here), the replacement handle resumes
 * it with its id and password, as the C client does itself after a disconnect; only if that is no longer possible
 * is a new session built. Either way the watches set through the closed handle get a `session` event, since the
 * replacement handle does not know them.
 */
export class ZkClient {
  private handle: NativeZk;
  private connected = false;
  private closed = false;
  private readonly closing = new AbortController();
  private readonly waiters = new Set<() => void>();
  private readonly beforeReinit = new Set<() => Promise<void> | void>();
  private readonly afterReinit = new Set<() => Promise<void> | void>();
  private readonly log: Logger;
  /** Set while a closed handle is being replaced; requests wait for it. */
  private recovering: Promise<void> | undefined;
  private readonly inFlight: Semaphore;
  /** The session held (or last held) and when it was last known alive here (hiResClockMs). */
  private session: SessionCredentials | undefined;
  private sessionAliveAt = 0;
  /** The binding closed a connected handle, which ends its session (see the close listener). */
  private sessionClosedByLibrary = false;
  private readonly outcomes = new WeakMap<NativeZk, Promise<HandleOutcome>>();
  /** Handles the binding has closed, with the state it gave. */
  private readonly closedHandles = new WeakMap<NativeZk, unknown>();
  /** Watches set through each handle and not fired yet. */
  private readonly watches = new Map<NativeZk, Set<TrackedWatch>>();
  /** Credentials added after connecting (zookeeper-shell's addauth), sent again on every replacement handle. */
  private readonly addedAuth: { scheme: string; auth: string }[] = [];
  /** Over TLS: why a closed handle's last TLS connection attempt failed, for the connection timeout's message. */
  private lastTlsError = '';

  private constructor(private readonly options: ZkClientOptions) {
    if (options.secureAcls === true && options.auth === undefined && options.tls === undefined) throw new Error('Secure ZooKeeper ACLs need the credentials (or the TLS certificate) of the identity that owns the znodes');
    const tls = options.tls;
    if (tls !== undefined && [tls.caFile, tls.certFile, tls.keyFile, tls.keyPassphrase].some((f) => f.includes(','))) throw new Error('The ZooKeeper TLS files and passphrase cannot hold a comma (the C client splits on commas)');
    this.inFlight = new Semaphore(options.maxInFlightRequests ?? 10);
    this.log = getLogger('kafka.zookeeper.ZooKeeperClient', `[ZooKeeperClient ${options.name ?? 'Kafka server'}] `);
    this.handle = this.newHandle(undefined);
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
    return hexToDecimal(this.handle.client_id);
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

  /** A handle for a new session, or one that resumes `resume`. */
  private newHandle(resume: SessionCredentials | undefined): NativeZk {
    if (resume) this.log.info(`Resuming session 0x${resume.id} on ${this.options.connectString}.`);
    else this.log.info(`Initializing a new session to ${this.options.connectString}.`);
    const tls = this.options.tls;
    const handle = new (tls === undefined ? NativeZooKeeper : tlsZooKeeperClass())({
      connect: this.options.connectString,
      timeout: this.options.sessionTimeoutMs,
      debug_level: 0,
      host_order_deterministic: false,
      data_as_buffer: true,
      response_counter_limit: this.options.responseCounterLimit ?? RESPONSE_COUNTER_LIMIT,
      ...(resume ? { client_id: resume.id, client_password: resume.password } : {}),
    });
    let settle!: (outcome: HandleOutcome) => void;
    this.outcomes.set(handle, new Promise<HandleOutcome>((resolve) => (settle = resolve)));
    // Whether the C client holds a connection now (this.connected may already be false: requests failed by a
    // close see it before the close event does).
    let up = false;
    handle.on('connect', () => {
      up = true;
      settle({ connected: true });
      if (handle !== this.handle || this.closed) return;
      this.connected = true;
      this.sessionClosedByLibrary = false;
      this.session = { id: handle.client_id, password: handle.client_password, timeoutMs: handle.timeout > 0 ? handle.timeout : this.options.sessionTimeoutMs };
      this.sessionAliveAt = SYSTEM_CLOCK.hiResClockMs();
      this.log.info('Connected.');
      this.options.observer?.onSessionEvent('SyncConnects');
      for (const w of [...this.waiters]) w();
    });
    handle.on('connecting', () => {
      const wasUp = up;
      up = false;
      if (handle !== this.handle) return;
      // The session was alive until this disconnect; the servers expire it a session timeout after.
      if (wasUp) {
        this.sessionAliveAt = SYSTEM_CLOCK.hiResClockMs();
        this.options.observer?.onSessionEvent('Disconnects');
      }
      this.connected = false;
    });
    handle.on('close', (_self: unknown, code: unknown) => {
      settle({ connected: false, code });
      if (tls !== undefined) this.lastTlsError = requestTarget(handle).kafka_ts_tls_error || this.lastTlsError;
      this.closedHandles.set(handle, code);
      const wasUp = up;
      up = false;
      if (handle !== this.handle) return;
      this.connected = false;
      if (this.closed) return;
      // zookeeper_close on a connected handle sends CloseSession: the binding has ended the session itself. On a
      // handle between servers it could not, and the session lives on until its timeout.
      if (wasUp) this.sessionClosedByLibrary = true;
      if (!this.recovering) this.recovering = this.replaceHandle(code);
    });
    handle.init(tls === undefined ? {} : tlsInitOptions(tls));
    this.authenticate(handle);
    return handle;
  }

  /**
   * Queues the digest credentials on a new handle. The C client sends them right after the connection handshake
   * (and again after every reconnection), ahead of any request, so no request runs unauthenticated.
   */
  private authenticate(handle: NativeZk): void {
    const auth = this.options.auth;
    const all = auth === undefined ? [] : [{ scheme: 'digest', auth: `${auth.username}:${auth.password}`, who: auth.username }];
    for (const a of this.addedAuth) all.push({ ...a, who: a.auth.split(':')[0] ?? '' });
    for (const a of all) {
      const rc = requestTarget(handle).add_auth(a.scheme, a.auth, (code: unknown) => {
        if (code !== ZkCode.OK) this.options.observer?.onSessionEvent('AuthFailures');
        if (code !== ZkCode.OK) this.log.error(`Authentication as ${a.who} with the ${a.scheme} scheme failed: ${new ZkError(Number(code), '').code}`);
      });
      if (rc !== ZkCode.OK) this.log.error(`Could not queue the authentication as ${a.who} with the ${a.scheme} scheme: ${new ZkError(rc, '').code}`);
    }
  }

  /**
   * ZooKeeper's addAuthInfo on the open session (zookeeper-shell's `addauth`): resolves once the server has taken
   * it, fails with AUTHFAILED when it refused it. Later handles send it again.
   */
  async addAuth(scheme: string, auth: string): Promise<void> {
    await this.call('', (h, cb) => h.add_auth(scheme, auth, cb), () => undefined);
    this.addedAuth.push({ scheme, auth });
  }

  /**
   * Replaces a handle that the binding closed, until one connects: resuming the session while it can still be
   * alive, otherwise with a new session, with the owners' hooks around it (Kafka's reinitialize, which also
   * retries until a handle exists). The C client moves between servers by itself, so a handle is replaced only
   * when the binding has closed it.
   */
  private async replaceHandle(firstCode: unknown): Promise<void> {
    const lost = this.session;
    let code = firstCode;
    let beforeHooksRun = false;
    let resumed = false;
    try {
      for (;;) {
        const sinceAliveMs = SYSTEM_CLOCK.hiResClockMs() - this.sessionAliveAt;
        const resume = lost !== undefined && !this.sessionClosedByLibrary && sinceAliveMs < lost.timeoutMs ? lost : undefined;
        if (resume) {
          this.log.warn(
            `The client library closed the handle while reconnecting (state ${String(code)}), ${Math.round(sinceAliveMs)} ms after session 0x${resume.id} was last connected: within its ${resume.timeoutMs} ms timeout, so it may be alive.`,
          );
        } else if (!beforeHooksRun) {
          // Kafka logs "Session expired." and reinitializes; a handle closed past the session timeout, or one
          // whose session the binding closed, is taken for the same.
          if (lost === undefined) this.log.warn(`The client library closed the handle (state ${String(code)}) before a session was established.`);
          else if (this.sessionClosedByLibrary) this.log.warn(`The client library closed the connected handle (state ${String(code)}), and with it session 0x${lost.id}.`);
          this.log.info('Session expired.');
          this.options.observer?.onSessionEvent('Expires');
          beforeHooksRun = true;
          for (const h of [...this.beforeReinit]) await this.runHandler(h);
        }
        if (this.closed) return;
        this.handle = this.newHandle(resume);
        const outcome = await this.outcomeWithin(this.handle, resume?.timeoutMs ?? this.options.sessionTimeoutMs);
        if (this.closed) return;
        // Connected and closed already (the close found recovering still set and left it to this loop).
        if (outcome.connected && !this.closedHandles.has(this.handle)) {
          resumed = resume !== undefined && this.handle.client_id === resume.id;
          break;
        }
        code = outcome.connected ? this.closedHandles.get(this.handle) : outcome.code;
        this.log.info(`Unable to connect with the new handle (state ${String(code)}); retrying in ${RETRY_BACKOFF_MS} ms.`);
        await SYSTEM_CLOCK.sleep(RETRY_BACKOFF_MS, this.closing.signal);
        if (this.closed) return;
      }
    } finally {
      this.recovering = undefined;
    }
    // The watches set through the closed handles are gone with them: their owners re-read and re-watch.
    for (const [handle, watches] of [...this.watches]) {
      if (handle === this.handle) continue;
      this.watches.delete(handle);
      for (const w of [...watches]) w.lost();
    }
    for (const w of [...this.waiters]) w();
    if (resumed) {
      this.log.info(`Session 0x${this.handle.client_id} resumed: its ephemeral nodes are intact.`);
      return;
    }
    if (!beforeHooksRun) for (const h of [...this.beforeReinit]) await this.runHandler(h);
    for (const h of [...this.afterReinit]) await this.runHandler(h);
  }

  /** The handle's outcome, or a failure after closing it when it has none within `withinMs` (handle-outcome.ts). */
  private outcomeWithin(handle: NativeZk, withinMs: number): Promise<HandleOutcome> {
    return handleOutcome(this.outcomes.get(handle) as Promise<HandleOutcome>, withinMs, SYSTEM_CLOCK, this.closing.signal, () => {
      this.log.warn(`The new handle neither connected nor was closed by the client library within ${withinMs} ms: closing it.`);
      handle.close();
    });
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
        // Kafka's message; over TLS, with why the last handshake failed (a certificate for another host, say),
        // which is all that distinguishes a refused connection from an unreachable server.
        const tlsError = this.options.tls === undefined ? '' : requestTarget(this.handle).kafka_ts_tls_error || this.lastTlsError;
        reject(new ZkTimeoutError(`Timed out waiting for connection while in state: CONNECTING${tlsError === '' ? '' : ` (ZooKeeper TLS: ${tlsError})`}`));
      });
      this.waiters.add(done);
    });
  }

  /** Waits for a connected session with no deadline but the client's own closing. */
  private async awaitConnection(): Promise<void> {
    while (!this.closed && (!this.connected || this.recovering)) {
      if (this.recovering) await this.recovering;
      else await this.waitUntilConnected(this.options.sessionTimeoutMs).catch(() => undefined);
    }
    if (this.closed) throw new ZkError(ZkCode.CLOSING, '');
  }

  /**
   * Issues one request and retries it after connection loss, as Kafka's ZooKeeperClient does. A retried create
   * may meet its own node (NODEEXISTS): callers that care compare ephemeralOwner with the session. `watch` is set
   * with the request; `watchKept` says for which results the C client keeps it.
   */
  private async call<T>(
    path: string,
    issue: (h: NativeZk, cb: Callback, watcher: Callback | undefined) => number,
    read: (args: unknown[]) => T,
    watch?: { watcher: Watcher; watchKept: (rc: number) => boolean },
  ): Promise<T> {
    for (;;) {
      await this.awaitConnection();
      const release = await this.inFlight.acquire();
      const handle = this.handle;
      const tracked = watch ? this.trackWatch(handle, watch.watcher) : undefined;
      const observer = this.options.observer;
      const sent = observer === undefined ? 0 : SYSTEM_CLOCK.hiResClockMs();
      const result = await new Promise<{ rc: number; args: unknown[] }>((resolve) => {
        const rc = issue(requestTarget(handle), (...args: unknown[]) => resolve({ rc: args[0] as number, args }), tracked?.callback);
        if (rc !== ZkCode.OK) resolve({ rc, args: [] });
      }).finally(release);
      // A request the client refused at once (rc set without a callback) never went out: no round trip to count.
      if (observer !== undefined && result.args.length > 0) observer.onRequest(SYSTEM_CLOCK.hiResClockMs() - sent);
      if (tracked && !(watch as { watchKept: (rc: number) => boolean }).watchKept(result.rc)) tracked.forget();
      if (result.rc === ZkCode.OK) return read(result.args);
      const err = new ZkError(result.rc, path);
      if (this.closed) throw err;
      // CLOSING and INVALIDSTATE: the handle was closed under the request (by the binding, since this client is
      // not closed), or it was issued on one already closed; either way it belongs to the replacement handle.
      if (!(err.isConnectionLoss || err.code === 'INVALIDSTATE' || err.code === 'SESSIONEXPIRED' || err.code === 'CLOSING')) throw err;
      if (handle === this.handle && !err.isConnectionLoss) this.connected = false;
    }
  }

  /**
   * Wraps a watcher for one request on `handle`. Events from the C client pass through (session events do not
   * use the watch up); if the handle is closed first, `lost` delivers a `session` event instead.
   */
  private trackWatch(handle: NativeZk, watcher: Watcher): TrackedWatch {
    let set = this.watches.get(handle);
    if (set === undefined) this.watches.set(handle, (set = new Set()));
    const deliver = (event: WatchEventType, path: string): void => {
      const failed = (err: unknown): void => this.log.error('Error in a ZooKeeper watcher', err);
      try {
        const result = watcher(event, path);
        if (result instanceof Promise) result.catch(failed);
      } catch (err) {
        failed(err);
      }
    };
    const tracked: TrackedWatch = {
      callback: (type: unknown, _state: unknown, path: unknown) => {
        const event = EVENT_TYPES[type as number] ?? 'session';
        if (event !== 'session') set.delete(tracked);
        deliver(event, String(path ?? ''));
      },
      forget: () => set.delete(tracked),
      lost: () => deliver('session', ''),
    };
    set.add(tracked);
    return tracked;
  }

  /** ZkData.defaultAcls for a path of this client (OPEN_ACL_UNSAFE without secure ACLs). */
  defaultAcls(path: string): readonly ZkAcl[] {
    if (this.options.secureAcls !== true) return defaultAcls(undefined, path);
    return defaultAcls(this.options.auth ?? (this.options.tls !== undefined ? CERTIFICATE_CREATOR : undefined), path);
  }

  /**
   * Creates a node with ZkData.defaultAcls for its path. The binding creates every node with OPEN_ACL_UNSAFE (its
   * create takes no ACL), so with secure ACLs the node's ACL is set right after, on the same session: for that
   * round trip the new node is open. A node consumed in between (a notification the controller already deleted)
   * needs no ACL.
   */
  async create(path: string, data: Buffer | null, mode: CreateMode = 'PERSISTENT'): Promise<string> {
    const acl = this.defaultAcls(path);
    let attempts = 0;
    let created: string;
    try {
      created = await this.call(
        path,
        (h, cb) => {
          attempts++;
          return h.a_create(path, data, CREATE_FLAGS[mode], cb);
        },
        (a) => String(a[2]),
      );
    } catch (err) {
      // A create retried after a connection loss may meet the node its first attempt made, still open: that node
      // gets its ACL before the caller (who may take NODEEXISTS for success) goes on. A node that was already there
      // open is not this client's to change (zookeeper-security-migration is).
      if (!isOpenAcl(acl) && attempts > 1 && err instanceof ZkError && err.code === 'NODEEXISTS') await this.secureIfOpen(path, acl);
      throw err;
    }
    if (!isOpenAcl(acl)) await this.secureIfOpen(created, acl, false);
    return created;
  }

  /** Sets `acl` on a node (only if its ACL is still open when `onlyIfOpen`); a node gone meanwhile is left alone. */
  private async secureIfOpen(path: string, acl: readonly ZkAcl[], onlyIfOpen = true): Promise<void> {
    try {
      if (onlyIfOpen && !isOpenAcl((await this.getAcl(path)).acl)) return;
      await this.setAcl(path, acl);
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
    }
  }

  /** Replaces a node's ACL (conditional on its aversion when version >= 0). */
  setAcl(path: string, acl: readonly ZkAcl[], version = -1): Promise<void> {
    const entries = acl.map((e) => ({ perm: e.perms, scheme: e.scheme, auth: e.id }));
    return this.call(path, (h, cb) => h.a_set_acl(path, version, entries, cb), () => undefined);
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
        (h, cb, w) => (w ? h.aw_exists(path, w, cb) : h.a_exists(path, false, cb)),
        (a) => normalizeStat(a[2]),
        watcher && { watcher, watchKept: (rc) => rc === ZkCode.OK || rc === ZkCode.NONODE },
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
        (h, cb, w) => (w ? h.aw_get(path, w, cb) : h.a_get(path, false, cb)),
        (a) => ({ stat: normalizeStat(a[2]), data: toBuffer(a[3]) }),
        watcher && { watcher, watchKept: (rc) => rc === ZkCode.OK },
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
        (h, cb, w) => (w ? h.aw_get_children(path, w, cb) : h.a_get_children(path, false, cb)),
        (a) => (a[2] as string[] | undefined) ?? [],
        watcher && { watcher, watchKept: (rc) => rc === ZkCode.OK },
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

  /** The node's ACL entries (`perms` as ZooKeeper's bit mask) and its stat. */
  getAcl(path: string): Promise<{ acl: ZkAcl[]; stat: ZkStat }> {
    return this.call(
      path,
      (h, cb) => h.a_get_acl(path, cb),
      (a) => ({
        acl: ((a[2] as { perms?: number; perm?: number; scheme: string; auth: string }[] | undefined) ?? []).map((e) => ({ perms: e.perms ?? e.perm ?? 0, scheme: e.scheme, id: e.auth })),
        stat: normalizeStat(a[3]),
      }),
    );
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
    this.closing.abort();
    this.log.info('Closing.');
    for (const w of [...this.waiters]) w();
    this.handle.close();
    this.log.info('Closed.');
  }
}

/** The binding's session ids are hex; Kafka prints them (and ZkStat.ephemeralOwner) in decimal. */
function hexToDecimal(id: string): string {
  return /^[0-9a-fA-F]+$/.test(id) ? BigInt(`0x${id}`).toString() : id;
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
    ephemeralOwner: hexToDecimal(owner),
    dataLength: Number(s['dataLength']),
    numChildren: Number(s['numChildren']),
    pzxid: Number(s['pzxid']),
  };
}

/** ZooKeeper's Stat.toString(): the comma list Kafka logs after creating an ephemeral node. */
export function formatStat(s: ZkStat): string {
  return `${s.czxid},${s.mzxid},${s.ctime},${s.mtime},${s.version},${s.cversion},${s.aversion},${s.ephemeralOwner},${s.dataLength},${s.numChildren},${s.pzxid}\n`;
}
