import * as fs from 'node:fs';
import type { StdioOptions } from 'node:child_process';

/** Linux's O_CLOEXEC as /proc/<pid>/fdinfo prints the open flags (octal). */
const O_CLOEXEC = 0o2000000;

type StdioEntry = Exclude<StdioOptions, string>[number];

/**
 * This process's file descriptors above 2 that a child would inherit: open and without close-on-exec. Node and
 * libuv open everything with O_CLOEXEC; what is left comes from native code, chiefly the ZooKeeper C client,
 * whose sockets (built without SOCK_CLOEXEC) are plain `socket()`s. Empty where /proc/self/fdinfo is missing.
 */
export function inheritableFds(): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const fds: number[] = [];
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${entry}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) fds.push(fd);
    } catch {
      // Closed meanwhile (the readdir's own descriptor among them).
    }
  }
  return fds.sort((a, b) => a - b);
}

let devNull: number | undefined;

/**
 * `stdio` for spawn, spawnSync or execFileSync that also replaces, in the child, every descriptor of this process
 * that it would otherwise inherit (`inheritableFds`) with /dev/null: Python's close_fds, which Node lacks.
 *
 * Why: a child holding a copy of a ZooKeeper client socket keeps that socket's open file description alive after
 * the C client closes its own descriptor (on a connection loss). epoll keys a registration by descriptor number
 * and file description and drops it only when the description goes, so libuv's epoll set keeps reporting the dead
 * socket (EPOLLIN|EPOLLHUP, level-triggered) under its old number, which the C client's next socket reuses: every
 * poll of the new handle then reads nothing (EAGAIN), and the binding, after 10 such polls in a row, closes the
 * handle as if the session had expired, within milliseconds of every new handle, until the child exits. A long-lived
 * child started while a session is open (a ZooKeeper server or broker started by a test) is enough.
 *
 * Descriptors that `stdio` names are left as given; the first three entries are never changed. The lookup and the spawn must be one synchronous step (the C client
 * opens sockets on the event loop thread, so nothing can open one in between).
 */
export function stdioWithoutInheritedFds<const T extends StdioOptions>(stdio: T): T {
  const given: StdioEntry[] = typeof stdio === 'string' ? [stdio as StdioEntry, stdio as StdioEntry, stdio as StdioEntry] : [...(stdio as readonly StdioEntry[])];
  const leaking = inheritableFds().filter((fd) => fd >= given.length || given[fd] === undefined || given[fd] === null || given[fd] === 'ignore');
  if (leaking.length === 0) return stdio;
  // Opened by Node, so close-on-exec itself: it reaches the child only through the dup2s that libuv makes for
  // these entries.
  devNull ??= fs.openSync('/dev/null', 'r+');
  const out: StdioEntry[] = [...given];
  const last = leaking[leaking.length - 1] as number;
  for (let fd = out.length; fd <= last; fd++) out.push('ignore');
  for (const fd of leaking) out[fd] = devNull;
  // Typed as given: spawn's overloads read the types of stdin, stdout and stderr, which are unchanged.
  return out as unknown as T;
}
