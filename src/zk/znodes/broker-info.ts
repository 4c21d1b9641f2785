import { decodeJsonObject, encodeJson, intField, Json, stringField, timestampField, ZnodeFormatError } from './znode-json';

/**
 * `/brokers/ids/<id>` (ephemeral). Kafka 2.7+ writes version 5:
 * `{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://h:9092"],
 *   "jmx_port":-1,"port":9092,"host":"h","version":5,"timestamp":"1647406227247"}`; `rack` only when set.
 * host/port are those of the first PLAINTEXT endpoint (null/-1 if none). Versions 1-5 are read.
 */
export interface BrokerInfo {
  id: number;
  endpoints: { listenerName: string; host: string; port: number }[];
  listenerSecurityProtocolMap: Record<string, string>;
  jmxPort: number;
  timestamp: number;
  rack: string | null;
  version: number;
}

export const BrokerInfoZNode = {
  encode(b: BrokerInfo): Buffer {
    const plaintext = b.endpoints.find((e) => b.listenerSecurityProtocolMap[e.listenerName] === 'PLAINTEXT');
    const json: Json = {
      features: {},
      listener_security_protocol_map: b.listenerSecurityProtocolMap,
      endpoints: b.endpoints.map((e) => `${e.listenerName}://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`),
      jmx_port: b.jmxPort,
      port: plaintext?.port ?? -1,
      host: plaintext?.host ?? null,
      version: 5,
      timestamp: String(b.timestamp),
    };
    if (b.rack !== null) json['rack'] = b.rack;
    return encodeJson(json);
  },

  decode(id: number, path: string, data: Buffer | null): BrokerInfo {
    const o = decodeJsonObject(path, data);
    const version = intField(path, o, 'version');
    let endpoints: BrokerInfo['endpoints'];
    let protocolMap: Record<string, string> = {};
    if (version < 1) throw new ZnodeFormatError(path, `unsupported version of broker registration: ${version}`);
    if (version === 1) {
      const port = intField(path, o, 'port');
      if (port < 0 || port > 65535) throw new ZnodeFormatError(path, `bad port ${port}`);
      endpoints = [{ listenerName: 'PLAINTEXT', host: stringField(path, o, 'host'), port }];
      protocolMap = { PLAINTEXT: 'PLAINTEXT' };
    } else {
      const raw = o['endpoints'];
      if (!Array.isArray(raw)) throw new ZnodeFormatError(path, 'field "endpoints" is not a list');
      endpoints = raw.map((e) => {
        const m = typeof e === 'string' ? /^([A-Za-z0-9_]+):\/\/(\[[^\]]+\]|[^:]*):(\d{1,5})$/.exec(e) : null;
        if (!m || m[1] === undefined || m[2] === undefined || m[3] === undefined || Number(m[3]) > 65535) {
          throw new ZnodeFormatError(path, `bad endpoint ${JSON.stringify(e)}`);
        }
        return { listenerName: m[1], host: m[2].replace(/^\[|\]$/g, ''), port: Number(m[3]) };
      });
      const map = o['listener_security_protocol_map'];
      if (map !== undefined && map !== null) {
        if (typeof map !== 'object' || Array.isArray(map) || !Object.values(map).every((v) => typeof v === 'string')) {
          throw new ZnodeFormatError(path, 'field "listener_security_protocol_map" is not a map of strings');
        }
        protocolMap = map as Record<string, string>;
      } else {
        for (const e of endpoints) protocolMap[e.listenerName] = e.listenerName;
      }
    }
    const rack = typeof o['rack'] === 'string' ? o['rack'] : null;
    const jmx = typeof o['jmx_port'] === 'number' ? o['jmx_port'] : -1;
    return { id, endpoints, listenerSecurityProtocolMap: protocolMap, jmxPort: jmx, timestamp: timestampField(path, o, 'timestamp'), rack, version };
  },
};
