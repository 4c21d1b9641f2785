import * as fs from 'node:fs';
import { tpString } from '../common/topic-partition';
import { AdminZk } from '../zk/admin-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkError } from '../zk/zk-error';
import { ZkPaths } from '../zk/zk-paths';
import { PartitionListZNode, TopicPartitionRef } from '../zk/znodes/admin-znodes';
import { CliError } from './cli';

/**
 * Kafka's PreferredReplicaLeaderElectionCommand (ZooKeeper form): writes /admin/preferred_replica_election with
 * the partitions from the JSON file (all partitions without one); the controller does the elections.
 */
export async function runPreferredReplicaElection(zk: ZkClient, jsonFile: string | undefined, out: (line: string) => void): Promise<number> {
  const admin = new AdminZk(zk);
  let requested: TopicPartitionRef[];
  if (jsonFile !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(jsonFile, 'utf8');
    } catch (err) {
      throw new CliError(`Cannot read ${jsonFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    try {
      requested = PartitionListZNode.decode(jsonFile, Buffer.from(text.includes('"version"') ? text : text.replace('{', '{"version":1,')));
    } catch (err) {
      throw new CliError(`Invalid preferred replica election JSON in ${jsonFile}: ${(err as Error).message}`);
    }
    if (requested.length === 0) throw new CliError('Preferred replica election data is empty');
    const keys = requested.map(tpString);
    const dups = keys.filter((k, i) => keys.indexOf(k) !== i);
    if (dups.length > 0) throw new CliError(`Preferred replica election data contains duplicate partitions: ${[...new Set(dups)].join(',')}`);
  } else {
    requested = [];
    for (const topic of await admin.getAllTopics()) {
      const assignment = await admin.getTopicAssignment(topic);
      for (const partition of [...(assignment?.partitions.keys() ?? [])].sort((a, b) => a - b)) requested.push({ topic, partition });
    }
  }
  const existing: TopicPartitionRef[] = [];
  for (const tp of requested) {
    const assignment = await admin.getTopicAssignment(tp.topic);
    if (assignment?.partitions.has(tp.partition)) existing.push(tp);
    else out(`Skipping preferred replica leader election for partition ${tpString(tp)} since it doesn't exist.`);
  }
  try {
    await zk.createRecursive(ZkPaths.preferredReplicaElection, PartitionListZNode.encode(existing));
  } catch (err) {
    if (err instanceof ZkError && err.code === 'NODEEXISTS') {
      out('Failed to start preferred replica election');
      out(`kafka.common.AdminCommandFailedException: Preferred replica leader election currently in progress for ${existing.map(tpString).join(',')}. Aborting operation`);
      return 1;
    }
    throw err;
  }
  out(`Created preferred replica election path with ${existing.map(tpString).join(',')}`);
  out(`Successfully started preferred replica election for partitions Set(${existing.map(tpString).join(', ')})`);
  return 0;
}
