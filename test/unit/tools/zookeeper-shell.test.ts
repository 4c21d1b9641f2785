import { formatShellStat, keeperErrorText, parseShellCommand, pathError, permString, splitCommandLine } from '../../../src/tools/zookeeper-shell';
import { ZkError } from '../../../src/zk/zk-error';

describe('zookeeper-shell command parsing (ZooKeeper 3.5 CLI)', () => {
  it('splits words, keeping double-quoted blanks', () => {
    expect(splitCommandLine('  create /a "x y"  ')).toEqual(['create', '/a', 'x y']);
    expect(splitCommandLine('')).toEqual([]);
  });

  it('parses flags, grouped flags and option values', () => {
    expect(parseShellCommand(['ls', '-s', '-R', '/brokers'])).toMatchObject({ name: 'ls', flags: new Set(['s', 'R']), args: ['/brokers'] });
    expect(parseShellCommand(['create', '-es', '/x', 'd'])).toMatchObject({ flags: new Set(['e', 's']), args: ['/x', 'd'] });
    expect(parseShellCommand(['set', '-v', '3', '/x', 'd']).values.get('v')).toBe('3');
    expect(parseShellCommand(['delete', '-v3', '/x']).values.get('v')).toBe('3');
    // Commons CLI takes options after the arguments too.
    expect(parseShellCommand(['get', '/x', '-s'])).toMatchObject({ flags: new Set(['s']), args: ['/x'] });
  });

  it('refuses malformed lines with the command usage, unknown commands with exit 127', () => {
    expect(() => parseShellCommand(['set', '/x'])).toThrow('set [-s] [-v version] path data');
    expect(() => parseShellCommand(['ls'])).toThrow('ls [-s] [-w] [-R] path');
    expect(() => parseShellCommand(['ls', '-x', '/'])).toThrow('ls [-s] [-w] [-R] path');
    expect(() => parseShellCommand(['delete', '-v'])).toThrow('delete [-v version] path');
    try {
      parseShellCommand(['foo']);
      throw new Error('not refused');
    } catch (err) {
      expect((err as Error).message).toBe('Command not found: Command not found foo');
      expect((err as { exitCode: number }).exitCode).toBe(127);
    }
  });

  it('words paths and keeper errors as the CLI', () => {
    expect(pathError('x')).toBe('Path must start with / character');
    expect(pathError('/a/')).toBe('Path must not end with / character');
    expect(pathError('/a/', true)).toBeUndefined();
    expect(pathError('/')).toBeUndefined();
    expect(keeperErrorText(new ZkError(-101, '/x'))).toBe('Node does not exist: /x');
    expect(keeperErrorText(new ZkError(-110, '/x'))).toBe('Node already exists: /x');
    expect(keeperErrorText(new ZkError(-111, '/x'))).toBe('Node not empty: /x');
    expect(keeperErrorText(new ZkError(-103, '/x'))).toBe('version No is not valid : /x');
    // The rest as KeeperException words them, which is what a script re-running the shell looks for.
    expect(keeperErrorText(new ZkError(-4, '/x'))).toBe('KeeperErrorCode = ConnectionLoss for /x');
    expect(keeperErrorText(new ZkError(-112, '/x'))).toBe('KeeperErrorCode = Session expired for /x');
    expect(permString(31)).toBe('cdrwa');
    expect(permString(1 | 2)).toBe('rw');
  });

  it('prints stats as StatPrinter', () => {
    const lines = formatShellStat({ czxid: 0x1a, mzxid: 0x1b, ctime: 0, mtime: 0, version: 2, cversion: 3, aversion: 0, ephemeralOwner: '72057594037927936', dataLength: 5, numChildren: 1, pzxid: 0x1c });
    expect(lines[0]).toBe('cZxid = 0x1a');
    expect(lines[1]).toMatch(/^ctime = \w{3} \w{3} \d\d \d\d:\d\d:\d\d \S+ \d{4}$/);
    expect(lines.slice(4)).toEqual(['pZxid = 0x1c', 'cversion = 3', 'dataVersion = 2', 'aclVersion = 0', 'ephemeralOwner = 0x100000000000000', 'dataLength = 5', 'numChildren = 1']);
  });
});
