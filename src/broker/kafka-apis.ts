import { ApiHandlers } from './network/api-handler';
import { createControlledShutdownHandler, createLeaderAndIsrHandler, createStopReplicaHandler, createUpdateMetadataHandler } from './handlers/control-requests';
import { createDescribeConfigsHandler } from './handlers/describe-configs';
import { createFetchHandler } from './handlers/fetch';
import { createGroupApis } from './handlers/group-apis';
import { HandlerContext } from './handlers/handler-context';
import { createListOffsetsHandler } from './handlers/list-offsets';
import { createMetadataHandler } from './handlers/metadata';
import { createOffsetsForLeaderEpochHandler } from './handlers/offsets-for-leader-epoch';
import { createProduceHandler } from './handlers/produce';
import { createCreatePartitionsHandler, createCreateTopicsHandler, createDeleteTopicsHandler } from './handlers/topic-admin';

/**
 * The broker's request handlers keyed by API (Kafka's KafkaApis.handle). The dispatcher serves, and ApiVersions
 * advertises, exactly the APIs listed here.
 */
export function createKafkaApis(ctx: HandlerContext): ApiHandlers {
  return {
    ...createGroupApis(ctx), // 8, 9, 10, 11, 12, 13, 14, 15, 16, 42
    0: createProduceHandler(ctx),
    1: createFetchHandler(ctx),
    2: createListOffsetsHandler(ctx),
    3: createMetadataHandler(ctx),
    4: createLeaderAndIsrHandler(ctx),
    5: createStopReplicaHandler(ctx),
    6: createUpdateMetadataHandler(ctx),
    7: createControlledShutdownHandler(ctx),
    19: createCreateTopicsHandler(ctx),
    20: createDeleteTopicsHandler(ctx),
    23: createOffsetsForLeaderEpochHandler(ctx),
    32: createDescribeConfigsHandler(ctx),
    37: createCreatePartitionsHandler(ctx),
  };
}
