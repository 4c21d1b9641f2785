/**
 * Kafka 2.8's API keys by their enum names (clients/.../protocol/ApiKeys.java). Every place that means an API by
 * its key says it through this table; `Apis` in `apis/index.ts` maps the ones this broker decodes to their
 * definitions.
 */
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
  ADD_PARTITIONS_TO_TXN: 24,
  ADD_OFFSETS_TO_TXN: 25,
  END_TXN: 26,
  WRITE_TXN_MARKERS: 27,
  TXN_OFFSET_COMMIT: 28,
  DESCRIBE_ACLS: 29,
  CREATE_ACLS: 30,
  DELETE_ACLS: 31,
  DESCRIBE_CONFIGS: 32,
  ALTER_CONFIGS: 33,
  ALTER_REPLICA_LOG_DIRS: 34,
  DESCRIBE_LOG_DIRS: 35,
  SASL_AUTHENTICATE: 36,
  CREATE_PARTITIONS: 37,
  CREATE_DELEGATION_TOKEN: 38,
  RENEW_DELEGATION_TOKEN: 39,
  EXPIRE_DELEGATION_TOKEN: 40,
  DESCRIBE_DELEGATION_TOKEN: 41,
  DELETE_GROUPS: 42,
  ELECT_LEADERS: 43,
  INCREMENTAL_ALTER_CONFIGS: 44,
  ALTER_PARTITION_REASSIGNMENTS: 45,
  LIST_PARTITION_REASSIGNMENTS: 46,
  OFFSET_DELETE: 47,
  DESCRIBE_CLIENT_QUOTAS: 48,
  ALTER_CLIENT_QUOTAS: 49,
  DESCRIBE_USER_SCRAM_CREDENTIALS: 50,
  ALTER_USER_SCRAM_CREDENTIALS: 51,
  VOTE: 52,
  BEGIN_QUORUM_EPOCH: 53,
  END_QUORUM_EPOCH: 54,
  DESCRIBE_QUORUM: 55,
  ALTER_ISR: 56,
  UPDATE_FEATURES: 57,
  ENVELOPE: 58,
  FETCH_SNAPSHOT: 59,
  DESCRIBE_CLUSTER: 60,
  DESCRIBE_PRODUCERS: 61,
} as const;

export type ApiKeyName = keyof typeof ApiKey;

const names = new Map<number, ApiKeyName>();
for (const name of Object.keys(ApiKey) as ApiKeyName[]) names.set(ApiKey[name], name);

/** Kafka's enum name for a key (as RequestHeader.toString prints it), or `UNKNOWN(<key>)`. */
export function apiKeyName(key: number): string {
  return names.get(key) ?? `UNKNOWN(${key})`;
}
