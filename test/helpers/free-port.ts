// The tests find ports the way startCluster() does: one implementation, one set of ports handed out per process
// (so two calls never return the same port while the first caller has not bound it yet).
import { freePorts } from '../../src/embedded/network/free-ports';

export { freePorts };

/** One free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}
