import fs from 'node:fs';
import path from 'node:path';
import { BrokerConnection } from '../../src/client/broker-connection';
import { ListOffsetsApi } from '../../src/protocol/apis/list-offsets';
import { MetadataApi } from '../../src/protocol/apis/metadata';
import { ZkClient } from '../../src/zk/zk-client';

/**
 * Whole-cluster views for scale tests and the scale bench: every partition's state in ZooKeeper read with many
 * requests in flight, every broker's Metadata, and a process's memory and descriptors. Nothing here waits; callers
 * poll with waitUntil.
 */

export interface PartitionView {
  topic: string;
  partition: number;
  leader: number;
  isr: number[];
}

/** The state znodes of `partitions` (topic, partition) under `chroot`; a missing one reads as leader -1, no ISR. */
export async function zkPartitionStates(zk: ZkClient, chroot: string, partitions: readonly { topic: string; partition: number }[]): Promise<PartitionView[]> {
  return Promise.all(
    partitions.map(async ({ topic, partition }) => {
      const node = await zk.getData(`${chroot}/brokers/topics/${topic}/partitions/${partition}/state`);
      if (node?.data === null || node?.data === undefined) return { topic, partition, leader: -1, isr: [] };
      const s = JSON.parse(node.data.toString('utf8')) as { leader: number; isr: number[] };
      return { topic, partition, leader: s.leader, isr: s.isr };
    }),
  );
}

/** One broker's Metadata for `topics` (all topics when null): every partition's leader and ISR. */
export async function metadataPartitions(port: number, topics: readonly string[] | null): Promise<{ controllerId: number; partitions: PartitionView[] }> {
  const conn = new BrokerConnection({ host: '127.0.0.1', port, clientId: 'cluster-state', requestTimeoutMs: 60000 });
  try {
    await conn.connect();
    const md = await conn.send(MetadataApi, { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation: false }, { version: 1 });
    const partitions = md.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, leader: p.leaderId, isr: p.isrNodes })));
    return { controllerId: md.controllerId, partitions };
  } finally {
    conn.close();
  }
}

/** How many of `views` have a leader and an ISR of `rf` replicas. */
export function fullCount(views: readonly PartitionView[], rf: number): number {
  let n = 0;
  for (const v of views) if (v.leader >= 0 && v.isr.length === rf) n++;
  return n;
}

export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

export function openDescriptors(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/** The segment files (`*.log`) under a broker's log dirs. */
export function segmentCount(logDirs: readonly string[]): number {
  let n = 0;
  for (const dir of logDirs) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      for (const f of fs.readdirSync(path.join(dir, entry.name))) if (f.endsWith('.log')) n++;
    }
  }
  return n;
}

/**
 * What landed in `topic`: the sum of its partitions' log end offsets, asked of each partition's leader with
 * ListOffsets (latest). `portOf` maps a broker id to its port; `bootstrapPort` answers the Metadata.
 */
export async function landedRecords(topic: string, bootstrapPort: number, portOf: (brokerId: number) => number): Promise<number> {
  const md = await metadataPartitions(bootstrapPort, [topic]);
  const byLeader = new Map<number, number[]>();
  for (const p of md.partitions) byLeader.set(p.leader, [...(byLeader.get(p.leader) ?? []), p.partition]);
  let total = 0;
  for (const [leader, partitions] of byLeader) {
    const conn = new BrokerConnection({ host: '127.0.0.1', port: portOf(leader), clientId: 'cluster-state' });
    await conn.connect();
    try {
      const r = await conn.send(ListOffsetsApi, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 })) }] }, { version: 1 });
      for (const t of r.topics) for (const p of t.partitions) total += Number(p.offset);
    } finally {
      conn.close();
    }
  }
  return total;
}
