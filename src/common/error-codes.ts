/**
 * Kafka's protocol error codes (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java, 2.8).
 * Shared by every layer: the log raises CORRUPT_MESSAGE, the broker answers with it, the client reads it.
 */
interface ErrorDef {
  readonly code: number;
  readonly retriable: boolean;
  readonly message: string;
}

function def(code: number, retriable: boolean, message: string): ErrorDef {
  return { code, retriable, message };
}

export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: def(-1, false, 'The server experienced an unexpected error when processing the request.'),
  NONE: def(0, false, ''),
  OFFSET_OUT_OF_RANGE: def(1, false, 'The requested offset is not within the range of offsets maintained by the server.'),
  CORRUPT_MESSAGE: def(2, true, 'This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.'),
  UNKNOWN_TOPIC_OR_PARTITION: def(3, true, 'This server does not host this topic-partition.'),
  INVALID_FETCH_SIZE: def(4, false, 'The requested fetch size is invalid.'),
  LEADER_NOT_AVAILABLE: def(5, true, 'There is no leader for this topic-partition as we are in the middle of a leadership election.'),
  NOT_LEADER_OR_FOLLOWER: def(6, true, 'For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.'),
  REQUEST_TIMED_OUT: def(7, true, 'The request timed out.'),
  BROKER_NOT_AVAILABLE: def(8, false, 'The broker is not available.'),
  REPLICA_NOT_AVAILABLE: def(9, true, 'The replica is not available for the requested topic-partition.'),
  MESSAGE_TOO_LARGE: def(10, false, 'The request included a message larger than the max message size the server will accept.'),
  STALE_CONTROLLER_EPOCH: def(11, false, 'The controller moved to another broker.'),
  OFFSET_METADATA_TOO_LARGE: def(12, false, 'The metadata field of the offset request was too large.'),
  NETWORK_EXCEPTION: def(13, true, 'The server disconnected before a response was received.'),
  COORDINATOR_LOAD_IN_PROGRESS: def(14, true, 'The coordinator is loading and hence can\'t process requests.'),
  COORDINATOR_NOT_AVAILABLE: def(15, true, 'The coordinator is not available.'),
  NOT_COORDINATOR: def(16, true, 'This is not the correct coordinator.'),
  INVALID_TOPIC_EXCEPTION: def(17, false, 'The request attempted to perform an operation on an invalid topic.'),
  RECORD_LIST_TOO_LARGE: def(18, false, 'The request included message batch larger than the configured segment size on the server.'),
  NOT_ENOUGH_REPLICAS: def(19, true, 'Messages are rejected since there are fewer in-sync replicas than required.'),
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: def(20, true, 'Messages are written to the log, but to fewer in-sync replicas than required.'),
  INVALID_REQUIRED_ACKS: def(21, false, 'Produce request specified an invalid value for required acks.'),
  ILLEGAL_GENERATION: def(22, false, 'Specified group generation id is not valid.'),
  INCONSISTENT_GROUP_PROTOCOL: def(23, false, 'The group member\'s supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.'),
  INVALID_GROUP_ID: def(24, false, 'The configured groupId is invalid.'),
  UNKNOWN_MEMBER_ID: def(25, false, 'The coordinator is not aware of this member.'),
  INVALID_SESSION_TIMEOUT: def(26, false, 'The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).'),
  REBALANCE_IN_PROGRESS: def(27, false, 'The group is rebalancing, so a rejoin is needed.'),
  INVALID_COMMIT_OFFSET_SIZE: def(28, false, 'The committing offset data size is not valid.'),
  TOPIC_AUTHORIZATION_FAILED: def(29, false, 'Topic authorization failed.'),
  GROUP_AUTHORIZATION_FAILED: def(30, false, 'Group authorization failed.'),
  CLUSTER_AUTHORIZATION_FAILED: def(31, false, 'Cluster authorization failed.'),
  INVALID_TIMESTAMP: def(32, false, 'The timestamp of the message is out of acceptable range.'),
  UNSUPPORTED_SASL_MECHANISM: def(33, false, 'The broker does not support the requested SASL mechanism.'),
  ILLEGAL_SASL_STATE: def(34, false, 'Request is not valid given the current SASL state.'),
  UNSUPPORTED_VERSION: def(35, false, 'The version of API is not supported.'),
  TOPIC_ALREADY_EXISTS: def(36, false, 'Topic with this name already exists.'),
  INVALID_PARTITIONS: def(37, false, 'Number of partitions is below 1.'),
  INVALID_REPLICATION_FACTOR: def(38, false, 'Replication factor is below 1 or larger than the number of available brokers.'),
  INVALID_REPLICA_ASSIGNMENT: def(39, false, 'Replica assignment is invalid.'),
  INVALID_CONFIG: def(40, false, 'Configuration is invalid.'),
  NOT_CONTROLLER: def(41, true, 'This is not the correct controller for this cluster.'),
  INVALID_REQUEST: def(42, false, 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.'),
  UNSUPPORTED_FOR_MESSAGE_FORMAT: def(43, false, 'The message format version on the broker does not support the request.'),
  POLICY_VIOLATION: def(44, false, 'Request parameters do not satisfy the configured policy.'),
  OUT_OF_ORDER_SEQUENCE_NUMBER: def(45, false, 'The broker received an out of order sequence number.'),
  DUPLICATE_SEQUENCE_NUMBER: def(46, false, 'The broker received a duplicate sequence number.'),
  INVALID_PRODUCER_EPOCH: def(47, false, 'Producer attempted to produce with an old epoch.'),
  INVALID_TXN_STATE: def(48, false, 'The producer attempted a transactional operation in an invalid state.'),
  INVALID_PRODUCER_ID_MAPPING: def(49, false, 'The producer attempted to use a producer id which is not currently assigned to its transactional id.'),
  INVALID_TRANSACTION_TIMEOUT: def(50, false, 'The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms).'),
  CONCURRENT_TRANSACTIONS: def(51, true, 'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.'),
  TRANSACTION_COORDINATOR_FENCED: def(52, false, 'Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer.'),
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: def(53, false, 'Transactional Id authorization failed.'),
  SECURITY_DISABLED: def(54, false, 'Security features are disabled.'),
  OPERATION_NOT_ATTEMPTED: def(55, false, 'The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest.'),
  KAFKA_STORAGE_ERROR: def(56, true, 'Disk error when trying to access log file on the disk.'),
  LOG_DIR_NOT_FOUND: def(57, false, 'The user-specified log directory is not found in the broker config.'),
  SASL_AUTHENTICATION_FAILED: def(58, false, 'SASL Authentication failed.'),
  UNKNOWN_PRODUCER_ID: def(59, false, 'This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question.'),
  REASSIGNMENT_IN_PROGRESS: def(60, false, 'A partition reassignment is in progress.'),
  DELEGATION_TOKEN_AUTH_DISABLED: def(61, false, 'Delegation Token feature is not enabled.'),
  DELEGATION_TOKEN_NOT_FOUND: def(62, false, 'Delegation Token is not found on server.'),
  DELEGATION_TOKEN_OWNER_MISMATCH: def(63, false, 'Specified Principal is not valid Owner/Renewer.'),
  DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: def(64, false, 'Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.'),
  DELEGATION_TOKEN_AUTHORIZATION_FAILED: def(65, false, 'Delegation Token authorization failed.'),
  DELEGATION_TOKEN_EXPIRED: def(66, false, 'Delegation Token is expired.'),
  INVALID_PRINCIPAL_TYPE: def(67, false, 'Supplied principalType is not supported.'),
  NON_EMPTY_GROUP: def(68, false, 'The group is not empty.'),
  GROUP_ID_NOT_FOUND: def(69, false, 'The group id does not exist.'),
  FETCH_SESSION_ID_NOT_FOUND: def(70, true, 'The fetch session ID was not found.'),
  INVALID_FETCH_SESSION_EPOCH: def(71, true, 'The fetch session epoch is invalid.'),
  LISTENER_NOT_FOUND: def(72, true, 'There is no listener on the leader broker that matches the listener on which metadata request was processed.'),
  TOPIC_DELETION_DISABLED: def(73, false, 'Topic deletion is disabled.'),
  FENCED_LEADER_EPOCH: def(74, true, 'The leader epoch in the request is older than the epoch on the broker.'),
  UNKNOWN_LEADER_EPOCH: def(75, true, 'The leader epoch in the request is newer than the epoch on the broker.'),
  UNSUPPORTED_COMPRESSION_TYPE: def(76, false, 'The requesting client does not support the compression type of given partition.'),
  STALE_BROKER_EPOCH: def(77, false, 'Broker epoch has changed.'),
  OFFSET_NOT_AVAILABLE: def(78, true, 'The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing.'),
  MEMBER_ID_REQUIRED: def(79, false, 'The group member needs to have a valid member id before actually entering a consumer group.'),
  PREFERRED_LEADER_NOT_AVAILABLE: def(80, true, 'The preferred leader was not available.'),
  GROUP_MAX_SIZE_REACHED: def(81, false, 'The consumer group has reached its max size.'),
  FENCED_INSTANCE_ID: def(82, false, 'The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.'),
  ELIGIBLE_LEADERS_NOT_AVAILABLE: def(83, true, 'Eligible topic partition leaders are not available.'),
  ELECTION_NOT_NEEDED: def(84, true, 'Leader election not needed for topic partition.'),
  NO_REASSIGNMENT_IN_PROGRESS: def(85, false, 'No partition reassignment is in progress.'),
  GROUP_SUBSCRIBED_TO_TOPIC: def(86, false, 'Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.'),
  INVALID_RECORD: def(87, false, 'This record has failed the validation on broker and hence will be rejected.'),
  UNSTABLE_OFFSET_COMMIT: def(88, true, 'There are unstable offsets that need to be cleared.'),
  PRODUCER_FENCED: def(90, false, 'There is a newer producer with the same transactionalId which fences the current one.'),
  RESOURCE_NOT_FOUND: def(91, false, 'A request illegally referred to a resource that does not exist.'),
  DUPLICATE_RESOURCE: def(92, false, 'A request illegally referred to the same resource twice.'),
  UNACCEPTABLE_CREDENTIAL: def(93, false, 'Requested credential would not meet criteria for acceptability.'),
  UNKNOWN_TOPIC_ID: def(100, true, 'This server does not host this topic ID.'),
  INCONSISTENT_TOPIC_ID: def(103, true, "The log's topic ID did not match the topic ID in the request"),
} as const;

export type ErrorName = keyof typeof ErrorCode;

const byCode = new Map<number, ErrorName>();
for (const name of Object.keys(ErrorCode) as ErrorName[]) byCode.set(ErrorCode[name].code, name);

/** The Kafka name for a numeric code, or `UNKNOWN(<code>)` for codes newer than this table. */
export function errorName(code: number): string {
  return byCode.get(code) ?? `UNKNOWN(${code})`;
}

/** The table's entry for a code; undefined for codes newer than this table. */
export function errorNameOf(code: number): ErrorName | undefined {
  return byCode.get(code);
}

/**
 * Kafka's one rule for retrying (the exception class of `Errors` extends RetriableException): the producer, the
 * consumer and the tools all retry exactly these. A code this table does not know is not retried.
 */
export function isRetriable(code: number): boolean {
  const name = byCode.get(code);
  return name !== undefined && ErrorCode[name].retriable;
}
