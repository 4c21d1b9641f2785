import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { inheritableFds, stdioWithoutInheritedFds } from '../../../src/common/child-process';
import { ZkClient, ZkTimeoutError } from '../../../src/zk/zk-client';

/** The socket inodes ("socket:[123]") a child started with `stdio` holds, as `ls -l /proc/self/fd` shows them. */
function childSockets(stdio: Parameters<typeof stdioWithoutInheritedFds>[0]): string[] {
  const out = spawnSync('sh', ['-c', 'ls -l /proc/$$/fd'], { stdio, encoding: 'utf8' }).stdout ?? '';
  return out.match(/socket:\[\d+\]/g) ?? [];
}

describe('stdioWithoutInheritedFds', () => {
  it("keeps a ZooKeeper client's socket (no close-on-exec) out of the child", async () => {
    // A server that accepts and never answers: the C client's socket stays open, waiting for the handshake.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const before = new Set(inheritableFds());
    const connecting = ZkClient.connect({ connectString: `127.0.0.1:${port}`, sessionTimeoutMs: 6000, connectionTimeoutMs: 1000 });
    try {
      const zkSockets = inheritableFds()
        .filter((fd) => !before.has(fd))
        .map((fd) => fs.readlinkSync(`/proc/self/fd/${fd}`));
      expect(zkSockets).toHaveLength(1);
      expect(zkSockets[0]).toMatch(/^socket:\[\d+\]$/);
      // A plain spawn hands the socket to the child; the helper replaces it there with /dev/null.
      expect(childSockets(['ignore', 'pipe', 'pipe'])).toContain(zkSockets[0]);
      expect(childSockets(stdioWithoutInheritedFds(['ignore', 'pipe', 'pipe']))).not.toContain(zkSockets[0]);
      expect(childSockets(stdioWithoutInheritedFds('pipe'))).not.toContain(zkSockets[0]);
    } finally {
      await expect(connecting).rejects.toThrow(ZkTimeoutError);
      silent.close();
    }
  });

  it('leaves what stdio names alone', () => {
    expect(stdioWithoutInheritedFds(['ignore', 'pipe', 'inherit']).slice(0, 3)).toEqual(['ignore', 'pipe', 'inherit']);
  });
});
