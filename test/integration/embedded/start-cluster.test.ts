import fs from 'node:fs';
import path from 'node:path';
import { describeExit, spawnChild, TestChild } from '../../helpers/child-processes';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';

// startCluster() as a user gets it: `npm pack` of this repo (prepack builds dist/), installed into a fresh project,
// used by name from CommonJS, ES modules and TypeScript. The big dependencies (native bindings, kafkajs,
// typescript) are linked to this repo's node_modules rather than fetched: `npm install <folder>` outside the
// project makes a symlink and installs nothing into it, so the install is offline and takes seconds.
const REPO = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(REPO, 'test/fixtures/embedded');
const NODE_MODULES = fs.realpathSync(path.join(REPO, 'node_modules'));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function run(command: string, args: string[], cwd: string, timeoutMs = 120000): Promise<string> {
  const child: TestChild = spawnChild(command, args, { cwd, name: `${path.basename(command)} ${args[0] ?? ''}` });
  const timer = setTimeout(() => child.signal('SIGKILL'), timeoutMs);
  const exit = await child.exited.finally(() => clearTimeout(timer));
  if (exit.code !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} failed (${describeExit(exit)}):\n${child.tail(40)}`);
  return child.output();
}

/** The last JSON object line a fixture program printed. */
function lastJson(output: string): Record<string, unknown> {
  const line = output.split('\n').filter((l) => l.startsWith('{')).pop();
  if (line === undefined) throw new Error(`no JSON line in:\n${output}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('startCluster() from the packed package', () => {
  let project: string;

  beforeAll(async () => {
    const packDir = tmpDir('kafka-ts-pack-');
    await run('npm', ['pack', '--pack-destination', packDir, '--silent'], REPO, 240000);
    const tarball = fs.readdirSync(packDir).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack left no tarball in ${packDir}`);
    project = tmpDir('kafka-ts-user-');
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const dependencies: Record<string, string> = { 'kafka-ts': `file:${path.join(packDir, tarball)}` };
    for (const name of [...Object.keys(pkg.dependencies), 'typescript', '@types/node']) dependencies[name] = `file:${path.join(NODE_MODULES, name)}`;
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'kafka-ts-user', version: '1.0.0', private: true, dependencies }, null, 2));
    await run('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--silent'], project);
    for (const f of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, f), path.join(project, f.replace(/\.fixture$/, '')));
    fs.copyFileSync(path.join(REPO, 'examples/node-test/cluster.test.mjs'), path.join(project, 'cluster.test.mjs'));
    // The installed package is a copy, not a link back to this repo, and runs compiled (no .ts under dist/).
    const installed = path.join(project, 'node_modules/kafka-ts');
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(fs.existsSync(path.join(installed, 'dist/bin/kafka-server-start.js'))).toBe(true);
  }, 300000);

  test('CommonJS: kafkajs produces and consumes across a broker SIGKILL and restart; stop() leaves no process and no dir', async () => {
    const result = lastJson(await run(process.execPath, ['scenario.cjs'], project));
    expect(result['consumed']).toBe(30);
    expect((result['pids'] as number[]).length).toBe(4); // ZooKeeper, 2 brokers, the watchdog
    expect(result['left']).toEqual([]);
    expect(result['dirLeft']).toBe(false);
    process.stdout.write(`startCluster({ brokers: 2 }) from the installed package took ${String(result['startMs'])} ms\n`);
  });

  test('ES modules: the node:test example passes', async () => {
    const output = await run(process.execPath, ['--test', 'cluster.test.mjs'], project);
    expect(output).toMatch(/^# pass 1$/m);
    expect(output).toMatch(/^# fail 0$/m);
  });

  test('TypeScript: the shipped declarations type-check (CommonJS and ESM resolution) and the program runs', async () => {
    fs.writeFileSync(
      path.join(project, 'check.mts'),
      "import { startCluster, type EmbeddedCluster } from 'kafka-ts';\nconst started: Promise<EmbeddedCluster> = startCluster({ brokers: 1 });\nvoid started;\n",
    );
    const tsc = path.join(project, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck', '--outDir', 'out', 'typed.ts', 'check.mts'], project);
    const result = lastJson(await run(process.execPath, ['out/typed.js'], project));
    expect(result['value']).toBe('hello from TypeScript');
    expect(result['zk']).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  test('a SIGKILLed test process leaves no ZooKeeper, broker or watchdog, and no temp dir', async () => {
    const orphan = spawnChild(process.execPath, ['orphan.cjs'], { cwd: project, name: 'orphan' });
    await orphan.waitForLine(/^\{"pids"/, { timeoutMs: 90000 });
    const { pids, dir } = lastJson(orphan.output()) as { pids: number[]; dir: string };
    expect(pids.length).toBe(3);
    expect(pids.every(alive)).toBe(true);
    expect(fs.existsSync(dir)).toBe(true);
    orphan.signal('SIGKILL');
    await orphan.exited;
    await waitUntil(() => !pids.some(alive) && !fs.existsSync(dir), {
      timeoutMs: 20000,
      message: () => `every process of the orphaned cluster to die and ${dir} to go (alive: ${pids.filter(alive).join(', ') || 'none'})`,
    });
  });
});
