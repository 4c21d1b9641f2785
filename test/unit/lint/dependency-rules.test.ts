import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import shape from '../../../dependency-rules.json';
import type { ProbeCase, ProbeMessage } from './eslint-probe';

/*
 * Proves what `npm run lint` enforces (README.md, "Where things live"): the folder table and module rules of
 * dependency-rules.json as eslint.config.mjs turns them into rules, and dependency-cruiser's cycle rule. The
 * snippets are linted by the real config (eslint-probe.ts), so a block that wipes another's restrictions, or a
 * folder whose block is missing, fails here.
 */

const repoRoot = path.resolve(__dirname, '../../..');
const folders = shape.folders as Record<string, string[]>;
const moduleRules = shape.modules as { names: string[]; onlyIn?: string[]; notIn?: string[]; message: string }[];
const RESTRICTION_RULES = new Set(['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);

function lint(cases: ProbeCase[]): ProbeMessage[][] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'eslint-probe.ts')], {
    cwd: repoRoot,
    input: JSON.stringify(cases),
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024, // every unused probe variable is a message too
  });
  if (r.status !== 0) throw new Error(`eslint-probe failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as ProbeMessage[][];
}

const within = (dir: string, parent: string): boolean => dir === parent || dir.startsWith(`${parent}/`);

function srcDirs(dir = 'src'): string[] {
  const subdirs = fs
    .readdirSync(path.join(repoRoot, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}`);
  return [dir, ...subdirs.flatMap((d) => srcDirs(d))];
}

/** Every way one module can name another; each must be caught, type-only ones included. */
const FORMS: ((spec: string, n: number) => string)[] = [
  (s, n) => `import { probe as v${n} } from '${s}';`,
  (s, n) => `import type { Probe as T${n} } from '${s}';`,
  (s) => `export * from '${s}';`,
  (s, n) => `export type { Probe as X${n} } from '${s}';`,
  (s, n) => `import e${n} = require('${s}');`,
  (s, n) => `const r${n} = require('${s}');`,
  (s, n) => `const d${n} = import('${s}');`,
  (s, n) => `type Q${n} = typeof import('${s}');`,
];

interface Probe {
  text: string;
  forbidden: boolean;
}

/** For a file in `dir`: one probe per other src/ folder and per restricted module, each in every form. */
function probesFor(dir: string): Probe[] {
  const folder = dir.split('/')[1];
  const depth = dir.split('/').length - 1;
  const up = depth === 0 ? './' : '../'.repeat(depth);
  const targets: { spec: string; forbidden: boolean }[] = [];
  for (const other of Object.keys(folders)) {
    if (other === folder) continue;
    const forbidden = folder !== undefined && !folders[folder]!.includes(other);
    targets.push({ spec: `${up}${other}/probe-target`, forbidden });
    targets.push({ spec: `${up}${other}`, forbidden });
  }
  const names = [...new Set(moduleRules.flatMap((m) => m.names))];
  for (const name of names) {
    const forbidden = moduleRules.some(
      (m) =>
        m.names.includes(name) &&
        (m.onlyIn ? !m.onlyIn.some((d) => within(dir, d)) : (m.notIn ?? []).some((d) => within(dir, d))),
    );
    targets.push({ spec: name, forbidden }, { spec: `${name}/sub`, forbidden });
  }
  let n = 0;
  return targets.flatMap((t) => FORMS.map((form) => ({ text: form(t.spec, n++), forbidden: t.forbidden })));
}

