import { ApiHandlers, ConnectionContext, NO_RESPONSE } from '../../../src/broker/network/api-handler';
import { DispatchOutcome, RequestDispatcher } from '../../../src/broker/request-dispatcher';
import { ANONYMOUS } from '../../../src/security/kafka-principal';
import { allApis } from '../../../src/protocol/apis';
import { ApiKey } from '../../../src/protocol/api-keys';

const ctx = (): ConnectionContext => ({
  connectionId: '127.0.0.1:9092-127.0.0.1:5000-0',
  listenerName: 'PLAINTEXT',
  securityProtocol: 'PLAINTEXT',
  clientAddress: '/127.0.0.1',
  clientPort: 5000,
  clientSoftwareName: 'unknown',
  clientSoftwareVersion: 'unknown',
  principal: ANONYMOUS,
});

/** A dispatcher with a (never called) handler for every registered API. */
function fullDispatcher(extra: ApiHandlers = {}): RequestDispatcher {
  const handlers: Record<number, unknown> = {};
  for (const api of allApis()) if (api.key !== 18 && api.key !== 17 && api.key !== 36) handlers[api.key] = () => ({});
  return new RequestDispatcher({ ...(handlers as ApiHandlers), ...extra });
}

function hex(outcome: DispatchOutcome | Promise<DispatchOutcome>): string {
  const o = outcome as DispatchOutcome;
  if (o.kind !== 'send') throw new Error(`expected a response, got ${o.kind}`);
  return Buffer.concat(o.chunks).toString('hex');
}

describe('RequestDispatcher', () => {
  it('advertises SaslHandshake and SaslAuthenticate only when their handlers are installed (a SASL listener exists)', () => {
    const table = fullDispatcher({ [17]: () => ({ errorCode: 34, mechanisms: [] }), [36]: () => ({ errorCode: 34, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 }) })
      .advertised()
      .map((k) => `${k.apiKey}:${k.minVersion}-${k.maxVersion}`);
    expect(table).toEqual(expect.arrayContaining(['17:0-1', '36:0-2']));
    expect(fullDispatcher().advertised().map((k) => k.apiKey)).not.toContain(17);
  });

  it('advertises exactly the registry\'s windows (client and inter-broker APIs), min 0 everywhere, no SaslHandshake', () => {
    const table = fullDispatcher().advertised().map((k) => `${k.apiKey}:${k.minVersion}-${k.maxVersion}`);
    expect(table).toEqual([
      '0:0-9', '1:0-12', '2:0-6', '3:0-11', '4:0-5', '5:0-3', '6:0-7', '7:0-3', '8:0-8', '9:0-7', '10:0-3', '11:0-7', '12:0-4',
      '13:0-4', '14:0-5', '15:0-5', '16:0-4', '18:0-3', '19:0-7', '20:0-6', '21:0-2', '22:0-4', '23:0-4', '24:0-3', '25:0-3', '26:0-3',
      '27:0-1', '28:0-3', '29:0-2', '30:0-2', '31:0-2', '32:0-4', '33:0-2', '34:0-2', '35:0-2', '37:0-3', '38:0-2', '39:0-2', '40:0-2',
      '41:0-2', '42:0-2', '43:0-2', '44:0-1', '45:0-0', '46:0-0', '47:0-0', '48:0-1', '49:0-1', '50:0-0', '51:0-0', '60:0-0', '61:0-0',
    ]);
  });

  it('advertises only the APIs a handler is installed for', () => {
    const d = new RequestDispatcher({ 3: () => ({ throttleTimeMs: 0, brokers: [], clusterId: null, controllerId: -1, topics: [] }) });
    expect(d.advertised().map((k) => k.apiKey)).toEqual([3, 18]);
  });

  it('answers librdkafka ApiVersions v3 (flexible request, response header v0, compact body)', () => {
    const d = new RequestDispatcher({ 3: () => ({ throttleTimeMs: 0, brokers: [], clusterId: null, controllerId: -1, topics: [] }) });
    const frame = Buffer.from('00120003000000010007' + Buffer.from('rdkafka').toString('hex') + '00' + '0b' + Buffer.from('librdkafka').toString('hex') + '06' + Buffer.from('2.0.2').toString('hex') + '00', 'hex');
    const c = ctx();
    // size, corr 1, error 0, compact array of 2 (+1), {3,0,11,tags}, {18,0,3,tags}, throttle 0, tags
    expect(hex(d.handle(frame, c))).toBe('0000001a' + '00000001' + '0000' + '03' + '00030000000b0' + '0' + '0012000000030' + '0' + '00000000' + '00');
    expect(c.clientSoftwareName).toBe('librdkafka');
  });

  it('answers an unsupported ApiVersions version with error 35 in the v0 shape', () => {
    const frame = Buffer.from('00120004000000020007' + Buffer.from('rdkafka').toString('hex') + '00' + '00', 'hex');
    expect(hex(fullDispatcher().handle(frame, ctx()))).toBe('00000010' + '00000002' + '0023' + '00000001' + '001200000003');
  });

  it.each([
    ['unknown API key', '03e7000000000001ffff'],
    ['unsupported Metadata version', '0003000c00000001ffff00'],
    ['truncated header', '000300'],
    ['truncated body', '0003000100000001ffff0000'],
    ['array count beyond the frame', '0003000100000001ffff7fffffff'],
    ['bad UTF-8 client id', '00030001000000010002c328ffffffff'],
  ])('closes the connection on %s', (_name, h) => {
    const o = fullDispatcher().handle(Buffer.from(h, 'hex'), ctx()) as DispatchOutcome;
    expect(o.kind).toBe('close');
  });

  it('sends nothing for NO_RESPONSE (Produce acks=0)', () => {
    const d = fullDispatcher({ 0: () => NO_RESPONSE });
    const frame = Buffer.from('0000000300000005ffff' + 'ffff' + '0000' + '000003e8' + '00000000', 'hex');
    expect((d.handle(frame, ctx()) as DispatchOutcome).kind).toBe('none');
  });
});

