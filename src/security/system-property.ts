/**
 * A Java system property as Kafka's scripts set them: `-D<name>=<value>` in KAFKA_OPTS, which kafka-run-class.sh
 * passes to the JVM (value in double or single quotes, or up to the next blank). The last one wins, as on a java
 * command line. Undefined when KAFKA_OPTS does not set it.
 */
export function systemProperty(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const opts = env['KAFKA_OPTS'];
  if (opts === undefined) return undefined;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let value: string | undefined;
  for (const m of opts.matchAll(new RegExp(`(?:^|\\s)-D${escaped}=("([^"]*)"|'([^']*)'|(\\S*))`, 'g'))) value = m[2] ?? m[3] ?? m[4];
  return value;
}
