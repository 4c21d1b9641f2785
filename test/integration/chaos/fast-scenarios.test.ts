import { formatCheck } from '../../chaos/history-checker';
import { runScenario } from '../../chaos/scenario-runner';
import type { Scenario } from '../../chaos/scenario-runner';
import { leaderCutFromFollowers, oneZooKeeperLost } from '../../chaos/scenarios';

// The two fastest chaos scenarios (about 35 s and 55 s); `npm run chaos` runs them all. Needs root (network
// namespaces), as CI has.
describe('chaos: network faults against a cluster in network namespaces', () => {
  async function expectClean(s: Scenario): Promise<void> {
    const r = await runScenario(s);
    const summary = `${formatCheck(r.name, r.check)}\n${r.problems.join('\n')}`;
    expect({ lost: r.check.lost, divergent: r.check.divergent, neverSent: r.check.neverSent, offsetsAhead: r.check.offsetsAhead, readsNotInLog: r.check.readsNotInLog, problems: r.problems, summary }).toEqual({
      lost: 0,
      divergent: 0,
      neverSent: 0,
      offsetsAhead: 0,
      readsNotInLog: 0,
      problems: [],
      summary,
    });
    expect(r.check.acknowledged).toBeGreaterThan(100);
  }

  it('loses one ZooKeeper node of three: nothing changes, nothing is lost', async () => {
    await expectClean(oneZooKeeperLost);
  }, 120000);

  it('cuts a leader from its followers: acks=all is refused with min.insync.replicas=2 and nothing acknowledged is lost', async () => {
    await expectClean(leaderCutFromFollowers);
  }, 150000);
});
