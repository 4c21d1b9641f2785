import { execFileSync } from 'node:child_process';

/** Every namespace this harness creates starts with this, so a crashed run's leftovers can be found and removed. */
export const NAMESPACE_PREFIX = 'kts-ch-';
/** The private /24 the hosts live in: host n is 10.218.6.n. */
const SUBNET = '10.218.6';
/** The root namespace (where the test runner and its clients run) joins the mesh as this host. */
export const CLIENT_ADDRESS = `${SUBNET}.254`;

export interface HostSpec {
  /** Short name, e.g. zk1 or b2; the namespace is kts-ch-<name>. */
  name: string;
  /** Last byte of the host's address (1..253). */
  octet: number;
}

export interface Host extends HostSpec {
  namespace: string;
  address: string;
}

/** The client host: the root namespace itself, routed into the mesh. */
export const CLIENT = 'client';

function ip(args: string[], options: { allowFailure?: boolean } = {}): string {
  try {
    return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    if (options.allowFailure) return '';
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`ip ${args.join(' ')} failed: ${stderr.trim()}`);
  }
}

/** Removes every namespace left by an earlier run (their veth ends, root side included, go with them). */
export function removeStaleNamespaces(): string[] {
  const names = ip(['netns', 'list'], { allowFailure: true })
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n.startsWith(NAMESPACE_PREFIX));
  for (const n of names) ip(['netns', 'delete', n], { allowFailure: true });
  removeClientUnreachableRoutes();
  // A deleted namespace's veth pairs go away asynchronously: wait for the root ends so their names are free.
  const deadline = Date.now() + 20000;
  for (;;) {
    const left = rootEnds();
    if (left.length === 0) break;
    if (Date.now() > deadline) {
      for (const l of left) ip(['link', 'delete', l], { allowFailure: true });
      if (rootEnds().length === 0) break;
      throw new Error(`veth links ${left.join(', ')} of an earlier run are still there`);
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
  return names;
}

/** The root namespace's ends of the mesh links (kch-<host>). */
function rootEnds(): string[] {
  return ip(['-o', 'link', 'show'], { allowFailure: true })
    .split('\n')
    .map((l) => /^\d+:\s+(kch-[a-z0-9]+)[@:]/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined);
}

/** The root namespace's stand-ins for cut links (see cut()). */
function removeClientUnreachableRoutes(): void {
  for (const line of ip(['route', 'show', 'type', 'unreachable'], { allowFailure: true }).split('\n')) {
    const dest = line.trim().split(/\s+/)[1] ?? '';
    if (dest.startsWith(`${SUBNET}.`)) ip(['route', 'del', 'unreachable', dest], { allowFailure: true });
  }
}

/**
 * A private network of hosts on one machine: one Linux network namespace per host, each with its own address on
 * its loopback device, and a full mesh of veth pairs with a /32 route per peer, so one pair of hosts can be cut
 * (both ends of their link taken down) and healed without touching any other pair. The root namespace, where
 * the test runner and the workload's clients run, is one more host of the mesh ("client", 10.218.6.254): its
 * ends of the links carry that address and are named kch-<host> (veth names are global in a namespace and at
 * most 15 characters). Inside host namespaces the link to peer P is simply named P.
 *
 * A cut link has no route on either side: new connections fail at once (ENETUNREACH) and established ones
 * stall until their own timeouts, as with a switch port gone dark; there is no netem here for silent drops.
 */
export class NetnsNetwork {
  readonly hosts = new Map<string, Host>();
  private readonly cutLinks = new Set<string>();
  private destroyed = false;

  private constructor() {}

  static create(specs: HostSpec[]): NetnsNetwork {
    removeStaleNamespaces();
    const net = new NetnsNetwork();
    installSignalCleanup(net);
    try {
      for (const s of specs) net.addHost(s);
      const list = [...net.hosts.values()];
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) net.link(list[i] as Host, list[j] as Host);
        net.linkToClient(list[i] as Host);
      }
    } catch (err) {
      net.destroy();
      throw err;
    }
    return net;
  }

  host(name: string): Host {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`no host ${name} in the network (hosts: ${[...this.hosts.keys()].join(', ')})`);
    return h;
  }

  address(name: string): string {
    return name === CLIENT ? CLIENT_ADDRESS : this.host(name).address;
  }

  /** The command line that runs `command args` inside host `name`'s namespace (same pid: ip netns exec execs). */
  execArgs(name: string, command: string, args: readonly string[]): { command: string; args: string[] } {
    return { command: 'ip', args: ['netns', 'exec', this.host(name).namespace, command, ...args] };
  }

  /** Cuts the link between two hosts (either may be CLIENT); idempotent. */
  cut(a: string, b: string): void {
    const key = linkKey(a, b);
    if (this.cutLinks.has(key)) return;
    this.cutLinks.add(key);
    for (const [from, to] of [[a, b], [b, a]] as const) {
      this.ipIn(from, ['link', 'set', this.deviceName(from, to), 'down']);
      // The root namespace has a default route that would carry the packets off the machine instead.
      if (from === CLIENT) ip(['route', 'replace', 'unreachable', `${this.address(to)}/32`]);
    }
  }

  /** Heals the link between two hosts: both ends up and the routes (which the kernel drops on link down) back. */
  heal(a: string, b: string): void {
    const key = linkKey(a, b);
    if (!this.cutLinks.has(key)) return;
    for (const [from, to] of [[a, b], [b, a]] as const) {
      const dev = this.deviceName(from, to);
      this.ipIn(from, ['link', 'set', dev, 'up']);
      this.ipIn(from, ['route', 'replace', `${this.address(to)}/32`, 'dev', dev, 'src', this.address(from)]);
    }
    this.cutLinks.delete(key);
  }

  /** Cuts `name` from every other host in `others` (default: every host and the client). */
  isolate(name: string, others: string[] = [...this.hosts.keys(), CLIENT]): void {
    for (const o of others) if (o !== name) this.cut(name, o);
  }

  healAll(): void {
    for (const key of [...this.cutLinks]) {
      const [a, b] = key.split('|') as [string, string];
      this.heal(a, b);
    }
  }

  cuts(): string[] {
    return [...this.cutLinks];
  }

  /** Deletes every namespace (and with them every link); safe to call more than once. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    removeClientUnreachableRoutes();
    for (const h of this.hosts.values()) ip(['netns', 'delete', h.namespace], { allowFailure: true });
    networks.delete(this);
  }

  private addHost(s: HostSpec): void {
    if (s.name === CLIENT || s.name.length > 10 || !/^[a-z0-9]+$/.test(s.name)) throw new Error(`bad host name ${s.name}`);
    const host: Host = { ...s, namespace: `${NAMESPACE_PREFIX}${s.name}`, address: `${SUBNET}.${s.octet}` };
    ip(['netns', 'add', host.namespace]);
    this.hosts.set(s.name, host);
    this.ipIn(s.name, ['link', 'set', 'lo', 'up']);
    this.ipIn(s.name, ['addr', 'add', `${host.address}/32`, 'dev', 'lo']);
  }

  private link(a: Host, b: Host): void {
    ip(['link', 'add', 'name', b.name, 'netns', a.namespace, 'type', 'veth', 'peer', 'name', a.name, 'netns', b.namespace]);
    for (const [from, to] of [[a, b], [b, a]] as const) {
      this.ipIn(from.name, ['link', 'set', to.name, 'up']);
      this.ipIn(from.name, ['route', 'add', `${to.address}/32`, 'dev', to.name, 'src', from.address]);
    }
  }

  private linkToClient(h: Host): void {
    const rootEnd = this.deviceName(CLIENT, h.name);
    ip(['link', 'add', 'name', rootEnd, 'type', 'veth', 'peer', 'name', CLIENT, 'netns', h.namespace]);
    ip(['addr', 'add', `${CLIENT_ADDRESS}/32`, 'dev', rootEnd]);
    ip(['link', 'set', rootEnd, 'up']);
    ip(['route', 'replace', `${h.address}/32`, 'dev', rootEnd, 'src', CLIENT_ADDRESS]);
    this.ipIn(h.name, ['link', 'set', CLIENT, 'up']);
    this.ipIn(h.name, ['route', 'add', `${CLIENT_ADDRESS}/32`, 'dev', CLIENT, 'src', h.address]);
  }

  private deviceName(from: string, to: string): string {
    return from === CLIENT ? `kch-${to}` : to;
  }

  private ipIn(name: string, args: string[]): void {
    if (name === CLIENT) ip(args);
    else ip(['-n', this.host(name).namespace, ...args]);
  }
}

function linkKey(a: string, b: string): string {
  return [a, b].sort().join('|');
}

const networks = new Set<NetnsNetwork>();
let handlersInstalled = false;

/** Ctrl-C or a kill while namespaces exist: delete them before dying (processes die with their parent via setpriv). */
function installSignalCleanup(net: NetnsNetwork): void {
  networks.add(net);
  if (handlersInstalled) return;
  handlersInstalled = true;
  const cleanup = (): void => {
    for (const n of [...networks]) n.destroy();
  };
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cleanup();
      process.kill(process.pid, signal);
    });
  }
}
