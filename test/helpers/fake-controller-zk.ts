import { TopicPartition, tpString } from '../../src/common/topic-partition';
import { ControllerZk, LeaderIsrWithVersion, PartitionStateEntry } from '../../src/zk/controller-zk';
import { LeaderIsrAndControllerEpoch } from '../../src/zk/znodes/partition-state';

/** One call the code under test made, with what the fake answered. */
export type ZkCall =
  | { op: 'get'; tp: string; result: LeaderIsrWithVersion | null }
  | { op: 'create'; tp: string; state: LeaderIsrAndControllerEpoch; result: boolean }
  | { op: 'update'; tp: string; state: LeaderIsrAndControllerEpoch; expectedZkVersion: number; result: number | null };

type PartitionStateOps = Pick<
  ControllerZk,
  'getPartitionState' | 'createPartitionState' | 'updatePartitionState' | 'createPartitionStates' | 'getPartitionStates' | 'updatePartitionStates'
>;

/**
 * In-memory stand-in for the partition-state part of ControllerZk, i.e. the znodes
 * `/brokers/topics/<t>/partitions/<p>/state` as ZooKeeper keeps them: data plus a dataVersion (the zkVersion).
 * `createPartitionState` fails (false) when the node exists; `updatePartitionState` is a conditional setData:
 * it succeeds only on the current version, bumping it, and answers null on BADVERSION or NONODE, as the real
 * one does. The batch forms (`createPartitionStates`, ...) are the single calls in order, each outcome settled on
 * its own, as ControllerZk's requests in flight together. Every call is recorded in `calls`; `beforeNextUpdate` lets a test play a concurrent writer (the
 * partition leader shrinking the ISR, another controller) between the code's read and its write.
 */
export class FakeControllerZk implements PartitionStateOps {
  readonly nodes = new Map<string, LeaderIsrWithVersion>();
  readonly calls: ZkCall[] = [];
  private readonly hooks = new Map<string, (() => void)[]>();
  private readonly failures = new Map<'get' | 'create' | 'update', Error[]>();

  /** Puts a state node in place (as if written earlier), at `zkVersion`. */
  seed(tp: TopicPartition, state: LeaderIsrAndControllerEpoch, zkVersion = 0): void {
    this.nodes.set(tpString(tp), { state: clone(state), zkVersion });
  }

  node(tp: TopicPartition): LeaderIsrWithVersion | undefined {
    return this.nodes.get(tpString(tp));
  }

  /** Someone else's successful setData: new data, version + 1. */
  concurrentWrite(tp: TopicPartition, state: LeaderIsrAndControllerEpoch): void {
    const current = this.nodes.get(tpString(tp));
    if (current === undefined) throw new Error(`no state node for ${tpString(tp)}`);
    this.nodes.set(tpString(tp), { state: clone(state), zkVersion: current.zkVersion + 1 });
  }

  /** Runs `action` just before the next updatePartitionState of `tp` is applied. */
  beforeNextUpdate(tp: TopicPartition, action: () => void): void {
    const list = this.hooks.get(tpString(tp)) ?? [];
    list.push(action);
    this.hooks.set(tpString(tp), list);
  }

  /** The next call of `op` rejects with `error` (a connection loss, say). */
  failNext(op: 'get' | 'create' | 'update', error: Error): void {
    this.failures.set(op, [...(this.failures.get(op) ?? []), error]);
  }

  /** The writes (create and update calls), in order. */
  writes(): Exclude<ZkCall, { op: 'get' }>[] {
    return this.calls.filter((c): c is Exclude<ZkCall, { op: 'get' }> => c.op !== 'get');
  }

  async getPartitionState(topic: string, partition: number): Promise<LeaderIsrWithVersion | null> {
    this.maybeFail('get');
    const tp = tpString({ topic, partition });
    const node = this.nodes.get(tp);
    const result = node === undefined ? null : { state: clone(node.state), zkVersion: node.zkVersion };
    this.calls.push({ op: 'get', tp, result });
    return result;
  }

  async createPartitionState(topic: string, partition: number, state: LeaderIsrAndControllerEpoch): Promise<boolean> {
    this.maybeFail('create');
    const tp = tpString({ topic, partition });
    const created = !this.nodes.has(tp);
    if (created) this.nodes.set(tp, { state: clone(state), zkVersion: 0 });
    this.calls.push({ op: 'create', tp, state: clone(state), result: created });
    return created;
  }

  async updatePartitionState(topic: string, partition: number, state: LeaderIsrAndControllerEpoch, expectedZkVersion: number): Promise<number | null> {
    this.maybeFail('update');
    const tp = tpString({ topic, partition });
    this.hooks.get(tp)?.shift()?.();
    const node = this.nodes.get(tp);
    let result: number | null = null;
    if (node !== undefined && node.zkVersion === expectedZkVersion) {
      result = node.zkVersion + 1;
      this.nodes.set(tp, { state: clone(state), zkVersion: result });
    }
    this.calls.push({ op: 'update', tp, state: clone(state), expectedZkVersion, result });
    return result;
  }

  createPartitionStates(entries: readonly PartitionStateEntry[]): Promise<PromiseSettledResult<boolean>[]> {
    return Promise.allSettled(entries.map((e) => this.createPartitionState(e.topic, e.partition, e.state)));
  }

  getPartitionStates(partitions: readonly TopicPartition[]): Promise<PromiseSettledResult<LeaderIsrWithVersion | null>[]> {
    return Promise.allSettled(partitions.map((tp) => this.getPartitionState(tp.topic, tp.partition)));
  }

  updatePartitionStates(updates: readonly (PartitionStateEntry & { expectedZkVersion: number })[]): Promise<PromiseSettledResult<number | null>[]> {
    return Promise.allSettled(updates.map((u) => this.updatePartitionState(u.topic, u.partition, u.state, u.expectedZkVersion)));
  }

  private maybeFail(op: 'get' | 'create' | 'update'): void {
    const error = this.failures.get(op)?.shift();
    if (error !== undefined) throw error;
  }
}

function clone(s: LeaderIsrAndControllerEpoch): LeaderIsrAndControllerEpoch {
  return { leader: s.leader, leaderEpoch: s.leaderEpoch, isr: [...s.isr], controllerEpoch: s.controllerEpoch };
}
