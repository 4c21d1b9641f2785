#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { configureLogging } from '../src/common/logging/logging';
import { createCli, runCli } from '../src/tools/cli';
import { MIRROR_MAKER_LOG4J, MirrorMakerOptions, runMirrorMaker } from '../src/tools/mirror-maker';

configureLogging({ mode: 'tool', log4jProperties: MIRROR_MAKER_LOG4J });

const program = createCli('kafka-mirror-maker', 'Continuously copy data between two Kafka clusters.')
  .helpOption('--help', 'Print this message.')
  .option('--consumer.config <config file>', 'Embedded consumer config for consuming from the source cluster.')
  .option('--producer.config <config file>', 'Embedded producer config.')
  .option('--whitelist <Java regex (String)>', 'Whitelist of topics to mirror.')
  .option('--num.streams <Integer: Number of threads>', 'Number of consumption streams. (default: 1)')
  .option('--offset.commit.interval.ms <Integer: offset commit interval in millisecond>', 'Offset commit interval in ms. (default: 60000)')
  .option('--abort.on.send.failure <Stop the entire mirror maker when a send failure occurs>', 'Configure the mirror maker to exit on a failed send. (default: true)')
  .option('--consumer.rebalance.listener <A custom rebalance listener of type ConsumerRebalanceListener>', 'The consumer rebalance listener to use for mirror maker consumer.')
  .option('--rebalance.listener.args <Arguments passed to custom rebalance listener constructor as a string.>', 'Arguments used by custom rebalance listener for mirror maker consumer.')
  .option('--message.handler <A custom message handler of type MirrorMakerMessageHandler>', 'Message handler which will process every record in-between consumer and producer.')
  .option('--message.handler.args <Arguments passed to message handler constructor.>', 'Arguments used by custom message handler for mirror maker.')
  .option('--new.consumer', 'DEPRECATED Use new consumer in mirror maker (this is the default so this option will be removed in a future version).');

// Kafka's printUsageAndDie: no arguments prints the description and usage, exit 1.
if (process.argv.length <= 2) {
  process.stderr.write('Continuously copy data between two Kafka clusters.\n');
  program.outputHelp({ error: true });
  process.exit(1);
}

// Kafka's MirrorMakerShutdownHook: SIGTERM/SIGINT stop the streams, which flush, commit and close.
const stop: { stopped: boolean } = { stopped: false };
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (stop.stopped = true));

void runCli(program, (p) => {
  const o = p.opts<Record<string, string | undefined>>();
  const options: MirrorMakerOptions = {
    consumerConfig: o['consumer.config'],
    producerConfig: o['producer.config'],
    whitelist: o['whitelist'],
    numStreams: o['num.streams'],
    offsetCommitIntervalMs: o['offset.commit.interval.ms'],
    abortOnSendFailure: o['abort.on.send.failure'],
    consumerRebalanceListener: o['consumer.rebalance.listener'],
    rebalanceListenerArgs: o['rebalance.listener.args'],
    messageHandler: o['message.handler'],
    messageHandlerArgs: o['message.handler.args'],
  };
  return runMirrorMaker(options, stop, (line) => process.stderr.write(`${line}\n`));
});
