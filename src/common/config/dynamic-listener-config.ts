import { ConfigException } from './config-def';
import { EndPoint, parseSecurityProtocolMap } from './end-point';
import { KafkaConfig } from './kafka-config';
import { isDynamicListenerSaslKey, LISTENER_CONNECTION_QUOTA_CONFIGS, RELOADABLE_SSL_CONFIGS } from './listener-reconfigurable-configs';

/** The listener keys whose change makes DynamicListenerConfig validate and reconfigure. */
const LISTENER_KEYS = ['listeners', 'advertised.listeners', 'listener.security.protocol.map'] as const;

/**
 * A listener's keys that a broker changes in place on a listener it keeps: the key material
 * (DynamicSecurityConfigs, as this broker reloads it), the connection limits (SocketServer's
 * ListenerReconfigurableConfigs) and the SASL mechanisms and JAAS entries. Any other `listener.name.<l>.` key
 * is read when the listener is created, so it may only come with a new listener.
 */
function reconfigurableInPlace(key: string): boolean {
  return RELOADABLE_SSL_CONFIGS.has(key) || LISTENER_CONNECTION_QUOTA_CONFIGS.has(key) || isDynamicListenerSaslKey(key);
}

/** Whether a change between two configs touches the listeners (their list, map or a prefixed key). */
export function listenersChanged(current: KafkaConfig, next: KafkaConfig): boolean {
  if (LISTENER_KEYS.some((k) => current.originals.get(k) !== next.originals.get(k))) return true;
  const prefixed = (c: KafkaConfig): string => JSON.stringify([...c.originals].filter(([k]) => k.startsWith('listener.name.')).sort());
  return prefixed(current) !== prefixed(next);
}

/**
 * DynamicListenerConfig.validateReconfiguration (Kafka 2.8), its messages: advertised listeners a subset of the
 * listeners, the listeners a subset of the protocol map, an existing listener keeps its security protocol and
 * its create-time settings, and the inter-broker listener stays advertised. Kafka 2.7/2.8 compare the new
 * config's listener settings with themselves (immutableListenerConfigs reads newConfig for both sides, fixed in
 * later Kafka), so there that check never fires; here it compares the old and the new, as later Kafka does,
 * because an accepted change this broker would not apply must not be stored as if it were.
 */
export function validateListenerReconfiguration(current: KafkaConfig, next: KafkaConfig): void {
  const newListeners = byName(next.listeners);
  const newAdvertised = byName(next.advertisedListeners);
  const oldListeners = byName(current.listeners);
  const newMap = parseSecurityProtocolMap(next.get('listener.security.protocol.map'));
  const oldMap = parseSecurityProtocolMap(current.get('listener.security.protocol.map'));
  if (![...newAdvertised.keys()].every((n) => newListeners.has(n))) {
    throw new ConfigException(`Advertised listeners '${endPointMap(newAdvertised)}' must be a subset of listeners '${endPointMap(newListeners)}'`);
  }
  if (![...newListeners.keys()].every((n) => newMap.has(n))) {
    throw new ConfigException(`Listeners '${endPointMap(newListeners)}' must be subset of listener map '${protocolMap(newMap)}'`);
  }
  for (const name of [...newListeners.keys()].filter((n) => oldListeners.has(n))) {
    if (immutableListenerConfigs(next, name) !== immutableListenerConfigs(current, name)) {
      throw new ConfigException(`Configs cannot be updated dynamically for existing listener ListenerName(${name}), restart broker or create a new listener for update`);
    }
    if (oldMap.get(name) !== newMap.get(name)) throw new ConfigException(`Security protocol cannot be updated for existing listener ListenerName(${name})`);
  }
  if (!newAdvertised.has(next.interBrokerListenerName)) {
    throw new ConfigException(`Advertised listener must be specified for inter-broker listener ListenerName(${next.interBrokerListenerName})`);
  }
}

/** The listeners a change adds and removes, by listener name (as DynamicListenerConfig.reconfigure finds them). */
export function listenerChanges(current: KafkaConfig, next: KafkaConfig): { added: EndPoint[]; removed: EndPoint[] } {
  const oldNames = new Set(current.listeners.map((l) => l.listenerName));
  const newNames = new Set(next.listeners.map((l) => l.listenerName));
  return { added: next.listeners.filter((l) => !oldNames.has(l.listenerName)), removed: current.listeners.filter((l) => !newNames.has(l.listenerName)) };
}

/** Whether the advertised endpoints differ (DynamicListenerConfig.listenerRegistrationsAltered). */
export function listenerRegistrationsAltered(current: KafkaConfig, next: KafkaConfig): boolean {
  const key = (c: KafkaConfig): string => JSON.stringify(c.advertisedListeners.map((e) => [e.listenerName, e.host, e.port, e.securityProtocol]).sort());
  return key(current) !== key(next);
}

function byName(endPoints: readonly EndPoint[]): Map<string, EndPoint> {
  return new Map(endPoints.map((e) => [e.listenerName, e]));
}

/** A listener's `listener.name.<l>.` keys fixed at its creation, as one comparable text. */
function immutableListenerConfigs(config: KafkaConfig, listenerName: string): string {
  const prefix = config.listenerConfig(listenerName).prefix;
  const entries = [...config.originals].filter(([k]) => k.startsWith(prefix) && !reconfigurableInPlace(k.slice(prefix.length)));
  return JSON.stringify(entries.sort());
}

/** Scala's Map.toString (Map up to 4 entries, HashMap beyond), as Kafka's messages print these maps. */
function scalaMap(entries: string[]): string {
  return `${entries.length <= 4 ? 'Map' : 'HashMap'}(${entries.join(', ')})`;
}

/** Map[ListenerName, EndPoint] as Kafka prints it (EndPoint is a case class; an empty host is null). */
function endPointMap(endPoints: ReadonlyMap<string, EndPoint>): string {
  return scalaMap([...endPoints].map(([n, e]) => `ListenerName(${n}) -> EndPoint(${e.host === '' ? 'null' : e.host},${e.port},ListenerName(${n}),${e.securityProtocol})`));
}

function protocolMap(map: ReadonlyMap<string, string>): string {
  return scalaMap([...map].map(([n, p]) => `ListenerName(${n}) -> ${p}`));
}
