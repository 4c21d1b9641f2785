import { DynamicConfigManager } from '../../../src/broker/dynamic-config-manager';
import { LogConfig } from '../../../src/common/config/log-config';
import { LogManager } from '../../../src/log/log-manager';
import { captureLogs } from '../../helpers/capture-logs';
import { FakeZk } from '../../helpers/fake-zk';
import { waitUntil } from '../../helpers/wait-until';

/** Topic configs and their change notifications as a broker reads them, with junk among them. */
describe('DynamicConfigManager over junk config znodes', () => {
  function setup(): { zk: FakeZk; applied: [string, LogConfig][]; manager: DynamicConfigManager } {
    const zk = new FakeZk();
    zk.put('/config/changes', null);
    const applied: [string, LogConfig][] = [];
    const logManager = { updateTopicConfig: (topic: string, config: LogConfig) => applied.push([topic, config]) } as unknown as LogManager;
    return { zk, applied, manager: new DynamicConfigManager(zk.client, logManager, {}) };
  }

  it('reads an unreadable topic config as no overrides, and leaves out invalid values when logs are created', async () => {
    const { zk, manager } = setup();
    const logs = captureLogs();
    zk.put('/config/topics/t', 'junk');
    expect((await manager.logConfigFor('t')).retentionMs).toBe(604800000);
    zk.put('/config/topics/t', '{"version":1,"config":{"retention.ms":"not-a-number","segment.bytes":"1048576"}}');
    const config = await manager.logConfigFor('t');
    expect(config.retentionMs).toBe(604800000);
    expect(config.segmentBytes).toBe(1048576);
    // Overrides given by a request are all checked: an invalid one is an error there.
    await expect(manager.logConfigFor('t', new Map([['retention.ms', 'x']]))).rejects.toThrow();
    const text = logs.text();
    expect(text).toMatch(/Ignoring unreadable topic config at \/config\/topics\/t/);
    expect(text).toMatch(/Ignoring invalid config retention.ms=not-a-number of topic t at \/config\/topics\/t/);
  });

  it('logs and skips junk notifications and goes on with the next ones', async () => {
    const { zk, applied, manager } = setup();
    const logs = captureLogs();
    zk.put('/config/topics/good', '{"version":1,"config":{"retention.ms":"1000"}}');
    zk.put('/config/changes/config_change_0000000001', 'junk');
    zk.put('/config/changes/config_change_0000000002', '{"version":9}');
    zk.put('/config/changes/config_change_0000000003', '{"version":2,"entity_path":"topics/a/b"}');
    zk.put('/config/changes/config_change_0000000004', '{"version":2,"entity_path":"topics/good"}');
    manager.startup();
    await waitUntil(() => applied.length === 1, { message: 'the valid notification to be applied' });
    manager.shutdown();
    expect(applied[0]?.[0]).toBe('good');
    expect(applied[0]?.[1].retentionMs).toBe(1000);
    const text = logs.text();
    expect(text).toMatch(/error processing change notification junk from \/config\/changes\/config_change_0000000001/);
    expect(text).toMatch(/unsupported version '9'/);
    expect(text).toMatch(/Invalid topic in entity_path topics\/a\/b/);
  });
});
