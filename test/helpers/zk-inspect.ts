import { ZkClient } from '../../src/zk/zk-client';

/** A ZooKeeper session for assertions, closed at the end of the test file. */
export async function inspectZk(connectString: string): Promise<ZkClient> {
  const zk = await ZkClient.connect({ connectString, sessionTimeoutMs: 30000, connectionTimeoutMs: 30000, name: 'test' });
  open.add(zk);
  return zk;
}

const open = new Set<ZkClient>();
try {
  if (typeof afterAll === 'function') afterAll(() => open.forEach((zk) => zk.close()));
} catch {
  // Called from inside a test: sessions end with the process.
}

export async function readJson(zk: ZkClient, path: string): Promise<Record<string, unknown> | null> {
  const node = await zk.getData(path);
  return node?.data ? (JSON.parse(node.data.toString('utf8')) as Record<string, unknown>) : null;
}
