import { getLogger } from '../common/logging/logging';
import { ZkClient, ZkStat } from './zk-client';

const log = getLogger('kafka.zookeeper.ZooKeeperClient');

export interface ZkWatch {
  /** Stops re-arming; a watch already set in ZooKeeper fires once more into nothing. */
  close(): void;
}

/**
 * A standing watch: ZooKeeper watches are one-shot, so each time one fires (and after a new session replaces
 * an expired one) the node is re-read with a new watch in the same call, and the handler gets what was read.
 * Handlers see every change at least once, possibly coalesced, never a stale value after a newer one.
 */
function standingWatch<T>(zk: ZkClient, path: string, read: (watcher: () => void) => Promise<T>, handler: (value: T) => void): ZkWatch {
  let closed = false;
  let generation = 0;
  const arm = (): void => {
    if (closed) return;
    const mine = ++generation;
    // Only the newest read's watch re-arms, so watches left over from older reads cannot multiply.
    read(() => {
      if (mine === generation) arm();
    })
      .then((value) => {
        if (!closed && mine === generation) handler(value);
      })
      .catch((err: unknown) => {
        if (!closed) log.warn(`Unable to watch ${path}`, err);
      });
  };
  const stopReinit = zk.onSessionReinitialized(() => arm());
  arm();
  return {
    close(): void {
      closed = true;
      stopReinit();
    },
  };
}

/** Children of a node (null while it does not exist), re-delivered on every child change. */
export function watchChildren(zk: ZkClient, path: string, handler: (children: string[] | null) => void): ZkWatch {
  return standingWatch(
    zk,
    path,
    async (watcher) => {
      const children = await zk.getChildren(path, () => watcher());
      // A missing parent sets no child watch: watch for its creation instead.
      if (children === null && (await zk.exists(path, () => watcher())) !== null) return zk.getChildren(path, () => watcher());
      return children;
    },
    handler,
  );
}

/** Data of a node (null while it does not exist), re-delivered on creation, change and deletion. */
export function watchData(zk: ZkClient, path: string, handler: (node: { data: Buffer | null; stat: ZkStat } | null) => void): ZkWatch {
  return standingWatch(
    zk,
    path,
    async (watcher) => {
      const node = await zk.getData(path, () => watcher());
      if (node === null && (await zk.exists(path, () => watcher())) !== null) return zk.getData(path, () => watcher());
      return node;
    },
    handler,
  );
}
