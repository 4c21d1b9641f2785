import * as fs from 'node:fs';
import { parseProperties } from '../common/config/properties';
import { CliError } from './cli';

/**
 * Reads a properties file and applies `--override key=value` pairs on top, as kafka.Kafka's getPropsFromArgs.
 */
export function loadServerProperties(file: string, overrides: readonly string[]): Map<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read properties file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const props = parseProperties(text);
  for (const o of overrides) {
    const eq = o.indexOf('=');
    if (eq <= 0) throw new CliError(`Invalid override '${o}': expected property=value`);
    props.set(o.slice(0, eq).trim(), o.slice(eq + 1).trim());
  }
  return props;
}

/** Kafka's scripts take `-daemon` as a single-dash word; commander cannot, so it is taken out first. */
export function takeDaemonFlag(argv: string[]): { argv: string[]; daemon: boolean } {
  const i = argv.indexOf('-daemon');
  if (i < 0) return { argv, daemon: false };
  return { argv: [...argv.slice(0, i), ...argv.slice(i + 1)], daemon: true };
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
