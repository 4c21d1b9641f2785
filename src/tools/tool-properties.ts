import { CliError } from './cli';

/** `--property k=v` / `--producer-property k=v` pairs, as Kafka's CommandLineUtils.parseKeyValueArgs reads them. */
export function parseKeyValueArgs(pairs: readonly string[], option: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`Invalid ${option} '${pair}': expected key=value`);
    props.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
  }
  return props;
}

/** Kafka's bootstrap lists are `host:port[,host:port]`. */
export function parseBrokerList(text: string, option: string): string[] {
  const list = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (list.length === 0 || list.some((hp) => !/^(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5}$/.test(hp))) {
    throw new CliError(`Invalid ${option} ${text}: expected host:port[,host:port...]`);
  }
  return list;
}

/** Property values that must be whole numbers, with a one-line complaint naming the option. */
export function intOption(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim())) throw new CliError(`Invalid value ${value} for ${option}: not an integer`);
  return Number(value);
}
