import { hostname } from 'node:os';
import { SocketServer } from '../../../src/broker/network/socket-server';
import { socketServerOptions } from '../../../src/broker/network/socket-server-config';
import { RequestDispatcher } from '../../../src/broker/request-dispatcher';
import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { quietLogging } from '../../helpers/quiet-logging';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';

describe('SocketServer listeners', () => {
  let restoreLogging: () => void;
  beforeAll(() => (restoreLogging = quietLogging()));
  afterAll(() => restoreLogging());

  it('binds every listener, registers ephemeral ports and fills advertised listeners from them', async () => {
    const server = new SocketServer(
      {
        brokerId: 1,
        listeners: [
          { listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
          { listenerName: 'INTERNAL', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
        ],
        advertisedListeners: [
          { listenerName: 'PLAINTEXT', host: 'localhost', port: 0, securityProtocol: 'PLAINTEXT' },
          { listenerName: 'INTERNAL', host: '', port: 0, securityProtocol: 'PLAINTEXT' },
        ],
      },
      new RequestDispatcher({}),
    );
    await server.startup();
    try {
      const external = server.boundPort('PLAINTEXT');
      const internal = server.boundPort('INTERNAL');
      expect(external).toBeGreaterThan(0);
      expect(internal).not.toBe(external);
      expect(server.advertisedEndPoints()).toEqual([
        { listenerName: 'PLAINTEXT', host: 'localhost', port: external, securityProtocol: 'PLAINTEXT' },
        { listenerName: 'INTERNAL', host: hostname(), port: internal, securityProtocol: 'PLAINTEXT' },
      ]);
      for (const port of [external, internal]) {
        const c = await RawConnection.open(port);
        c.send(requestFrame(18, 0, 5, Buffer.alloc(0)));
        expect((await c.response(5))?.readInt16BE(4)).toBe(0);
        c.close();
      }
    } finally {
      await server.shutdown();
    }
  });

  it('adds and removes listeners at run time: a removed one closes its connections and refuses new ones', async () => {
    const plaintext = { listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' };
    const extra = { listenerName: 'EXTRA', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' };
    const server = new SocketServer({ brokerId: 1, listeners: [plaintext] }, new RequestDispatcher({}));
    await server.startup();
    try {
      await server.addListeners([extra], { tls: new Map(), sasl: new Map() });
      server.updateAdvertisedListeners([plaintext, extra]);
      const port = server.boundPort('EXTRA');
      expect(server.advertisedEndPoints().map((e) => [e.listenerName, e.port])).toEqual([['PLAINTEXT', server.boundPort('PLAINTEXT')], ['EXTRA', port]]);
      const c = await RawConnection.open(port);
      c.send(requestFrame(18, 0, 7, Buffer.alloc(0)));
      expect((await c.response(7))?.readInt16BE(4)).toBe(0);
      const closed = new Promise<void>((resolve) => c.socket.once('close', () => resolve()));
      await server.removeListeners([extra]);
      server.updateAdvertisedListeners([plaintext]);
      await closed;
      await expect(RawConnection.open(port)).rejects.toThrow();
      expect(() => server.boundPort('EXTRA')).toThrow('No listener named EXTRA');
      expect(server.advertisedEndPoints().map((e) => e.listenerName)).toEqual(['PLAINTEXT']);

      // A listener whose port is taken is not bound, and so not advertised (clients would be sent to nobody).
      const taken = { ...extra, listenerName: 'TAKEN', port: server.boundPort('PLAINTEXT') };
      await server.addListeners([taken], { tls: new Map(), sasl: new Map() });
      server.updateAdvertisedListeners([plaintext, taken]);
      expect(server.advertisedEndPoints().map((e) => e.listenerName)).toEqual(['PLAINTEXT']);
    } finally {
      await server.shutdown();
    }
  });

  it('takes its settings from the broker config', () => {
    const config = KafkaConfig.fromProperties(
      new Map([
        ['broker.id', '3'],
        ['zookeeper.connect', '127.0.0.1:2181'],
        ['log.dirs', '/tmp/x'],
        ['listeners', 'PLAINTEXT://127.0.0.1:0'],
        ['socket.request.max.bytes', '1000'],
        ['connections.max.idle.ms', '5000'],
      ]),
    );
    expect(socketServerOptions(config)).toMatchObject({ brokerId: 3, socketRequestMaxBytes: 1000, connectionsMaxIdleMs: 5000, queuedMaxRequests: 500 });
  });

  it('refuses listeners it cannot serve', async () => {
    const server = new SocketServer({ brokerId: 1, listeners: [{ listenerName: 'SSL', host: '127.0.0.1', port: 0, securityProtocol: 'SSL' }] }, new RequestDispatcher({}));
    await expect(server.startup()).rejects.toThrow(/Listener SSL uses SSL but has no SSL key material/);
    await server.shutdown();
  });
});
