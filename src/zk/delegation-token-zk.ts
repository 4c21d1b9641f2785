import { ZkClient } from './zk-client';
import { ZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { DelegationTokenChangeNotificationZNode, DelegationTokenInfoZNode, TokenInformationData } from './znodes/delegation-token-znodes';

/** Kafka's DelegationTokenChangeNotificationSequenceZNode.SequenceNumberPrefix. */
export const TOKEN_CHANGE_PREFIX = 'token_change_';

/**
 * The delegation-token part of Kafka's KafkaZkClient: `/delegation_token/tokens/<tokenId>` holds each token's
 * information, and every write or delete is announced by a persistent sequential
 * `/delegation_token/token_changes/token_change_<seq>` holding the token id, which every broker's listener reads.
 */
export class DelegationTokenZk {
  constructor(private readonly zk: ZkClient) {}

  /** createDelegationTokenPaths: both parents, created when the feature is enabled. */
  async createDelegationTokenPaths(): Promise<void> {
    await this.zk.ensurePath(ZkPaths.delegationTokenChanges);
    await this.zk.ensurePath(ZkPaths.delegationTokens);
  }

  async getChildren(): Promise<string[]> {
    return (await this.zk.getChildren(ZkPaths.delegationTokens)) ?? [];
  }

  /** getDelegationTokenInfo: undefined when the token is gone (or its node is empty). */
  async getDelegationTokenInfo(tokenId: string): Promise<TokenInformationData | undefined> {
    const path = ZkPaths.delegationToken(tokenId);
    const node = await this.zk.getData(path);
    return node === null ? undefined : DelegationTokenInfoZNode.decode(path, node.data);
  }

  /** setOrCreateDelegationToken: an unconditional write, creating the node when it does not exist yet. */
  async setOrCreateDelegationToken(token: TokenInformationData): Promise<void> {
    const path = ZkPaths.delegationToken(token.tokenId);
    const data = DelegationTokenInfoZNode.encode(token);
    try {
      await this.zk.setData(path, data);
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
      await this.zk.createRecursive(path, data);
    }
  }

  /** deleteDelegationToken: a token already gone counts as deleted. */
  async deleteDelegationToken(tokenId: string): Promise<void> {
    try {
      await this.zk.delete(ZkPaths.delegationToken(tokenId));
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
    }
  }

  /** createTokenChangeNotification: resolves with the path of the sequential node. */
  createTokenChangeNotification(tokenId: string): Promise<string> {
    return this.zk.create(ZkPaths.delegationTokenChangePrefix, DelegationTokenChangeNotificationZNode.encode(tokenId), 'PERSISTENT_SEQUENTIAL');
  }
}
