import path from 'node:path';
import { ESLint } from 'eslint';

/*
 * Lints snippets with the repository's real eslint.config.mjs, for dependency-rules.test.ts. A child process of
 * its own because ESLint loads a flat config with import(), which jest's module sandbox refuses without
 * --experimental-vm-modules. Reads [{ filePath, code }] as JSON on stdin and writes, in the same order, each
 * snippet's messages (every rule's, and parse errors with ruleId null) as JSON on stdout.
 *
 * The snippets are at file paths that do not exist, which type-aware linting (projectService) cannot place in a
 * program, so this instance turns type information and the one rule that needs it off; every other rule, the
 * dependency rules included, is exactly the config's.
 */

export interface ProbeCase {
  filePath: string;
  code: string;
}

export interface ProbeMessage {
  line: number;
  ruleId: string | null;
  message: string;
}

const repoRoot = path.resolve(__dirname, '../../..');

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const cases = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ProbeCase[];
  const eslint = new ESLint({
    cwd: repoRoot,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { projectService: false, project: null } },
        rules: { '@typescript-eslint/no-floating-promises': 'off' },
      },
    ],
  });
  const out: ProbeMessage[][] = [];
  for (const c of cases) {
    const results = await eslint.lintText(c.code, { filePath: path.join(repoRoot, c.filePath), warnIgnored: true });
    const messages = results.flatMap((r) => r.messages);
    out.push(messages.map((m) => ({ line: m.line, ruleId: m.ruleId, message: m.message })));
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
