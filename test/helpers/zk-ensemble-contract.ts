import type { ZkMode } from './four-letter-word';

// What a started ensemble offers, shared by the local (zk-ensemble.ts) and the Docker (zk-ensemble-docker.ts)
// flavours; in a file of its own so that the Docker flavour, which zk-ensemble.ts loads lazily, does not import
// zk-ensemble.ts back.

export interface ZkEnsembleOptions {
  /** Number of servers. Default 3. With 1, `server.1=` is still written, and ZooKeeper runs it standalone. */
  size?: number;
  /** Appended to `connectString` (e.g. "/kafka"). Nothing creates it: Kafka creates its chroot itself. */
  chroot?: string;
  /** ZooKeeper's tickTime; the session timeout floor is 2 ticks. Default 500 so elections and expiry are quick. */
  tickTimeMs?: number;
  /** How long start, restart and waitForQuorum wait for a quorum. Default 60000. */
  timeoutMs?: number;
  /** Local mode only: each server also serves TLS on `secureClientPort`, with these stores (x509 authentication). */
  tls?: { keyStore: string; trustStore: string; password: string };
}

export interface ZkNode {
  /** 0-based position in `nodes`; the server id (myid) is index + 1. */
  readonly index: number;
  readonly myid: number;
  readonly host: string;
  readonly clientPort: number;
  /** "host:clientPort" */
  readonly hostPort: string;
  /** The TLS port and "host:port" when the ensemble was started with `tls`. */
  readonly secureClientPort?: number;
  readonly secureHostPort?: string;
  /** The running java process (local mode only; undefined while stopped and in Docker mode). */
  readonly pid: number | undefined;
  /** Local mode only (empty in Docker mode). */
  readonly dataDir: string;
  readonly configFile: string;
  /** Everything the server logged (local mode only). */
  readonly logFile: string;
}

export interface ZkEnsemble {
  readonly nodes: readonly ZkNode[];
  /** All servers, "127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3", plus the chroot option if given. */
  readonly connectString: string;
  connectStringWithChroot(chroot: string): string;
  /** The server's role from `srvr`, undefined when it is down or not serving (electing, syncing). */
  mode(index: number): Promise<ZkMode | undefined>;
  /** Index of the server that says it is leader (or standalone), undefined when none does right now. */
  leaderIndex(): Promise<number | undefined>;
  /** Waits until every running server serves and exactly one of them leads. */
  waitForQuorum(options?: { timeoutMs?: number }): Promise<void>;
  /** Stops one server: SIGTERM (SIGKILL after 5 s), or SIGKILL straight away to simulate a crash. */
  stop(index: number, options?: { signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
  /** Starts a stopped server again (stopping it first if it runs) with its data, and waits for the quorum. */
  restart(index: number): Promise<void>;
  isRunning(index: number): boolean;
  /** Kills every server and removes its files. Safe to call twice. */
  close(): Promise<void>;
}

/** The chroot suffix of a connect string: '' for none or '/', otherwise '/a/b' with no trailing slash. */
export function normalizeChroot(chroot: string): string {
  if (chroot === '' || chroot === '/') return '';
  return (chroot.startsWith('/') ? chroot : `/${chroot}`).replace(/\/+$/, '');
}
