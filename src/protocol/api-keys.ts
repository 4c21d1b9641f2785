/** Kafka's API keys (clients/.../protocol/ApiKeys.java) for every API this broker speaks. */
export const ApiKey = {
  PRODUCE: 0,
  FETCH: 1,
  LIST_OFFSETS: 2,
  METADATA: 3,
  LEADER_AND_ISR: 4,
  STOP_REPLICA: 5,
  UPDATE_METADATA: 6,
  CONTROLLED_SHUTDOWN: 7,
  OFFSET_COMMIT: 8,
  OFFSET_FETCH: 9,
  FIND_COORDINATOR: 10,
  JOIN_GROUP: 11,
  HEARTBEAT: 12,
  LEAVE_GROUP: 13,
  SYNC_GROUP: 14,
  DESCRIBE_GROUPS: 15,
  LIST_GROUPS: 16,
  SASL_HANDSHAKE: 17,
  API_VERSIONS: 18,
  CREATE_TOPICS: 19,
  DELETE_TOPICS: 20,
  DELETE_RECORDS: 21,
  INIT_PRODUCER_ID: 22,
  OFFSET_FOR_LEADER_EPOCH: 23,
  DESCRIBE_CONFIGS: 32,
  ALTER_CONFIGS: 33,
  CREATE_PARTITIONS: 37,
  DELETE_GROUPS: 42,
} as const;

export type ApiKeyName = keyof typeof ApiKey;
export type ApiKeyNumber = (typeof ApiKey)[ApiKeyName];

const names = new Map<number, ApiKeyName>();
for (const name of Object.keys(ApiKey) as ApiKeyName[]) names.set(ApiKey[name], name);

/** Kafka's enum name for a key (as RequestHeader.toString prints it), or `UNKNOWN(<key>)`. */
export function apiKeyName(key: number): string {
  return names.get(key) ?? `UNKNOWN(${key})`;
}
