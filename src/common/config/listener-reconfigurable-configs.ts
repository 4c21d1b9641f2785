/**
 * The `listener.name.<l>.` keys a broker changes in place on a listener it keeps, shared by the dynamic broker
 * config's key checks and by the listener reconfiguration (dynamic-listener-config.ts).
 */

/**
 * The SSL keys a broker reloads at run time (a keystore or truststore swapped for another file, or its
 * password): for one listener as `listener.name.<l>.<key>`, or for every TLS listener without its own. The
 * passwords are stored in ZooKeeper encoded with password.encoder.secret (PasswordEncoder), as Kafka stores them.
 */
export const RELOADABLE_SSL_CONFIGS: ReadonlySet<string> = new Set([
  'ssl.keystore.location', 'ssl.keystore.type', 'ssl.truststore.location', 'ssl.truststore.type', 'ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.password',
]);
/** The connection limits a listener may have of its own (`listener.name.<l>.<key>`, ListenerConnectionQuota). */
export const LISTENER_CONNECTION_QUOTA_CONFIGS: ReadonlySet<string> = new Set(['max.connections', 'max.connection.creation.rate']);

/** A listener's SASL keys a broker applies at run time: its mechanisms and each mechanism's JAAS entry. */
export function isDynamicListenerSaslKey(key: string): boolean {
  return key === 'sasl.enabled.mechanisms' || /^[a-z0-9-]+\.sasl\.jaas\.config$/.test(key);
}

/** `listener.name.<listener>.<key>` split into the listener (lower case, as written) and the key. */
export function listenerPrefixedKey(name: string): { listener: string; key: string } | undefined {
  const m = /^listener\.name\.([^.]+)\.(.+)$/.exec(name);
  return m === null ? undefined : { listener: m[1] as string, key: m[2] as string };
}
