import { getLogger } from '../../../src/common/logging/logging';
import { BrokerChangeHandler } from '../../../src/controller/broker-change-handler';
import { ControllerOps } from '../../../src/controller/controller-ops';
import { controllerStateOf, describeEvent } from '../../../src/controller/controller-events';
import { BrokerRegistryZk } from '../../../src/zk/broker-registry-zk';
import { BrokerInfo } from '../../../src/zk/znodes/broker-info';
import { brokerInfo, controllerFixture } from '../../helpers/recording-controller-channel';
import { quietLogging } from '../../helpers/quiet-logging';

/**
 * Kafka's processBrokerModification: a live broker's rewritten registration (dynamic listeners) reaches the
 * controller context and, when its endpoints changed, every live broker's metadata through UpdateMetadata.
 */

let restoreLogging: () => void;
beforeAll(() => (restoreLogging = quietLogging()));
afterAll(() => restoreLogging());

function setup(registered: Map<number, BrokerInfo>): { handler: BrokerChangeHandler; updates: number[][]; context: ReturnType<typeof controllerFixture>['context'] } {
  const f = controllerFixture({ epoch: 3, liveBrokers: [0, 1, 2] });
  const updates: number[][] = [];
  const ops = { context: f.context, sendUpdateMetadataRequest: (brokers: readonly number[]) => updates.push([...brokers].sort()) } as unknown as ControllerOps;
  const registry = { getBroker: async (id: number) => registered.get(id) ?? null } as unknown as BrokerRegistryZk;
  return { handler: new BrokerChangeHandler(ops, registry, getLogger('kafka.controller.KafkaController')), updates, context: f.context };
}

describe('BrokerModifications', () => {
  it("has Kafka's controller state BrokerChange", () => {
    expect(controllerStateOf({ kind: 'BrokerModifications', brokerId: 1 })).toBe('BrokerChange');
    expect(describeEvent({ kind: 'BrokerModifications', brokerId: 1 })).toBe('BrokerModifications(1)');
  });

  it('takes new endpoints into the context and sends UpdateMetadata to every live broker', async () => {
    const updated: BrokerInfo = {
      ...brokerInfo(1),
      endpoints: [...brokerInfo(1).endpoints, { listenerName: 'EXTRA', host: 'localhost', port: 9200 }],
      listenerSecurityProtocolMap: { PLAINTEXT: 'PLAINTEXT', EXTRA: 'PLAINTEXT' },
    };
    const { handler, updates, context } = setup(new Map([[1, updated]]));
    await handler.processBrokerModification(1);
    expect(context.liveBrokers.get(1)?.endpoints.map((e) => e.listenerName)).toEqual(['PLAINTEXT', 'EXTRA']);
    expect(updates).toEqual([[0, 1, 2]]);
  });

  it('does nothing when the endpoints are the same, or the broker is not live or not registered', async () => {
    const { handler, updates } = setup(new Map([[1, { ...brokerInfo(1), timestamp: 1 }], [7, brokerInfo(7)]]));
    await handler.processBrokerModification(1);
    await handler.processBrokerModification(7);
    await handler.processBrokerModification(2);
    expect(updates).toEqual([]);
  });
});
