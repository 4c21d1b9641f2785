import { GROUP_METADATA_TOPIC_NAME } from '../../common/topic';
import { coordinatorPartitionFor } from '../../rebalance/coordinator-placement';
import { GroupCoordinator } from '../../rebalance/group-coordinator';
import { ZkOffsetStore } from '../../rebalance/zk-offset-store';
import { ZkClient } from '../../zk/zk-client';
import { HandlerContext } from './handler-context';

const coordinators = new WeakMap<HandlerContext, GroupCoordinator>();

/** The broker's ZooKeeper session, where group offsets live. */
export function brokerZkClient(ctx: HandlerContext): ZkClient {
  if (ctx.zkClient === undefined) throw new Error('The handler context has no ZooKeeper session');
  return ctx.zkClient;
}

/** `__consumer_offsets` partition count: the topic's actual count once it exists, the config until then. */
export function offsetsTopicPartitionCount(ctx: HandlerContext): number {
  return ctx.metadataCache.numPartitions(GROUP_METADATA_TOPIC_NAME) ?? ctx.config.int('offsets.topic.num.partitions');
}

export function groupPartition(ctx: HandlerContext, groupId: string): number {
  return coordinatorPartitionFor(groupId, offsetsTopicPartitionCount(ctx));
}

/** The one GroupCoordinator of a broker (one HandlerContext per broker), created on first use. */
export function groupCoordinatorFor(ctx: HandlerContext): GroupCoordinator {
  let coordinator = coordinators.get(ctx);
  if (coordinator === undefined) {
    coordinator = new GroupCoordinator({
      config: {
        minSessionTimeoutMs: ctx.config.int('group.min.session.timeout.ms'),
        maxSessionTimeoutMs: ctx.config.int('group.max.session.timeout.ms'),
        initialRebalanceDelayMs: ctx.config.int('group.initial.rebalance.delay.ms'),
        maxGroupSize: ctx.config.int('group.max.size'),
        offsetMetadataMaxBytes: ctx.config.int('offset.metadata.max.bytes'),
      },
      offsetStore: new ZkOffsetStore(brokerZkClient(ctx)),
      // The coordinator is the local leader of the group's partition (after LeaderAndIsr made it so).
      isCoordinatorFor: (groupId) => ctx.replicaManager.getPartition({ topic: GROUP_METADATA_TOPIC_NAME, partition: groupPartition(ctx, groupId) })?.isLeader === true,
    });
    coordinators.set(ctx, coordinator);
  }
  return coordinator;
}
