import net from 'node:net';

export type ZkMode = 'leader' | 'follower' | 'observer' | 'standalone';

/**
 * Sends one of ZooKeeper's four-letter-word commands (`srvr`, `ruok`, `stat`; the server must whitelist it with
 * 4lw.commands.whitelist) to its client port and returns the whole answer. ZooKeeper closes the connection after
 * answering, which marks the end. Rejects on connection errors and after `timeoutMs`.
 */
export function fourLetterWord(host: string, port: number, command: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer to '${command}' from ${host}:${port} within ${timeoutMs} ms`)));
    socket.on('connect', () => socket.write(command));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', (hadError) => {
      if (!hadError) resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/**
 * The server's role from `srvr` ("Mode: follower"), or undefined when it does not answer or is not serving
 * ("This ZooKeeper instance is not currently serving requests", during elections and while syncing).
 */
export async function zkMode(host: string, port: number, timeoutMs = 2000): Promise<ZkMode | undefined> {
  try {
    const answer = await fourLetterWord(host, port, 'srvr', timeoutMs);
    const mode = /^Mode: (\w+)/m.exec(answer)?.[1];
    return mode === 'leader' || mode === 'follower' || mode === 'observer' || mode === 'standalone' ? mode : undefined;
  } catch {
    return undefined;
  }
}
