import * as fs from 'node:fs';
import { parseProperties } from '../common/config/properties';
import { CliError } from './cli';

/**
 * The argument handling of Kafka's argparse4j tools (VerifiableProducer, VerifiableConsumer), for one program
 * name: its one-line complaints (`<prog>: error: ...`; the usage argparse4j prints before them is left out),
 * its Integer and Long conversions, and the properties file such a tool reads with its own error text.
 */
export class Argparse4j {
  constructor(private readonly prog: string) {}

  error(message: string): CliError {
    return new CliError(`${this.prog}: error: ${message}`);
  }

  /** argparse4j's Integer (or Long) conversion: a whole number within Java's range of that type. */
  int(value: string | undefined, option: string, fallback: number, type: 'Integer' | 'Long' = 'Integer'): number {
    if (value === undefined) return fallback;
    const limit = type === 'Integer' ? 2 ** 31 : 2 ** 63;
    if (!/^[-+]?\d+$/.test(value) || Number(value) >= limit || Number(value) < -limit) {
      throw this.error(`argument ${option}: could not convert '${value}' to ${type} (For input string: "${value}")`);
    }
    return Number(value);
  }

  /** A --producer.config / --consumer.config file (Utils.loadProps), or none. */
  propertiesFile(file: string | undefined): Map<string, string> {
    const props = new Map<string, string>();
    if (file === undefined) return props;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw this.error(`${file} (${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : String(err)})`);
    }
    for (const [k, v] of parseProperties(text)) props.set(k, v);
    return props;
  }
}
