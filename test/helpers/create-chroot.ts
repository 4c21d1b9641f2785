import { runTool } from './run-tool';
import { waitUntil } from './wait-until';

/**
 * Creates a chroot znode with zookeeper-shell, as an operator does before running `--zookeeper` tools against a
 * chroot no broker has created yet. An ensemble that has just formed can still drop a client (a follower that
 * falls behind syncLimit on a loaded machine goes back to LOOKING), and the shell, as ZooKeeper's own, gives up on
 * the first ConnectionLoss; so does the operator's first try, and they run it again. A retry that finds the node
 * created by a try whose answer was lost has succeeded. Any other failure ends the wait with the shell's output.
 */
export async function createChroot(connectString: string, chroot: string): Promise<void> {
  const tries: string[] = [];
  const outcome = await waitUntil(
    async () => {
      const r = await runTool('zookeeper-shell', [connectString, 'create', chroot, '']);
      if (r.code === 0 || (tries.length > 0 && r.output.includes(`Node already exists: ${chroot}`))) return 'created';
      tries.push(`exit ${r.code}: ${r.output.trim()}`);
      return /ConnectionLoss|Session expired|OperationTimeout|Unable to connect/.test(r.output) ? false : 'failed';
    },
    { timeoutMs: 90000, intervalMs: 500, message: () => `zookeeper-shell to create ${chroot} (${tries.join('; ')})` },
  );
  if (outcome === 'failed') throw new Error(`zookeeper-shell create ${chroot} failed:\n${tries.join('\n')}`);
}
