import { ProtocolTestServer } from '../../helpers/protocol-test-server';
import { runChild } from './run-child';

describe('kcat 1.7.1 (librdkafka 2.0.2) against the protocol test server', () => {
  let server: ProtocolTestServer;

  beforeAll(async () => {
    server = await new ProtocolTestServer().start();
    server.createTopic('listed', 2);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('kcat -L lists the broker and topics (ApiVersions v3 handshake)', async () => {
    const r = await runChild('kcat', ['-b', server.bootstrap, '-L', '-J']);
    expect(r.code).toBe(0);
    const md = JSON.parse(r.stdout) as { brokers: { id: number; name: string }[]; topics: { topic: string; partitions: unknown[] }[] };
    expect(md.brokers).toEqual([{ id: 0, name: `127.0.0.1:${server.port}` }]);
    expect(md.topics.find((t) => t.topic === 'listed')?.partitions).toHaveLength(2);
  });

  it('produces with kcat -P and reads back with kcat -C', async () => {
    const p = await runChild('kcat', ['-b', server.bootstrap, '-P', '-t', 'kc', '-p', '0', '-K', ':'], { input: 'k1:a\nk2:b\n:c\n' });
    expect(p.code).toBe(0);
    expect(server.topics.get('kc')?.[0]?.nextOffset).toBe(3);
    const c = await runChild('kcat', ['-b', server.bootstrap, '-C', '-t', 'kc', '-p', '0', '-o', 'beginning', '-e', '-f', '%o %k %s\n']);
    expect(c.code).toBe(0);
    expect(c.stdout.trim().split('\n')).toEqual(['0 k1 a', '1 k2 b', '2  c']);
  });

  it('moves megabytes: large produce frames split across TCP reads, multi-batch fetches', async () => {
    const lines = Array.from({ length: 20000 }, (_, i) => `${String(i).padStart(6, '0')}-${'x'.repeat(120)}`);
    const p = await runChild('kcat', ['-b', server.bootstrap, '-P', '-t', 'big', '-p', '0', '-X', 'batch.size=1000000', '-X', 'linger.ms=50'], { input: `${lines.join('\n')}\n`, timeoutMs: 60000 });
    expect(p.code).toBe(0);
    expect(server.topics.get('big')?.[0]?.nextOffset).toBe(lines.length);
    // Batches of hundreds of KB: their Produce frames arrive over many socket reads.
    expect(server.topics.get('big')?.[0]?.batches.length).toBeLessThan(40);
    const c = await runChild('kcat', ['-b', server.bootstrap, '-C', '-t', 'big', '-p', '0', '-o', 'beginning', '-e', '-f', '%s\n'], { timeoutMs: 60000 });
    expect(c.code).toBe(0);
    expect(c.stdout.trim().split('\n')).toEqual(lines);
  });
});
