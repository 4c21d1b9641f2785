import {
  CANNOT_EXECUTE_BECAUSE_OF_EXISTING,
  checkExecutePlan,
  checkReassignArgs,
  clearThrottlesLines,
  currentAssignmentLines,
  renderCurrentReassignments,
  renderReassignmentStates,
} from '../../../src/tools/reassign-partitions-command';

describe('kafka-reassign-partitions --bootstrap-server (Kafka 2.8 ReassignPartitionsCommand)', () => {
  const bs = { bootstrapServer: 'localhost:9092' };

  it.each([
    [{ ...bs }, 'Command must include exactly one action: --generate, --execute, --verify, --cancel, --list'],
    [{ ...bs, list: true, verify: true, reassignmentJsonFile: 'f' }, 'Command must include exactly one action: --generate, --execute, --verify, --cancel, --list'],
    [{ list: true }, 'Please specify --bootstrap-server'],
    [{ ...bs, execute: true }, 'Missing required argument "[reassignment-json-file]"'],
    [{ ...bs, generate: true, topicsToMoveJsonFile: 't' }, 'Missing required argument "[broker-list]"'],
    [{ ...bs, verify: true, reassignmentJsonFile: 'f', additional: true }, 'Option "[additional]" can\'t be used with action "[verify]"'],
    [{ ...bs, list: true, reassignmentJsonFile: 'f' }, 'Option "[reassignment-json-file]" can\'t be used with action "[list]"'],
    [{ ...bs, cancel: true, reassignmentJsonFile: 'f', zookeeper: 'z' }, 'Option "[zookeeper]" can\'t be used with action "[cancel]"'],
    [{ zookeeper: 'z', execute: true, reassignmentJsonFile: 'f', additional: true }, 'Exception in thread "main" java.lang.RuntimeException: You must specify --bootstrap-server when using "[additional]"'],
    [{ zookeeper: 'z', list: true }, 'Option "[zookeeper]" can\'t be used with action "[list]"'],
    [{ zookeeper: 'z', execute: true, reassignmentJsonFile: 'f', timeout: '10' }, 'Exception in thread "main" java.lang.RuntimeException: You must specify --bootstrap-server when using "[timeout]"'],
    [{ ...bs, execute: true, reassignmentJsonFile: 'f', throttle: 'fast' }, "Exception in thread \"main\" joptsimple.OptionArgumentConversionException: Cannot parse argument 'fast' of option throttle"],
    [{ zookeeper: 'z', execute: true, reassignmentJsonFile: 'f', replicaAlterLogDirsThrottle: '10' }, 'You must specify --bootstrap-server when using "[replica-alter-log-dirs-throttle]"'],
  ])('refuses %j with one line', (o, message) => {
    expect(() => checkReassignArgs(o)).toThrow(message);
  });

  it('accepts each action with its arguments, and a negative (no) throttle', () => {
    expect(checkReassignArgs({ ...bs, list: true })).toBe('list');
    expect(checkReassignArgs({ ...bs, cancel: true, reassignmentJsonFile: 'f', preserveThrottles: true, timeout: '100' })).toBe('cancel');
    expect(checkReassignArgs({ ...bs, execute: true, reassignmentJsonFile: 'f', additional: true, throttle: '-1' })).toBe('execute');
    expect(checkReassignArgs({ ...bs, execute: true, reassignmentJsonFile: 'f', throttle: '1000', replicaAlterLogDirsThrottle: '0' })).toBe('execute');
    expect(checkReassignArgs({ ...bs, generate: true, topicsToMoveJsonFile: 't', brokerList: '1,2', disableRackAware: true })).toBe('generate');
    expect(checkReassignArgs({ zookeeper: 'z', verify: true, reassignmentJsonFile: 'f' })).toBe('verify');
    expect(checkReassignArgs({ zookeeper: 'z', execute: true, reassignmentJsonFile: 'f', throttle: '1000' })).toBe('execute');
  });

  it('checks an --execute plan as parseExecuteAssignmentArgs does', () => {
    expect(() => checkExecutePlan([])).toThrow('Error: Partition reassignment list cannot be empty');
    expect(() => checkExecutePlan([{ topic: 't', partition: 0, replicas: [] }])).toThrow('Error: Partition replica list cannot be empty');
    expect(() => checkExecutePlan([{ topic: 't', partition: 0, replicas: [1] }, { topic: 't', partition: 0, replicas: [2] }])).toThrow('Error: Partition reassignment contains duplicate topic partitions: t-0');
    expect(() => checkExecutePlan([{ topic: 't', partition: 0, replicas: [1, 1, 2, 2] }, { topic: 't', partition: 1, replicas: [3, 3] }])).toThrow(
      'Error: Partition replica lists may not contain duplicate entries: t-0 contains multiple entries for 1,2. t-1 contains multiple entries for 3',
    );
    expect(() => checkExecutePlan([{ topic: 't', partition: 0, replicas: [1, 2], logDirs: ['any'] }])).toThrow('Error: Size of replicas list List(1, 2) is different from size of log dirs list List(any) for partition t-0');
    expect(() => checkExecutePlan([{ topic: 't', partition: 0, replicas: [1], logDirs: ['/data'] }])).not.toThrow();
    expect(() => checkExecutePlan([{ topic: 't', partition: 0, replicas: [1, 2], logDirs: ['any', 'any'] }])).not.toThrow();
  });

  it('renders --verify states as partitionReassignmentStatesToString, in topic-partition order', () => {
    expect(
      renderReassignmentStates([
        { tp: { topic: 'b', partition: 0 }, currentReplicas: [1, 2], targetReplicas: [1, 2], done: true },
        { tp: { topic: 'a', partition: 1 }, currentReplicas: [3, 1, 2], targetReplicas: [3, 1], done: false },
        { tp: { topic: 'a', partition: 0 }, currentReplicas: [1, 2], targetReplicas: [2, 3], done: true },
      ]),
    ).toEqual([
      'Status of partition reassignment:',
      'There is no active reassignment of partition a-0, but replica set is 1,2 rather than 2,3.',
      'Reassignment of partition a-1 is still in progress.',
      'Reassignment of partition b-0 is complete.',
    ]);
  });

  it('renders --list as curReassignmentsToString', () => {
    expect(renderCurrentReassignments([])).toEqual(['No partition reassignments found.']);
    expect(
      renderCurrentReassignments([
        { topic: 't', partitionIndex: 1, replicas: [2, 0], addingReplicas: [], removingReplicas: [0] },
        { topic: 't', partitionIndex: 0, replicas: [3, 1, 2], addingReplicas: [3], removingReplicas: [2] },
      ]),
    ).toEqual(['Current partition reassignments:', 't-0: replicas: 3,1,2. adding: 3. removing: 2.', 't-1: replicas: 2,0. removing: 0.']);
  });

  it('prints the rollback JSON and the throttle lines as Kafka does', () => {
    expect(currentAssignmentLines([{ topic: 't', partition: 1, replicas: [2, 1] }, { topic: 't', partition: 0, replicas: [1, 2] }])).toEqual([
      'Current partition replica assignment',
      '',
      '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},{"topic":"t","partition":1,"replicas":[2,1],"log_dirs":["any","any"]}]}',
      '',
      'Save this to use as the --reassignment-json-file option during rollback',
    ]);
    expect(clearThrottlesLines([0, 1], [{ topic: 't', partition: 0, replicas: [1, 2] }])).toEqual(['Clearing broker-level throttles on brokers 0,1,2', 'Clearing topic-level throttles on topic t']);
    expect(clearThrottlesLines([0], [{ topic: 't', partition: 0, replicas: [0] }, { topic: 'u', partition: 0, replicas: [0] }])).toEqual(['Clearing broker-level throttles on broker 0', 'Clearing topic-level throttles on topics t,u']);
    expect(CANNOT_EXECUTE_BECAUSE_OF_EXISTING).toMatch(/^Cannot execute because there is an existing partition assignment\. {2}Use --additional/);
  });
});
