import { migratorHelp, parseMigratorArgs, runZkSecurityMigrator, USAGE_MESSAGE } from '../../../src/tools/zk-security-migrator';

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runZkSecurityMigrator(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, env);
  return { code, out, err };
}

describe("zookeeper-security-migration's options (Kafka's ZkSecurityMigratorOptions)", () => {
  it("has Kafka's defaults", () => {
    expect(parseMigratorArgs(['--zookeeper.acl', 'secure'])).toEqual({
      zkAcl: 'secure',
      zkUrl: 'localhost:2181',
      sessionTimeoutMs: 30000,
      connectionTimeoutMs: 30000,
      enablePathCheck: false,
      tlsConfigFile: undefined,
      help: false,
      version: false,
      empty: false,
    });
  });

  it('takes --name=value, --name value and unique prefixes, as joptsimple does', () => {
    const o = parseMigratorArgs(['--zookeeper.acl=unsecure', '--zookeeper.connect', 'h:1/kafka', '--zookeeper.session=6000', '--zookeeper.connection.timeout', '7000', '--enable.path.check']);
    expect(o).toMatchObject({ zkAcl: 'unsecure', zkUrl: 'h:1/kafka', sessionTimeoutMs: 6000, connectionTimeoutMs: 7000, enablePathCheck: true });
  });

  it("refuses with joptsimple's messages", () => {
    expect(() => parseMigratorArgs(['--zookeeper.acl'])).toThrow("Option ['zookeeper.acl'] requires an argument");
    expect(() => parseMigratorArgs(['--zookeeper.session.timeout', 'soon'])).toThrow("Cannot parse argument 'soon' of option ['zookeeper.session.timeout']");
    expect(() => parseMigratorArgs(['--zookeeper.c', 'x'])).toThrow("Option 'zookeeper.c' is ambiguous.  Possibilities: [zookeeper.connect, zookeeper.connection.timeout]");
    expect(() => parseMigratorArgs(['--nope'])).toThrow('nope is not a recognized option');
    expect(() => parseMigratorArgs(['secure'])).toThrow("Found non-option argument 'secure'");
    expect(() => parseMigratorArgs(['--enable.path.check=yes'])).toThrow("Option ['enable.path.check'] does not take an argument");
  });

  it('prints the usage message and help on stderr, exit 1, without arguments; --help on stdout, exit 0', async () => {
    const r = await run([]);
    expect(r.code).toBe(1);
    expect(r.err[0]).toBe(USAGE_MESSAGE);
    expect(r.err.join('\n')).toContain('--zookeeper.connect <String>');
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.out.join('\n')).toMatch(/^Usage: zookeeper-security-migration \[options\]\n\nZooKeeper Migration Tool Help/);
    expect(migratorHelp()).toMatch(/^Option {35}Description\n------ {35}-----------\n--enable.path.check/);
    expect(migratorHelp()).toContain('(default: localhost:2181)');
  });

  it('refuses to run without a JAAS file, as Kafka', async () => {
    const r = await run(['--zookeeper.acl', 'secure']);
    expect(r.code).toBe(1);
    expect(r.err[0]).toMatch(/^ERROR: No JAAS configuration file has been specified and no TLS client certificate has been specified\. Please make sure that you set the system property java\.security\.auth\.login\.config or provide a ZooKeeper client TLS configuration via --zk-tls-config-file <filename>/);
    expect(r.err[1]).toBe('java.lang.IllegalArgumentException: Incorrect configuration');
  });
});
