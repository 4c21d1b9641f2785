import { ProtocolTestServer } from '../../helpers/protocol-test-server';
import { runChild } from './run-child';

const PY = '/usr/bin/python3';

describe('kafka-python 2.0.2 against the protocol test server', () => {
  let server: ProtocolTestServer;

  beforeAll(async () => {
    server = await new ProtocolTestServer().start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('KafkaClient bootstraps and its version probe settles on 2.x', async () => {
    const script = `
import sys
from kafka import KafkaClient
c = KafkaClient(bootstrap_servers=sys.argv[1], request_timeout_ms=10000)
print(c.check_version())
import time
f = c.cluster.request_update()
deadline = time.time() + 10
while not f.is_done and time.time() < deadline:
    c.poll(timeout_ms=200)
print(sorted(b.nodeId for b in c.cluster.brokers()))
c.close()
`;
    const r = await runChild(PY, ['-c', script, server.bootstrap]);
    expect(r.stderr).not.toMatch(/Traceback/);
    const [version, brokers] = r.stdout.trim().split('\n');
    // kafka-python infers (2, 4, 0) from Produce v8 being advertised (a Kafka 2.8 broker, which also serves
    // DescribeAcls v2 and DescribeClientQuotas, is inferred as (2, 6, 0)).
    expect(version).toBe('(2, 4, 0)');
    expect(brokers).toBe('[0]');
  });

  it('produces with KafkaProducer and fetches with KafkaConsumer (Produce v7, Fetch v4, ListOffsets v1)', async () => {
    server.createTopic('kp', 1);
    const script = `
import sys
from kafka import KafkaProducer, KafkaConsumer, TopicPartition
bs = sys.argv[1]
p = KafkaProducer(bootstrap_servers=bs, acks=1)
futs = [p.send('kp', key=b'k%d' % i, value=b'v%d' % i, headers=[('h', b'x')]) for i in range(3)]
p.flush()
print(','.join(str(f.get(timeout=10).offset) for f in futs))
p.close()
c = KafkaConsumer(bootstrap_servers=bs, group_id=None, auto_offset_reset='earliest', consumer_timeout_ms=5000)
tp = TopicPartition('kp', 0)
c.assign([tp])
c.seek_to_beginning(tp)
got = []
for m in c:
    got.append('%d:%s=%s' % (m.offset, m.key.decode(), m.value.decode()))
    if len(got) == 3:
        break
print(' '.join(got))
print(c.end_offsets([tp])[tp])
c.close()
`;
    const r = await runChild(PY, ['-c', script, server.bootstrap], { timeoutMs: 60000 });
    expect(r.stderr).not.toMatch(/Traceback/);
    expect(r.stdout.trim().split('\n')).toEqual(['0,1,2', '0:k0=v0 1:k1=v1 2:k2=v2', '3']);
  });
});
