import { ConfigException } from './config-def';

/** One listener: `PLAINTEXT://host:9092`. An empty host means all interfaces when binding. */
export interface EndPoint {
  readonly listenerName: string;
  readonly host: string;
  readonly port: number;
  readonly securityProtocol: string;
}

const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

/** `listener.security.protocol.map`: `NAME:PROTOCOL,...`. */
export function parseSecurityProtocolMap(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const [name, protocol] = entry.split(':').map((s) => s.trim());
    if (!name || !protocol || !SECURITY_PROTOCOLS.includes(protocol.toUpperCase())) {
      throw new ConfigException(`Invalid value ${text} for configuration listener.security.protocol.map: Map entry '${entry}' is not a valid listener:protocol pair`);
    }
    map.set(name.toUpperCase(), protocol.toUpperCase());
  }
  return map;
}

/** Parses Kafka's listener syntax (`NAME://host:port,...`, IPv6 hosts in brackets), as EndPoint.createEndPoint. */
export function parseEndPoints(key: string, text: string, protocolMap: ReadonlyMap<string, string>): EndPoint[] {
  const endPoints: EndPoint[] = [];
  for (const item of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^([A-Za-z0-9_]+):\/\/(\[[0-9a-fA-F:.]+\]|[^:[\]]*):(-?\d+)$/.exec(item);
    if (!m || m[1] === undefined || m[2] === undefined || m[3] === undefined) {
      throw new ConfigException(`Invalid value ${text} for configuration ${key}: Unable to parse ${item} to a broker endpoint`);
    }
    const listenerName = m[1].toUpperCase();
    const port = Number(m[3]);
    if (port < 0 || port > 65535) throw new ConfigException(`Invalid value ${text} for configuration ${key}: port ${port} out of range`);
    const securityProtocol = protocolMap.get(listenerName);
    if (securityProtocol === undefined) {
      throw new ConfigException(`Invalid value ${text} for configuration ${key}: No security protocol defined for listener ${listenerName}`);
    }
    if (endPoints.some((e) => e.listenerName === listenerName)) {
      throw new ConfigException(`Invalid value ${text} for configuration ${key}: Each listener must have a different name`);
    }
    endPoints.push({ listenerName, host: m[2].replace(/^\[|\]$/g, ''), port, securityProtocol });
  }
  if (endPoints.length === 0) throw new ConfigException(`Invalid value ${text} for configuration ${key}: no listener defined`);
  return endPoints;
}