describe('RequestDispatcher decode bounds', () => {
  /** A request frame: header v1 (api, version, correlation 7, client id 'c') then `body`. */
  function frame(apiKey: number, version: number, body: Buffer): Buffer {
    const header = Buffer.alloc(2 + 2 + 4 + 2 + 1);
    header.writeInt16BE(apiKey, 0);
    header.writeInt16BE(version, 2);
    header.writeInt32BE(7, 4);
    header.writeInt16BE(1, 8);
    header.write('c', 10);
    return Buffer.concat([header, body]);
  }

  function metadataV1(topics: number): Buffer {
    const body = Buffer.alloc(4 + 2 * topics);
    body.writeInt32BE(topics, 0);
    return frame(ApiKey.METADATA, 1, body); // every name empty: 2 bytes a topic
  }

  function offsetCommitV2(partitions: number): Buffer {
    const head = Buffer.from('0001670000000100016d' + '0000000000000000' + '00000001' + '000174', 'hex');
    const parts = Buffer.alloc(4 + 14 * partitions);
    parts.writeInt32BE(partitions, 0);
    for (let i = 0; i < partitions; i++) {
      parts.writeInt32BE(i, 4 + 14 * i);
      parts.writeInt16BE(0, 4 + 14 * i + 12);
    }
    return frame(ApiKey.OFFSET_COMMIT, 2, Buffer.concat([head, parts]));
  }

  it('refuses a request that would decode into far more objects than its bytes justify, before the handler', () => {
    let called = false;
    const d = fullDispatcher({ [ApiKey.METADATA]: () => ((called = true), { throttleTimeMs: 0, brokers: [], clusterId: null, controllerId: -1, topics: [] }) });
    const outcome = d.handle(metadataV1(2_000_000), ctx()) as DispatchOutcome;
    expect(outcome.kind).toBe('close');
    expect(outcome.kind === 'close' && outcome.reason).toMatch(/more objects than its \d+ bytes allow/);
    expect(called).toBe(false);
  });

  it('takes legitimate many-element requests: 10,000 partitions in one OffsetCommit, 4,000 topics in a Metadata', () => {
    let partitions = 0;
    let topics = 0;
    const d = fullDispatcher({
      [ApiKey.OFFSET_COMMIT]: (req) => ((partitions = req.topics[0]?.partitions.length ?? 0), { throttleTimeMs: 0, topics: [] }),
      [ApiKey.METADATA]: (req) => ((topics = req.topics?.length ?? 0), { throttleTimeMs: 0, brokers: [], clusterId: null, controllerId: -1, topics: [] }),
    });
    expect((d.handle(offsetCommitV2(10_000), ctx()) as DispatchOutcome).kind).toBe('send');
    expect(partitions).toBe(10_000);
    expect((d.handle(metadataV1(4_000), ctx()) as DispatchOutcome).kind).toBe('send');
    expect(topics).toBe(4_000);
  });
});
