import { decodeJsonObject, encodeJson, intField, Json, ZnodeFormatError } from './znode-json';

/** `/config/<type>/<name>`: `{"version":1,"config":{"retention.ms":"86400000"}}`; values are strings. */
export const ConfigEntityZNode = {
  encode(config: ReadonlyMap<string, string> | Record<string, string>): Buffer {
    const entries = config instanceof Map ? [...config.entries()] : Object.entries(config);
    const obj: Record<string, string> = {};
    for (const [k, v] of entries) obj[k] = v;
    return encodeJson({ version: 1, config: obj });
  },
  decode(path: string, data: Buffer | null): Map<string, string> {
    if (data === null) return new Map();
    const o = decodeJsonObject(path, data);
    const config = o['config'];
    if (config === undefined || config === null) return new Map();
    if (typeof config !== 'object' || Array.isArray(config)) throw new ZnodeFormatError(path, 'field "config" is not an object');
    return new Map(Object.entries(config as Json).map(([k, v]) => [k, String(v)]));
  },
};

/**
 * `/config/changes/config_change_<seq>`: version 2 `{"version":2,"entity_path":"topics/orders"}`; version 1
 * `{"version":1,"entity_type":"topics","entity_name":"orders"}` is read too.
 */
export const ConfigChangeNotificationZNode = {
  encode(entityType: string, entityName: string): Buffer {
    return encodeJson({ version: 2, entity_path: `${entityType}/${entityName}` });
  },
  decode(path: string, data: Buffer | null): { entityType: string; entityName: string } {
    const o = decodeJsonObject(path, data);
    const version = intField(path, o, 'version');
    if (version === 1) return { entityType: String(o['entity_type']), entityName: String(o['entity_name']) };
    const entityPath = String(o['entity_path'] ?? '');
    const slash = entityPath.indexOf('/');
    if (slash <= 0) throw new ZnodeFormatError(path, `bad entity_path ${entityPath}`);
    return { entityType: entityPath.slice(0, slash), entityName: entityPath.slice(slash + 1) };
  },
};
