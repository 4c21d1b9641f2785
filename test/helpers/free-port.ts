import net from 'node:net';

// Ports handed out by this process, so that two calls never return the same port while the first caller has not
// bound it yet (the kernel may well offer a just-closed ephemeral port again).
const handedOut = new Set<number>();

/** One free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

/**
 * `count` distinct TCP ports that were free on 127.0.0.1 a moment ago: each is found by binding port 0; all probe
 * sockets stay open until the last is bound, so the kernel cannot offer the same port twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`freePorts: count must be a positive integer, got ${count}`);
  const servers: net.Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const server = await listenOnAnyPort();
      servers.push(server);
      const port = (server.address() as net.AddressInfo).port;
      if (handedOut.has(port)) continue;
      ports.push(port);
    }
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
  for (const port of ports) handedOut.add(port);
  return ports;
}

function listenOnAnyPort(): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve(server));
  });
}
