import { offsetTruncationState } from '../../../../src/broker/replica-fetcher/offset-truncation';
import { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from '../../../../src/log/leader-epoch-file-cache';
import { Log } from '../../../../src/log/log';
import { LogFixture, logFixture, makeBatch } from '../../log/log-test-utils';
import { quietLogging } from '../../../helpers/quiet-logging';

/**
 * KIP-101/KIP-279 truncation decisions (Kafka's AbstractFetcherThread.getOffsetTruncationState, covered there by
 * AbstractFetcherThreadTest/ReplicaFetcherThreadTest): given the follower's log (its leader epoch cache, log end
 * offset and high watermark) and the leader's OffsetsForLeaderEpoch answer, where the follower truncates and
 * whether it must ask again.
 */

let restoreLogging: () => void;
beforeAll(() => (restoreLogging = quietLogging()));
afterAll(() => restoreLogging());

let fixture: LogFixture;
beforeEach(() => (fixture = logFixture('t-0')));
afterEach(async () => fixture.cleanup());

/** A follower log holding `count` records per [epoch, count] in order (epoch -1: no epoch tracked), with `hw`. */
async function followerLog(epochs: [number, number][], hw: number): Promise<Log> {
  const log = fixture.open();
  for (const [epoch, count] of epochs) await log.appendAsLeader(makeBatch({ count }), epoch);
  log.updateHighWatermark(hw);
  return log;
}

/** Epochs 0 at [0,10), 2 at [10,20): LEO 20, high watermark 8. */
const TWO_EPOCHS: [number, number][] = [
  [0, 10],
  [2, 10],
];

describe('offsetTruncationState', () => {
  it('builds the follower log the cases assume', async () => {
    const log = await followerLog(TWO_EPOCHS, 8);
    expect(log.leaderEpochCache.entries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 10 },
    ]);
    expect([log.logEndOffset, log.highWatermark]).toEqual([20, 8]);
  });

  it.each<[string, [number, number][], number, number, number, number, boolean]>([
    // description, follower epochs, follower HW, leader's epoch, leader's end offset, expected offset, completed
    ['leader cannot tell (undefined end offset): truncate to the high watermark', TWO_EPOCHS, 8, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, 8, true],
    ['undefined end offset with an epoch: still the high watermark', TWO_EPOCHS, 8, 2, UNDEFINED_EPOCH_OFFSET, 8, true],
    ['v0 answer (no epoch): truncate to the leader end offset', TWO_EPOCHS, 8, UNDEFINED_EPOCH, 15, 15, true],
    ['v0 answer past our end: nothing to truncate (our LEO)', TWO_EPOCHS, 8, UNDEFINED_EPOCH, 25, 20, true],
    ['same latest epoch, leader ended it earlier: truncate to the leader end offset', TWO_EPOCHS, 8, 2, 15, 15, true],
    ['same latest epoch, leader has more: nothing to truncate', TWO_EPOCHS, 8, 2, 25, 20, true],
    ['leader answers an older epoch we have, ended where ours did: truncate to its end', TWO_EPOCHS, 8, 0, 10, 10, true],
    ['leader answers an older epoch we have, ended earlier: the smaller of the two ends', TWO_EPOCHS, 8, 0, 7, 7, true],
    ['leader answers an older epoch whose end is after ours: our end of that epoch', TWO_EPOCHS, 8, 0, 12, 10, true],
    ['leader answers epoch 1, unknown to us: cut to the end of our epoch 0 and ask again (KIP-279)', TWO_EPOCHS, 8, 1, 12, 10, false],
    ['leader answers an epoch above all of ours: the leader end offset (nothing tracked to compare)', TWO_EPOCHS, 8, 3, 12, 12, true],
    ['follower tracks no epochs (old message format): the leader end offset', [[-1, 20]], 8, 2, 15, 15, true],
    ['follower tracks no epochs, leader end past ours: our LEO', [[-1, 20]], 8, 2, 30, 20, true],
    ['empty follower log: offset 0', [], 0, 2, 15, 0, true],
    [
      'leader epoch below all of ours: the start of our first epoch above it',
      [
        [2, 10],
        [4, 10],
      ],
      5,
      1,
      5,
      0,
      true,
    ],
  ])('%s', async (_, epochs, hw, leaderEpoch, leaderEndOffset, offset, truncationCompleted) => {
    const log = await followerLog(epochs, hw);
    expect(offsetTruncationState(log, leaderEpoch, leaderEndOffset)).toEqual({ offset, truncationCompleted });
  });

  it('never proposes an offset past the log end offset', async () => {
    const log = await followerLog(TWO_EPOCHS, 20);
    for (const [epoch, end] of [
      [UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET],
      [UNDEFINED_EPOCH, 99],
      [0, 99],
      [1, 99],
      [2, 99],
      [7, 99],
    ] as const) {
      expect(offsetTruncationState(log, epoch, end).offset).toBeLessThanOrEqual(20);
    }
  });

  it('KIP-279 two rounds: an epoch unknown to us, then the answer for our epoch below it', async () => {
    // Follower: epoch 0 [0,5), 1 [5,10), 3 [10,20). Leader: 0 [0,5), 1 [5,8), 2 [8,15); it never saw epoch 3.
    const log = await followerLog(
      [
        [0, 5],
        [1, 5],
        [3, 10],
      ],
      4,
    );
    // Round 1: asked for 3, the leader answers (2, 15): we do not know 2, cut back to the end of our epoch 1.
    const first = offsetTruncationState(log, 2, 15);
    expect(first).toEqual({ offset: 10, truncationCompleted: false });
    await log.truncateTo(first.offset);
    expect(log.leaderEpochCache.latestEpoch()).toBe(1);
    // Round 2: asked for 1, the leader answers (1, 8): its epoch 1 ended at 8, ours at our LEO 10.
    expect(offsetTruncationState(log, 1, 8)).toEqual({ offset: 8, truncationCompleted: true });
  });
});
