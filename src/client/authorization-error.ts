import { ErrorCode } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';

/**
 * A response's error code as Kafka's consumer raises it, naming what was refused: TOPIC_AUTHORIZATION_FAILED
 * is `new TopicAuthorizationException(Set<String>)`, "Not authorized to access topics: [t1, t2]" (the Fetcher,
 * the metadata of subscribed topics, ListOffsets), GROUP_AUTHORIZATION_FAILED is
 * `GroupAuthorizationException.forGroupId`, "Not authorized to access group: g" (FindCoordinator, JoinGroup,
 * OffsetFetch). Any other code carries its default message.
 */
export function authorizationError(errorCode: number, refused: { topics?: readonly string[]; group?: string }): KafkaError {
  if (errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code && refused.topics !== undefined) {
    return new KafkaError('TOPIC_AUTHORIZATION_FAILED', `Not authorized to access topics: [${refused.topics.join(', ')}]`);
  }
  if (errorCode === ErrorCode.GROUP_AUTHORIZATION_FAILED.code && refused.group !== undefined) {
    return new KafkaError('GROUP_AUTHORIZATION_FAILED', `Not authorized to access group: ${refused.group}`);
  }
  return KafkaError.fromCode(errorCode);
}
