import { formatCheck } from './history-checker';
import { runScenario } from './scenario-runner';
import type { ScenarioResult } from './scenario-runner';
import { scenarios } from './scenarios';

/** A markdown row for docs/reliability.md. */
function tableRow(r: ScenarioResult): string {
  const c = r.check;
  const longest = Math.max(...c.longestUnavailableMs.values()) / 1000;
  return `| ${r.name} | ${r.settings} | ${c.acknowledged} | ${c.lost} | ${c.duplicated} | ${c.divergent} | ${longest.toFixed(1)} s |`;
}

/**
 * npm run chaos [name filter...]: every scenario (or those whose name contains a filter), one after another, each
 * on a fresh cluster; prints each check and a table; exits 1 if any scenario lost or diverged or found a problem.
 */
async function main(): Promise<number> {
  const filters = process.argv.slice(2).map((f) => f.toLowerCase());
  const chosen = scenarios.filter((s) => filters.length === 0 || filters.some((f) => s.name.toLowerCase().includes(f)));
  const results: ScenarioResult[] = [];
  let failed = false;
  for (const s of chosen) {
    process.stdout.write(`running: ${s.name}\n`);
    try {
      const r = await runScenario(s);
      results.push(r);
      process.stdout.write(`${formatCheck(r.name, r.check)}\n  produce response errors: ${r.produceErrors.responses}; sends given up: ${r.produceErrors.failedSends}\n`);
      process.stdout.write(`${r.problems.map((p) => `  problem: ${p}\n`).join('')}  (${(r.durationMs / 1000).toFixed(0)} s)\n`);
      if (r.check.lost > 0 || r.check.divergent > 0 || r.check.neverSent > 0 || r.check.offsetsAhead > 0 || r.problems.length > 0) failed = true;
    } catch (err) {
      failed = true;
      process.stdout.write(`${s.name} FAILED: ${(err as Error).stack ?? String(err)}\n`);
    }
  }
  process.stdout.write('\n| Scenario | Settings | Acknowledged writes | Lost | Duplicated | Divergent | Longest unavailability |\n|---|---|---|---|---|---|---|\n');
  for (const r of results) process.stdout.write(`${tableRow(r)}\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`chaos: ${err.message}\n`);
    process.exit(1);
  },
);
