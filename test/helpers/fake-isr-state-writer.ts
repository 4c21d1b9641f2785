import { TopicPartition, tpString } from '../../src/common/topic-partition';
import { IsrStateWriter } from '../../src/broker/isr-state-writer';
import { LeaderIsrAndControllerEpoch } from '../../src/zk/znodes/partition-state';

export interface IsrWrite {
  tp: string;
  state: LeaderIsrAndControllerEpoch;
  expectedZkVersion: number;
}

/**
 * In-memory stand-in for IsrStateWriter, the partition leader's conditional setData of its state znode: the
 * write succeeds (new zkVersion = old + 1) only when `expectedZkVersion` is the node's version, else answers null
 * (BADVERSION), as the real one. A partition whose version was never set is taken to be at the version the
 * writer expects. `hold` keeps writes in flight until released, `failNext` makes the next one reject.
 */
export class FakeIsrStateWriter implements Pick<IsrStateWriter, 'write'> {
  readonly writes: IsrWrite[] = [];
  private readonly versions = new Map<string, number>();
  private gate: Promise<void> | undefined;
  private failure: Error | undefined;

  /** The state znode's zkVersion, as if written by someone else (the controller). */
  setVersion(tp: TopicPartition, zkVersion: number): void {
    this.versions.set(tpString(tp), zkVersion);
  }

  /** Writes from now on wait until the returned function is called. */
  hold(): () => void {
    let release: () => void = () => undefined;
    this.gate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.gate = undefined;
      release();
    };
  }

  failNext(error: Error): void {
    this.failure = error;
  }

  async write(tp: TopicPartition, state: LeaderIsrAndControllerEpoch, expectedZkVersion: number): Promise<number | null> {
    this.writes.push({ tp: tpString(tp), state: { ...state, isr: [...state.isr] }, expectedZkVersion });
    if (this.gate !== undefined) await this.gate;
    const failure = this.failure;
    this.failure = undefined;
    if (failure !== undefined) throw failure;
    const current = this.versions.get(tpString(tp)) ?? expectedZkVersion;
    if (current !== expectedZkVersion) return null;
    this.versions.set(tpString(tp), current + 1);
    return current + 1;
  }
}
