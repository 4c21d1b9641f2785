import { decodeJsonObject, encodeJson, intField, Json, ZnodeFormatError } from './znode-json';

/**
 * `/config/<type>/<name>`: `{"version":1,"config":{"retention.ms":"86400000"}}`; values are strings. An empty
 * node or one without `config` holds no overrides; anything else that is not this shape throws (callers log
 * the path and read no overrides, as Kafka's ConfigEntityZNode.decode yields empty Properties for unparsable data).
 */
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
    const result = new Map<string, string>();
    for (const [k, v] of Object.entries(config as Json)) {
      if (typeof v !== 'string') throw new ZnodeFormatError(path, `config value of ${k} is not a string`);
      result.set(k, v);
    }
    return result;
  },
};

/**
 * `/config/changes/config_change_<seq>`: version 2 `{"version":2,"entity_path":"topics/orders"}`; version 1
 * `{"version":1,"entity_type":"topics","entity_name":"orders"}` is read too. Other shapes throw with Kafka's
 * ConfigChangedNotificationHandler messages.
 */
export const ConfigChangeNotificationZNode = {
  encode(entityType: string, entityName: string): Buffer {
    return encodeJson({ version: 2, entity_path: `${entityType}/${entityName}` });
  },
  decode(path: string, data: Buffer | null): { entityType: string; entityName: string } {
    const o = decodeJsonObject(path, data);
    const version = intField(path, o, 'version');
    if (version === 1) {
      const entityType = o['entity_type'];
      const entityName = o['entity_name'];
      if (typeof entityType !== 'string' || typeof entityName !== 'string') {
        throw new ZnodeFormatError(path, 'Version 1 config change notification must have entity_type and entity_name');
      }
      return { entityType, entityName };
    }
    if (version !== 2) throw new ZnodeFormatError(path, `Config change notification has unsupported version '${version}', supported versions are 1 and 2.`);
    const entityPath = o['entity_path'];
    const slash = typeof entityPath === 'string' ? entityPath.indexOf('/') : -1;
    if (typeof entityPath !== 'string' || slash <= 0 || slash === entityPath.length - 1) {
      throw new ZnodeFormatError(path, `Invalid entity_path ${JSON.stringify(entityPath)} in config change notification`);
    }
    return { entityType: entityPath.slice(0, slash), entityName: entityPath.slice(slash + 1) };
  },
};
