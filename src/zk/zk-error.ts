/** ZooKeeper result codes (zookeeper.h), by the names Kafka's logs and ZooKeeper's KeeperException use. */
export const ZkCode = {
  OK: 0,
  SYSTEMERROR: -1,
  RUNTIMEINCONSISTENCY: -2,
  DATAINCONSISTENCY: -3,
  CONNECTIONLOSS: -4,
  MARSHALLINGERROR: -5,
  UNIMPLEMENTED: -6,
  OPERATIONTIMEOUT: -7,
  BADARGUMENTS: -8,
  INVALIDSTATE: -9,
  APIERROR: -100,
  NONODE: -101,
  NOAUTH: -102,
  BADVERSION: -103,
  NOCHILDRENFOREPHEMERALS: -108,
  NODEEXISTS: -110,
  NOTEMPTY: -111,
  SESSIONEXPIRED: -112,
  INVALIDCALLBACK: -113,
  INVALIDACL: -114,
  AUTHFAILED: -115,
  CLOSING: -116,
  NOTHING: -117,
  SESSIONMOVED: -118,
} as const;

export type ZkCodeName = keyof typeof ZkCode;

const NAMES = new Map<number, ZkCodeName>(Object.entries(ZkCode).map(([k, v]) => [v, k as ZkCodeName]));

/** A failed ZooKeeper operation, shaped like ZooKeeper's `KeeperErrorCode = NoNode for /path`. */
export class ZkError extends Error {
  readonly code: ZkCodeName;
  readonly path: string;

  constructor(rc: number, path: string) {
    const code = NAMES.get(rc) ?? 'SYSTEMERROR';
    super(`KeeperErrorCode = ${code} for ${path}`);
    this.name = 'ZkError';
    this.code = code;
    this.path = path;
  }

  /** Errors after which the same request may succeed on a re-established connection. */
  get isConnectionLoss(): boolean {
    return this.code === 'CONNECTIONLOSS' || this.code === 'OPERATIONTIMEOUT';
  }
}

export function isZkError(err: unknown, code: ZkCodeName): err is ZkError {
  return err instanceof ZkError && err.code === code;
}
