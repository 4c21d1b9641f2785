import { Kafka, logLevel } from 'kafkajs';
import { KafkaError } from '../../../src/common/kafka-error';
import { ProtocolTestServer } from '../../helpers/protocol-test-server';
import { quietLogging } from '../../helpers/quiet-logging';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';

const API_VERSIONS_V0 = (corr: number): Buffer => requestFrame(18, 0, corr, Buffer.alloc(0));

describe('network robustness', () => {
  let server: ProtocolTestServer;
  let restoreLogging: () => void;

  beforeAll(async () => {
    restoreLogging = quietLogging();
    server = await new ProtocolTestServer({ socket: { socketRequestMaxBytes: 64 * 1024 }, maxWaitMs: 200 }).start();
  });
  afterAll(async () => {
    await server.stop();
    restoreLogging();
  });

  it('a request larger than socket.request.max.bytes closes only that connection', async () => {
    const good = await RawConnection.open(server.port);
    const bad = await RawConnection.open(server.port);
    const header = Buffer.alloc(4);
    header.writeInt32BE(64 * 1024 + 1);
    bad.sendRaw(Buffer.concat([header, Buffer.alloc(100)]));
    expect(await bad.until(() => false, 5000)).toBe(false);
    expect(bad.closed).toBe(true);
    good.send(API_VERSIONS_V0(7));
    const resp = await good.response(7);
    expect(resp?.readInt16BE(4)).toBe(0);
    good.close();
  });

  it('a negative size and a TLS ClientHello close the connection', async () => {
    for (const bytes of [Buffer.from([0xff, 0xff, 0xff, 0xfe]), Buffer.from('160301020001', 'hex')]) {
      const c = await RawConnection.open(server.port);
      c.sendRaw(bytes);
      await c.until(() => false, 5000);
      expect(c.closed).toBe(true);
    }
  });

  it('an unknown API key closes the connection; an unsupported ApiVersions version gets error 35 in v0 shape', async () => {
    const c = await RawConnection.open(server.port);
    c.send(requestFrame(18, 9, 1, Buffer.from([0x55, 0x66])));
    const resp = await c.response(1);
    // corr 1, error 35, [ {18, 0, 3} ]
    expect(resp?.toString('hex')).toBe('00000001' + '0023' + '00000001' + '0012' + '0000' + '0003');
    c.send(requestFrame(9999, 0, 2, Buffer.alloc(0)));
    await c.until(() => false, 5000);
    expect(c.closed).toBe(true);
  });

  it('an unsupported version of another API closes the connection', async () => {
    const c = await RawConnection.open(server.port);
    c.send(requestFrame(3, 12, 1, Buffer.alloc(0)));
    await c.until(() => false, 5000);
    expect(c.closed).toBe(true);
  });

  it('answers pipelined requests strictly in order even when an earlier one is parked', async () => {
    server.createTopic('parked', 1);
    const c = await RawConnection.open(server.port);
    // Fetch v4 at the end of an empty partition with MaxWaitMs 150: it parks; the ApiVersions after it must wait.
    const fetchBody = Buffer.from('ffffffff' + '00000096' + '00000001' + '00100000' + '00' + '00000001' + '0006' + Buffer.from('parked').toString('hex') + '00000001' + '00000000' + '0000000000000000' + '00100000', 'hex');
    c.send(requestFrame(1, 4, 10, fetchBody), API_VERSIONS_V0(11), requestFrame(3, 0, 12, Buffer.from('00000000', 'hex')));
    await c.until(() => c.frames.length === 3, 5000);
    expect(c.frames.map((f) => f.readInt32BE(0))).toEqual([10, 11, 12]);
    c.close();
  });

  it('closes idle connections after connections.max.idle.ms', async () => {
    const idle = await new ProtocolTestServer({ socket: { connectionsMaxIdleMs: 200 } }).start();
    try {
      const c = await RawConnection.open(idle.port);
      expect(await c.until(() => false, 5000)).toBe(false);
      expect(c.closed).toBe(true);
    } finally {
      await idle.stop();
    }
  });

  it('pauses reading while the in-flight window is full and resumes when it drains', async () => {
    const small = await new ProtocolTestServer({ socket: { queuedMaxRequests: 2 } }).start();
    try {
      const c = await RawConnection.open(small.port);
      const frames = Array.from({ length: 50 }, (_, i) => API_VERSIONS_V0(100 + i));
      c.send(...frames);
      await c.until(() => c.frames.length === 50, 5000);
      expect(c.frames.map((f) => f.readInt32BE(0))).toEqual(frames.map((_, i) => 100 + i));
      c.close();
    } finally {
      await small.stop();
    }
  });

  it('a throwing handler gets the API error shape (KafkaError code or UNKNOWN_SERVER_ERROR), never a crash', async () => {
    const failing = await new ProtocolTestServer({
      overrides: {
        16: () => {
          throw new Error('boom');
        },
        12: async () => {
          throw new KafkaError('NOT_COORDINATOR');
        },
        0: () => {
          throw new Error('append failed');
        },
      },
    }).start();
    try {
      const c = await RawConnection.open(failing.port);
      c.send(requestFrame(16, 1, 1, Buffer.alloc(0)));
      // corr 1, throttle 0, error -1, empty groups
      expect((await c.response(1))?.toString('hex')).toBe('00000001' + '00000000' + 'ffff' + '00000000');
      c.send(requestFrame(12, 0, 2, Buffer.from('0001670000000100016d', 'hex')));
      expect((await c.response(2))?.toString('hex')).toBe('00000002' + '0010');
      // Produce v3, acks=1: the partition carries the error; acks=0: the connection is closed instead.
      const produce = (acks: string): Buffer => Buffer.from('ffff' + acks + '000003e8' + '00000001' + '000174' + '00000001' + '00000000' + '00000000', 'hex');
      c.send(requestFrame(0, 3, 3, produce('0001')));
      expect((await c.response(3))?.toString('hex')).toBe('00000003' + '00000001' + '000174' + '00000001' + '00000000' + 'ffff' + 'ffffffffffffffff' + 'ffffffffffffffff' + '00000000');
      c.send(requestFrame(0, 3, 4, produce('0000')));
      await c.until(() => false, 5000);
      expect(c.closed).toBe(true);
    } finally {
      await failing.stop();
    }
  });

  it('still serves kafkajs afterwards', async () => {
    const admin = new Kafka({ clientId: 'after', brokers: [server.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    expect((await admin.describeCluster()).brokers).toHaveLength(1);
    await admin.disconnect();
  });
});
