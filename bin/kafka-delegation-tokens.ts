#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { DelegationTokenOptions, runDelegationTokenCommand } from '../src/tools/delegation-token-command';

/** joptsimple's repeatable option: every occurrence's value, in order. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

const program = createCli('kafka-delegation-tokens', 'This tool helps to create, renew, expire, or describe delegation tokens.')
  .option('--bootstrap-server <String>', 'REQUIRED: server(s) to use for bootstrapping.')
  .option(
    '--command-config <String>',
    'REQUIRED: A property file containing configs to be passed to Admin Client. Token management operations are allowed in secure mode only. This config file is used to pass security related configs.',
  )
  .option('--create', 'Create a new delegation token. Use --renewer-principal option to pass renewers principals.')
  .option('--renew', 'Renew delegation token. Use --renew-time-period option to set renew time period.')
  .option('--expire', 'Expire delegation token. Use --expiry-time-period option to expire the token.')
  .option(
    '--describe',
    'Describe delegation tokens for the given principals. Use --owner-principal to pass owner/renewer principals. If --owner-principal option is not supplied, all the user owned tokens and tokens where user have Describe permission will be returned.',
  )
  .option('--owner-principal [String]', 'owner is a kafka principal. It is should be in principalType:name format.', collect)
  .option('--renewer-principal [String]', 'renewer is a kafka principal. It is should be in principalType:name format.', collect)
  .option('--max-life-time-period [Long]', 'Max life period for the token in milliseconds. If the value is -1, then token max life time will default to a server side config value (delegation.token.max.lifetime.ms).')
  .option('--renew-time-period [Long]', 'Renew time period in milliseconds. If the value is -1, then the renew time period will default to a server side config value (delegation.token.expiry.time.ms).')
  .option('--expiry-time-period [Long]', 'Expiry time period in milliseconds. If the value is -1, then the token will get invalidated immediately.')
  .option('--hmac [String]', 'HMAC of the delegation token');

// Kafka's CommandLineUtils.printHelpAndExitIfNeeded: no arguments at all prints the usage and exits 1.
if (process.argv.length <= 2) {
  program.outputHelp({ error: true });
  process.exit(1);
}

void runCli(program, (p) => runDelegationTokenCommand(p.opts<DelegationTokenOptions>(), (text) => process.stdout.write(text)));
