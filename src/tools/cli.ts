import { Command, CommanderError } from 'commander';

/**
 * Every bin/ tool is a commander program built here, so that they all behave alike: `--help` prints usage and
 * exits 0; an unknown option, a missing argument or a bad value prints one line on stderr and exits 1.
 */
export function createCli(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .helpOption('-h, --help', 'Print usage information.')
    .allowExcessArguments(false)
    .showSuggestionAfterError(false)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`) });
}

/** A user-facing failure: printed as one line, exit code 1, no stack trace. */
export class CliError extends Error {}

/**
 * Parses argv and runs the tool. Commander's own errors are already printed (one line); CliError messages are
 * printed here; anything else is a bug and is printed with its stack. The exit code is the tool's, 1 on error.
 */
export async function runCli(program: Command, main: (program: Command) => Promise<number | void>): Promise<never> {
  let code = 0;
  try {
    program.parse(process.argv);
    code = (await main(program)) ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      code = err.exitCode;
    } else if (err instanceof CliError) {
      process.stderr.write(`${err.message}\n`);
      code = 1;
    } else {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      code = 1;
    }
  }
  process.exit(code);
}
