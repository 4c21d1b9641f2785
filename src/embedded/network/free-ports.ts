import net from 'node:net';

// Ports handed out by this process, so that two clusters started side by side never get the same port while the
// first has not bound it yet (the kernel may offer a just-closed ephemeral port again).
const handedOut = new Set<number>();

/**
 * `count` distinct TCP ports free on 127.0.0.1 a moment ago. ZooKeeper cannot report an ephemeral clientPort, and
 * a restarted broker must come back on the port its clients bootstrap from, so ports are chosen up front: each
 * by binding port 0, all probes held open until the last is bound so the kernel cannot offer one twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const server = await listenOnAnyPort();
      servers.push(server);
      const port = (server.address() as net.AddressInfo).port;
      if (!handedOut.has(port)) ports.push(port);
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
