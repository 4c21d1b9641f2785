import { Producer, ProducerConfigError, ProducerOptions } from '../client/producer';
import { CliError } from './cli';

/**
 * The tools' producer: a setting the producer refuses (enable.idempotence with acks=1, say) ends the tool as
 * Kafka's does, with the ConfigException line and exit status 1.
 */
export function newProducer(options: ProducerOptions): Producer {
  try {
    return new Producer(options);
  } catch (err) {
    if (err instanceof ProducerConfigError) throw new CliError(`Exception in thread "main" org.apache.kafka.common.config.ConfigException: ${err.message}`);
    throw err;
  }
}
