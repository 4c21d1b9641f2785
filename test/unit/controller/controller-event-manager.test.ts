import { ErrorCode } from '../../../src/common/error-codes';
import { ControllerEventManager, ControllerEventProcessor } from '../../../src/controller/controller-event-manager';
import { ControlledShutdownResult, ControllerEvent, ControllerState } from '../../../src/controller/controller-events';
import { quietLogging } from '../../helpers/quiet-logging';
import { MockClock } from '../../helpers/mock-clock';

/** A processor that records what ran, and can hold an event until released. */
class RecordingProcessor implements ControllerEventProcessor {
  readonly processed: string[] = [];
  readonly failed: [string, unknown][] = [];
  readonly statesSeen: ControllerState[] = [];
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  manager: ControllerEventManager | undefined;
  failOn: string | undefined;

  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = undefined;
  }

  async process(event: ControllerEvent): Promise<void> {
    this.statesSeen.push(this.manager?.state ?? 'Idle');
    if (this.gate !== undefined) await this.gate;
    if (event.kind === this.failOn) throw new Error(`${event.kind} failed`);
    this.processed.push(event.kind === 'PartitionModifications' ? `${event.kind}(${event.topic})` : event.kind);
    if (event.kind === 'ControlledShutdown') event.callback({ errorCode: ErrorCode.NONE.code, remaining: [] });
  }

  async handleError(event: ControllerEvent, error: unknown): Promise<void> {
    this.failed.push([event.kind, error]);
  }
}

function controlledShutdown(results: ControlledShutdownResult[]): ControllerEvent {
  return { kind: 'ControlledShutdown', brokerId: 2, brokerEpoch: 7, callback: (r) => results.push(r) };
}

describe('ControllerEventManager', () => {
  quietLogging();
  let processor: RecordingProcessor;
  let manager: ControllerEventManager;

  beforeEach(() => {
    processor = new RecordingProcessor();
    manager = new ControllerEventManager(1, processor);
    processor.manager = manager;
    manager.start();
  });

  afterEach(async () => {
    processor.release();
    await manager.shutdown();
  });

  it('runs events one at a time in the order they were put', async () => {
    processor.hold();
    manager.put({ kind: 'Startup' });
    manager.put({ kind: 'BrokerChange' });
    manager.put({ kind: 'PartitionModifications', topic: 't' });
    manager.put({ kind: 'TopicChange' });
    expect(manager.queueSize).toBe(3);
    expect(processor.processed).toEqual([]);
    processor.release();
    await manager.whenIdle();
    expect(processor.processed).toEqual(['Startup', 'BrokerChange', 'PartitionModifications(t)', 'TopicChange']);
    expect(manager.queueSize).toBe(0);
  });

  it("reports the running event's ControllerState and Idle between events", async () => {
    manager.put({ kind: 'BrokerChange' });
    manager.put({ kind: 'ZkPartitionReassignment' });
    manager.put({ kind: 'AutoPreferredReplicaLeaderElection' });
    await manager.whenIdle();
    expect(processor.statesSeen).toEqual(['BrokerChange', 'AlterPartitionReassignment', 'AutoLeaderBalance']);
    expect(manager.state).toBe('Idle');
  });

  it('hands a failed event to handleError and carries on with the next', async () => {
    processor.failOn = 'TopicChange';
    manager.put({ kind: 'TopicChange' });
    manager.put({ kind: 'TopicDeletion' });
    await manager.whenIdle();
    expect(processor.failed.map(([kind, err]) => [kind, (err as Error).message])).toEqual([['TopicChange', 'TopicChange failed']]);
    expect(processor.processed).toEqual(['TopicDeletion']);
  });

  it('clearAndPut pre-empts what is queued: a dropped ControlledShutdown is answered NOT_CONTROLLER', async () => {
    const results: ControlledShutdownResult[] = [];
    processor.hold();
    manager.put({ kind: 'BrokerChange' });
    manager.put(controlledShutdown(results));
    manager.put({ kind: 'TopicChange' });
    manager.clearAndPut({ kind: 'Expire' });
    expect(results).toEqual([{ errorCode: ErrorCode.NOT_CONTROLLER.code, remaining: [] }]);
    processor.release();
    await manager.whenIdle();
    // The event already running finishes; the dropped ones never run; the expiry runs next.
    expect(processor.processed).toEqual(['BrokerChange', 'Expire']);
    expect(results).toHaveLength(1);
  });

  it('shutdown pre-empts the queue, waits for the running event, and answers events put afterwards at once', async () => {
    const results: ControlledShutdownResult[] = [];
    processor.hold();
    manager.put({ kind: 'TopicChange' });
    manager.put(controlledShutdown(results));
    const stopped = manager.shutdown();
    expect(results).toEqual([{ errorCode: ErrorCode.NOT_CONTROLLER.code, remaining: [] }]);
    processor.release();
    await stopped;
    expect(processor.processed).toEqual(['TopicChange']);
    manager.put(controlledShutdown(results));
    expect(results).toHaveLength(2);
    expect(results[1]?.errorCode).toBe(ErrorCode.NOT_CONTROLLER.code);
    expect(processor.processed).toEqual(['TopicChange']);
  });

  it('answers a ControlledShutdown that runs exactly once', async () => {
    const results: ControlledShutdownResult[] = [];
    manager.put(controlledShutdown(results));
    await manager.whenIdle();
    manager.clearAndPut({ kind: 'Expire' });
    await manager.whenIdle();
    expect(results).toEqual([{ errorCode: ErrorCode.NONE.code, remaining: [] }]);
  });

  it('reports each event\'s time under its state to a stats observer, failed ones included', async () => {
    const timed: [ControllerState, number][] = [];
    const clock = new MockClock();
    const observed = new ControllerEventManager(1, processor, clock, { onEventProcessed: (state, ms) => timed.push([state, ms]), onUncleanLeaderElection: () => undefined });
    processor.manager = observed;
    processor.hold();
    processor.failOn = 'TopicChange';
    observed.put({ kind: 'BrokerChange' });
    clock.advance(25);
    processor.release();
    observed.put({ kind: 'TopicChange' });
    await observed.whenIdle();
    await observed.shutdown();
    expect(timed).toEqual([
      ['BrokerChange', 25],
      ['TopicChange', 0],
    ]);
  });
});
