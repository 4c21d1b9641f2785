/** Kafka's topic-name rules (org.apache.kafka.common.internals.Topic) and its internal topics. */
export const MAX_TOPIC_NAME_LENGTH = 249;
export const GROUP_METADATA_TOPIC_NAME = '__consumer_offsets';
export const TRANSACTION_STATE_TOPIC_NAME = '__transaction_state';
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set([GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME]);

/** The reason a name is illegal, in Kafka's words, or undefined for a legal name. */
export function topicNameError(topic: string): string | undefined {
  if (topic.length === 0) return 'Topic name is illegal, it can\'t be empty';
  if (topic === '.' || topic === '..') return 'Topic name cannot be "." or ".."';
  if (topic.length > MAX_TOPIC_NAME_LENGTH) {
    return `Topic name is illegal, it can't be longer than ${MAX_TOPIC_NAME_LENGTH} characters, topic name: ${topic}`;
  }
  if (!/^[a-zA-Z0-9._-]+$/.test(topic)) {
    return `Topic name "${topic}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return undefined;
}

/** Metric names turn '.' into '_': two topics differing only there collide. */
export function hasCollisionChars(topic: string): boolean {
  return topic.includes('.') || topic.includes('_');
}

export function unifyCollisionChars(topic: string): string {
  return topic.replace(/\./g, '_');
}

export function isInternalTopic(topic: string): boolean {
  return INTERNAL_TOPICS.has(topic);
}
