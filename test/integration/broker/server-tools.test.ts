import { runTool } from '../../helpers/run-tool';
import fs from 'node:fs';
import path from 'node:path';
import { BrokerProcess } from '../../helpers/broker-process';
import { freePort } from '../../helpers/free-port';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { inspectZk } from '../../helpers/zk-inspect';


const run = (tool: string, args: string[], env?: NodeJS.ProcessEnv): ReturnType<typeof runTool> => runTool(tool, args, env ? { env } : {});

describe('kafka-server-start and kafka-server-stop', () => {
  let ensemble: ZkEnsemble;

  beforeAll(async () => {
    ensemble = await startZkEnsemble({ size: 1 });
  }, 60000);
  afterAll(async () => ensemble?.close());

  it('print usage for --help and refuse bad arguments with one line and exit 1', async () => {
    const help = await run('kafka-server-start', ['--help']);
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/Usage: kafka-server-start/);
    const none = await run('kafka-server-start', []);
    expect(none.code).toBe(1);
    expect(none.output.trim().split('\n')).toHaveLength(1);
    const unknown = await run('kafka-server-start', ['config/server.properties', '--bogus']);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/unknown option '--bogus'/);
    const missing = await run('kafka-server-start', ['/no/such/file.properties']);
    expect(missing.code).toBe(1);
    expect(missing.output.trim()).toBe('Cannot read properties file /no/such/file.properties: ENOENT');
    const badOverride = await run('kafka-server-start', ['config/server.properties', '--override', 'novalue']);
    expect(badOverride.code).toBe(1);
    expect(badOverride.output.trim()).toBe("Invalid override 'novalue': expected property=value");
    const stopHelp = await run('kafka-server-stop', ['--help']);
    expect(stopHelp.code).toBe(0);
    const stopBad = await run('kafka-server-stop', ['extra']);
    expect(stopBad.code).toBe(1);
  });

  it('runs a broker as a daemon and stops it with kafka-server-stop', async () => {
    const chroot = uniqueChroot('daemon');
    const logDir = tmpDir('daemon-logs-');
    const dataDir = tmpDir('daemon-data-');
    const port = await freePort();
    const props = path.join(logDir, 'server.properties');
    fs.writeFileSync(
      props,
      [`broker.id=0`, `listeners=PLAINTEXT://127.0.0.1:${port}`, `log.dirs=${dataDir}`, `zookeeper.connect=${ensemble.connectStringWithChroot(chroot)}`, 'zookeeper.session.timeout.ms=4000'].join('\n'),
    );
    const env = { ...process.env, LOG_DIR: logDir };
    const start = await run('kafka-server-start', ['-daemon', props], env);
    expect(start.code).toBe(0);
    const zk = await inspectZk(ensemble.connectStringWithChroot(chroot));
    await waitUntil(async () => zk.exists('/brokers/ids/0'), { timeoutMs: 30000, message: 'the daemon broker to register' });
    // The registration precedes the "started" line: wait for the line rather than read the file once.
    await waitUntil(() => /\[KafkaServer id=0\] started/.test(fs.readFileSync(path.join(logDir, 'kafkaServer.out'), 'utf8')), { message: 'the daemon to log its start in kafkaServer.out' });

    const stop = await run('kafka-server-stop', ['--process-role', props]);
    expect(stop.code).toBe(0);
    await waitUntil(async () => (await zk.exists('/brokers/ids/0')) === null, { timeoutMs: 15000, message: 'the broker to deregister' });
    await waitUntil(() => /shut down completed/.test(fs.readFileSync(path.join(logDir, 'server.log'), 'utf8')), { message: 'a clean shutdown' });
    const again = await run('kafka-server-stop', ['--process-role', props]);
    expect(again.code).toBe(1);
    expect(again.output.trim()).toBe('No kafka server to stop');
  });

  it('warns about unknown properties and starts anyway', async () => {
    const broker = await BrokerProcess.start({ brokerId: 1, zkConnect: ensemble.connectStringWithChroot(uniqueChroot('warn')), props: { 'no.such.property': 'x' } });
    expect(broker.readLog()).toMatch(/WARN The configuration 'no\.such\.property' was supplied but isn't a known config\. \(kafka\.server\.KafkaConfig\)/);
    await broker.child.stop();
  });
});