describe('dependency direction (eslint.config.mjs from dependency-rules.json)', () => {
  const dirs = srcDirs();
  const matrixCases = dirs.map((dir) => ({ dir, probes: probesFor(dir) }));

  // Hand-written cases, the intent of issue 11 item 7 in its own words, so that a wrong row in the table shows.
  const named: { name: string; filePath: string; code: string; error?: RegExp }[] = [
    { name: 'src/log importing src/broker', filePath: 'src/log/probe.ts', code: "import { KafkaServer } from '../broker/kafka-server';", error: /src\/log may not import src\/broker/ },
    { name: 'src/log importing node:net', filePath: 'src/log/probe.ts', code: "import net from 'node:net';", error: /open sockets/ },
    { name: 'src/log importing src/records', filePath: 'src/log/probe.ts', code: "import { RecordBatch } from '../records/record-batch';" },
    { name: 'src/records importing src/log', filePath: 'src/records/probe.ts', code: "import { Log } from '../log/log';", error: /src\/records may not import src\/log/ },
    { name: 'src/common importing src/zk', filePath: 'src/common/config/probe.ts', code: "import type { ZkClient } from '../../zk/zk-client';", error: /src\/common may not import src\/zk/ },
    { name: 'src/zk importing src/records', filePath: 'src/zk/znodes/probe.ts', code: "import { crc32c } from '../../records/crc32c';", error: /src\/zk may not import src\/records/ },
    { name: 'src/zk requiring zookeeper', filePath: 'src/zk/probe.ts', code: "const zk = require('zookeeper');" },
    { name: 'src/protocol importing node:fs', filePath: 'src/protocol/probe.ts', code: "import fs from 'node:fs';", error: /no file, socket or process I\/O/ },
    { name: 'src/protocol importing src/records', filePath: 'src/protocol/apis/probe.ts', code: "import { RecordBatch } from '../../records';", error: /src\/protocol may not import src\/records/ },
    { name: 'src/protocol importing src/common', filePath: 'src/protocol/probe.ts', code: "import { ErrorCode } from '../common/error-codes';" },
    { name: 'src/client importing src/zk', filePath: 'src/client/probe.ts', code: "import { ZkClient } from '../zk/zk-client';", error: /src\/client may not import src\/zk/ },
    { name: 'src/client importing node:net', filePath: 'src/client/probe.ts', code: "import net from 'node:net';" },
    { name: 'src/controller importing src/broker', filePath: 'src/controller/probe.ts', code: "import type { KafkaServer } from '../broker/kafka-server';", error: /src\/controller may not import src\/broker/ },
    { name: 'src/controller importing src/log', filePath: 'src/controller/probe.ts', code: "import { LogConfig } from '../log/log-config';", error: /src\/controller may not import src\/log/ },
    { name: 'src/controller importing src/client', filePath: 'src/controller/probe.ts', code: "import { NetworkClient } from '../client/network-client';" },
    { name: 'src/rebalance importing src/broker', filePath: 'src/rebalance/probe.ts', code: "import { KafkaServer } from '../broker/kafka-server';", error: /src\/rebalance may not import src\/broker/ },
    { name: 'src/rebalance importing src/records', filePath: 'src/rebalance/probe.ts', code: "import { RecordBatch } from '../records';", error: /src\/rebalance may not import src\/records/ },
    { name: 'src/tools importing src/broker', filePath: 'src/tools/probe.ts', code: "import { KafkaServer } from '../broker/kafka-server';", error: /src\/tools may not import src\/broker/ },
    { name: 'src/tools importing src/rebalance', filePath: 'src/tools/probe.ts', code: "import { GroupConsumer } from '../rebalance/group-consumer';" },
    { name: 'src/tools requiring zookeeper', filePath: 'src/tools/probe.ts', code: "const zk = require('zookeeper');", error: /only src\/zk uses the ZooKeeper binding/ },
    { name: 'src/broker importing zookeeper', filePath: 'src/broker/probe.ts', code: "import ZooKeeper from 'zookeeper';", error: /only src\/zk uses the ZooKeeper binding/ },
    { name: 'src/broker/handlers importing node:tls', filePath: 'src/broker/handlers/probe.ts', code: "import tls from 'node:tls';", error: /open sockets/ },
    { name: 'src/broker/network importing node:net', filePath: 'src/broker/network/probe.ts', code: "import net from 'node:net';" },
    { name: 'src/broker importing src/tools and src/controller', filePath: 'src/broker/probe.ts', code: "import { cli } from '../tools/cli';\nimport { KafkaController } from '../controller/kafka-controller';" },
  ];

  let matrixResults: ProbeMessage[][] = [];
  let namedResults: ProbeMessage[][] = [];
  beforeAll(() => {
    const results = lint([
      ...matrixCases.map((c) => ({ filePath: `${c.dir}/lint-probe.ts`, code: c.probes.map((p) => p.text).join('\n') + '\n' })),
      ...named.map((c) => ({ filePath: c.filePath, code: c.code + '\n' })),
    ]);
    matrixResults = results.slice(0, matrixCases.length);
    namedResults = results.slice(matrixCases.length);
  }, 60_000);

  it('has a row for every src/ folder, and only allowed src/ folders in the rows', () => {
    const actual = fs
      .readdirSync(path.join(repoRoot, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(Object.keys(folders).sort()).toEqual(actual);
    const unknown = Object.entries(folders).flatMap(([folder, allowed]) =>
      allowed.filter((a) => !(a in folders) || a === folder).map((a) => `${folder} -> ${a}`),
    );
    expect(unknown).toEqual([]);
  });

  it.each(matrixCases.map((c, i) => [c.dir, i] as const))('%s: exactly the forbidden imports are errors, in every import form', (_dir, i) => {
    const { probes } = matrixCases[i]!;
    const messages = matrixResults[i]!;
    expect(messages.filter((m) => m.ruleId === null)).toEqual([]); // a parse error would hide everything
    const flagged = new Set(messages.filter((m) => m.ruleId !== null && RESTRICTION_RULES.has(m.ruleId)).map((m) => m.line));
    const wrong = probes
      .map((p, line) => ({ ...p, flagged: flagged.has(line + 1) }))
      .filter((p) => p.flagged !== p.forbidden)
      .map((p) => `${p.forbidden ? 'not reported' : 'reported but allowed'}: ${p.text}`);
    expect(wrong).toEqual([]);
    // Some of each, so that the matrix is not vacuous for any folder but the top.
    if (probes.some((p) => p.forbidden)) expect(flagged.size).toBeGreaterThan(0);
  });

  it.each(named.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = named[i]!;
    const messages = namedResults[i]!.filter((m) => m.ruleId === null || RESTRICTION_RULES.has(m.ruleId));
    if (c.error === undefined) {
      expect(messages).toEqual([]);
    } else {
      expect(messages.length).toBeGreaterThan(0);
      for (const m of messages) expect(m.message).toMatch(c.error);
    }
  });
});

describe('import cycles (dependency-cruiser, .dependency-cruiser.cjs)', () => {
  it('reports a new cycle made of type-only imports, and not a one-way import', () => {
    const probeDir = path.join(repoRoot, 'src', 'common', `__lint_probe_${randomBytes(4).toString('hex')}`);
    fs.mkdirSync(probeDir);
    try {
      fs.writeFileSync(path.join(probeDir, 'a.ts'), "import type { B } from './b';\nexport interface A { b?: B }\n");
      fs.writeFileSync(path.join(probeDir, 'b.ts'), "import type { A } from './a';\nexport interface B { a?: A }\n");
      fs.writeFileSync(path.join(probeDir, 'c.ts'), "import type { D } from './d';\nexport interface C { d?: D }\n");
      fs.writeFileSync(path.join(probeDir, 'd.ts'), 'export interface D { n: number }\n');
      // The command of scripts/lint.sh, on the probe folder only.
      const bin = path.join(repoRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
      const rel = path.relative(repoRoot, probeDir);
      const r = spawnSync(process.execPath, [bin, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', rel], {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 60_000,
        // CI may force colour (FORCE_COLOR); the report is parsed below, so ask for plain text and strip what is left.
        env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      });
      expect(r.error).toBeUndefined();
      expect(r.status).not.toBe(0); // so scripts/lint.sh fails on it
      const report = stripVTControlCharacters(r.stdout);
      const cycles = report
        .split(/\n(?=\s*error )/)
        .filter((v) => /error no-circular:/.test(v))
        .map((v) => [...new Set([...v.matchAll(/(\S+\.ts)/g)].map((m) => path.relative(rel, m[1]!)))].sort());
      // One report for the cycle, naming its members; the one-way c.ts -> d.ts is no cycle.
      expect(cycles).toEqual([['a.ts', 'b.ts']]);
      expect(report).not.toMatch(/\/[cd]\.ts/);
    } finally {
      fs.rmSync(probeDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('what npm run lint covers', () => {
  it('runs ESLint and the cycle check over src, bin, test and bench, from npm run lint and scripts/test.sh', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['lint']).toBe('bash scripts/lint.sh');
    const lintSh = fs.readFileSync(path.join(repoRoot, 'scripts', 'lint.sh'), 'utf8');
    expect(lintSh).toMatch(/^npx eslint src bin test bench \|\| status=1$/m);
    expect(lintSh).toMatch(/^npx depcruise --config \.dependency-cruiser\.cjs --output-type err src bin test bench \|\| status=1$/m);
    expect(fs.readFileSync(path.join(repoRoot, 'scripts', 'test.sh'), 'utf8')).toMatch(/^if ! bash scripts\/lint\.sh; then$/m);
  });
});
