import {
  calculateCurrentMoveMap,
  calculateFollowerThrottles,
  calculateLeaderThrottles,
  calculateProposedMoveMap,
  calculateReassigningBrokers,
  logDirMoves,
  replicaMoveStatesLines,
} from '../../../src/tools/reassign-partitions-throttles';

describe('kafka-reassign-partitions throttle computations (Kafka 2.8 ReassignPartitionsCommand)', () => {
  it('moves each proposed partition from its current replicas to the new ones', () => {
    const current = new Map([
      ['foo-0', [0, 1, 2]],
      ['foo-1', [1, 2, 3]],
      ['bar-0', [2, 3, 4]],
    ]);
    const plan = [
      { topic: 'foo', partition: 0, replicas: [1, 2, 3] },
      { topic: 'foo', partition: 1, replicas: [3, 4, 5] },
      { topic: 'bar', partition: 0, replicas: [1, 2, 3] },
    ];
    const moveMap = calculateProposedMoveMap([], plan, current);
    expect([...(moveMap.get('foo')?.get(1)?.destinations ?? [])]).toEqual([4, 5]);
    // Kafka's TreeSet[String]: sorted as strings.
    expect(calculateLeaderThrottles(moveMap)).toEqual(new Map([
      ['foo', '0:0,0:1,0:2,1:1,1:2,1:3'],
      ['bar', '0:2,0:3,0:4'],
    ]));
    expect(calculateFollowerThrottles(moveMap)).toEqual(new Map([
      ['foo', '0:3,1:4,1:5'],
      ['bar', '0:1'],
    ]));
    expect(calculateReassigningBrokers(moveMap)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('keeps an ongoing reassignment\'s sources (its replicas less the adding ones)', () => {
    const ongoing = [{ tp: { topic: 'foo', partition: 0 }, replicas: [1, 2, 3, 4], addingReplicas: [3, 4] }];
    expect(calculateLeaderThrottles(calculateCurrentMoveMap(ongoing))).toEqual(new Map([['foo', '0:1,0:2']]));
    const moveMap = calculateProposedMoveMap(ongoing, [{ topic: 'foo', partition: 0, replicas: [2, 5] }], new Map([['foo-0', [1, 2, 3, 4]]]));
    expect(calculateLeaderThrottles(moveMap)).toEqual(new Map([['foo', '0:1,0:2']]));
    expect(calculateFollowerThrottles(moveMap)).toEqual(new Map([['foo', '0:5']]));
    expect(() => calculateProposedMoveMap([], [{ topic: 'x', partition: 0, replicas: [1] }], new Map())).toThrow('Trying to reassign a topic partition x-0 with 0 replicas');
  });

  it('reads the log-dir moves of a plan and renders their states as replicaMoveStatesToString', () => {
    const moves = logDirMoves([
      { topic: 'b', partition: 0, replicas: [1, 2], logDirs: ['any', '/d2'] },
      { topic: 'a', partition: 0, replicas: [3, 1], logDirs: ['/d1', '/d3'] },
    ]);
    expect(moves.map((m) => m.logDir)).toEqual(['/d2', '/d1', '/d3']);
    const infos = new Map([
      ['a-0-3', { current: '/d1', future: null }],
      ['a-0-1', { current: '/d0', future: '/d3' }],
      ['b-0-2', { current: '/d0', future: '/d9' }],
    ]);
    expect(replicaMoveStatesLines(moves, infos)).toEqual({
      ongoing: true,
      lines: ['Reassignment of replica a-0-1 is still in progress.', 'Reassignment of replica a-0-3 completed successfully.', 'Partition b-0 on broker 2 is being moved to log dir /d9 instead of /d2.'],
    });
    expect(replicaMoveStatesLines(moves.slice(0, 1), new Map([['b-0-2', { current: '/d0', future: null }]]))).toEqual({ ongoing: false, lines: ['Partition b-0 on broker 2 is not being moved from log dir /d0 to /d2.'] });
    expect(replicaMoveStatesLines(moves.slice(0, 1), new Map()).lines).toEqual(['Partition b-0 cannot be found in any live log directory on broker 2.']);
  });
});
