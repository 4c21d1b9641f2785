import path from 'node:path';
import { spawnChild, TestChild } from '../../helpers/child-processes';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { createTopic, GROUP_TEST_PROPS, runTool } from './group-test-setup';

const STATIC_MEMBER = path.resolve(__dirname, 'static-member.py');

function assignments(child: TestChild): string[] {
  return [...child.output().matchAll(/ASSIGNED ([\d,]*)/g)].map((m) => m[1]!);
}

/**
 * KIP-345 with real clients: confluent-kafka (librdkafka 2.0.2) members with group.instance.id, one killed and
 * restarted within its session timeout, and kafka-consumer-groups' --state and --members views of the group.
 */
describe('static membership with confluent-kafka and kafka-consumer-groups --state / --members', () => {
  let cluster: TestCluster;
  const members: TestChild[] = [];
  const member = (instance: string): TestChild => {
    const child = spawnChild('/usr/bin/python3', ['-u', STATIC_MEMBER, cluster.bootstrap, 'static-g', 'static-t', instance], { name: `static-${instance}` });
    members.push(child);
    return child;
  };

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1, props: GROUP_TEST_PROPS });
    await createTopic(cluster, 'static-t', 2);
  }, 120000);

  afterAll(async () => {
    for (const m of members) await m.stop({ signal: 'SIGKILL' }).catch(() => undefined);
    await cluster?.close();
  });

  it('a restarted static member gets its partition back without a rebalance of the other member', async () => {
    const a = member('a');
    const b = member('b');
    await waitUntil(
      () => {
        const [x, y] = [assignments(a).at(-1), assignments(b).at(-1)];
        return x !== undefined && y !== undefined && x.length === 1 && y.length === 1 && x !== y;
      },
      { timeoutMs: 45000, message: () => `one partition each:\n${a.tail(10)}\n---\n${b.tail(10)}` },
    );
    const bBefore = b.output();
    const aPartition = assignments(a).at(-1);
    // A crash: no LeaveGroup (static members never send one), then the same instance id well within 10 s.
    await a.stop({ signal: 'SIGKILL' });
    const a2 = member('a');
    await waitUntil(() => assignments(a2).at(-1), { timeoutMs: 30000, message: () => `the restarted member's assignment:\n${a2.tail(10)}` });
    expect(assignments(a2).at(-1)).toBe(aPartition);
    // b saw no revocation and no new assignment.
    expect(b.output()).toBe(bBefore);

    const list = await runTool('kafka-consumer-groups', '--bootstrap-server', cluster.bootstrap, '--list', '--state');
    expect(list.code).toBe(0);
    expect(list.output.split('\n')).toEqual([`${'GROUP'.padEnd(15)} STATE`, `${'static-g'.padEnd(15)} Stable`]);
    const filtered = await runTool('kafka-consumer-groups', '--bootstrap-server', cluster.bootstrap, '--list', '--state', 'Empty,Dead');
    expect(filtered.output).not.toContain('static-g');
    const bad = await runTool('kafka-consumer-groups', '--bootstrap-server', cluster.bootstrap, '--list', '--state', 'stable');
    expect(bad.code).toBe(1);
    expect(bad.output).toContain("Invalid state list 'stable'. Valid states are: PreparingRebalance, CompletingRebalance, Stable, Dead, Empty");

    const state = await runTool('kafka-consumer-groups', '--bootstrap-server', cluster.bootstrap, '--describe', '--group', 'static-g', '--state');
    expect(state.code).toBe(0);
    const lines = state.output.split('\n').filter((l) => l.length > 0);
    expect(lines[0]).toMatch(/^GROUP\s+COORDINATOR \(ID\)\s+ASSIGNMENT-STRATEGY\s+STATE\s+#MEMBERS$/);
    expect(lines[1]).toMatch(/^static-g\s+\S+:\d+ \(\d+\)\s+range\s+Stable\s+2$/);

    const verbose = await runTool('kafka-consumer-groups', '--bootstrap-server', cluster.bootstrap, '--describe', '--group', 'static-g', '--members', '--verbose');
    expect(verbose.code).toBe(0);
    const rows = verbose.output.split('\n').filter((l) => l.length > 0);
    expect(rows[0]).toMatch(/^GROUP\s+CONSUMER-ID\s+GROUP-INSTANCE-ID\s+HOST\s+CLIENT-ID\s+#PARTITIONS\s+ASSIGNMENT$/);
    const byInstance = new Map(rows.slice(1).map((r) => [r.split(/\s+/)[2]!, r]));
    expect(byInstance.get('a')).toMatch(new RegExp(`^static-g\\s+static-a-\\S+\\s+a\\s+/127\\.0\\.0\\.1\\s+static-a\\s+1\\s+static-t\\(${aPartition}\\)$`));
    expect(byInstance.get('b')).toMatch(/^static-g\s+static-b-\S+\s+b\s+\/127\.0\.0\.1\s+static-b\s+1\s+static-t\([01]\)$/);
  }, 120000);
});
