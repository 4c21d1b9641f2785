import { KafkaConfig } from '../common/config/kafka-config';
import { ErrorCode } from '../common/error-codes';
import { getLogger, Logger } from '../common/logging/logging';
import { SerialQueue } from '../common/serial-queue';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { DelegationTokenZk, TOKEN_CHANGE_PREFIX } from '../zk/delegation-token-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { ZkWatch, watchChildren } from '../zk/zk-watch';
import { DelegationTokenChangeNotificationZNode } from '../zk/znodes/delegation-token-znodes';
import { DelegationTokenCache } from './delegation-token-cache';
import { createTokenHmac, DelegationToken, generateTokenId, ownerOrRenewer, TokenInformation, tokenInfoFromData, tokenInfoToData } from './delegation-token';
import { KafkaPrincipal, principalToString } from './kafka-principal';

/** Kafka's DelegationTokenManager.ErrorTimestamp. */
export const ERROR_TIMESTAMP = -1;

/** ZkNodeChangeNotificationListener's changeExpirationMs: processed notifications older than this are deleted. */
const CHANGE_EXPIRATION_MS = 15 * 60 * 1000;

/** The four delegation.token.* settings (KafkaConfig's delegationToken* values). */
export interface DelegationTokenConfig {
  /** `delegation.token.secret.key`, else `delegation.token.master.key`; null or empty disables the feature. */
  readonly secretKey: string | null;
  readonly maxLifetimeMs: number;
  readonly expiryTimeMs: number;
  readonly expiryCheckIntervalMs: number;
}

/** What the broker's configuration gives (KafkaConfig.delegationTokenSecretKey prefers the new name). */
export function delegationTokenConfigFrom(config: KafkaConfig): DelegationTokenConfig {
  return {
    secretKey: config.get('delegation.token.secret.key') ?? config.get('delegation.token.master.key'),
    maxLifetimeMs: config.get('delegation.token.max.lifetime.ms'),
    expiryTimeMs: config.get('delegation.token.expiry.time.ms'),
    expiryCheckIntervalMs: config.get('delegation.token.expiry.check.interval.ms'),
  };
}

export interface CreateTokenResult {
  readonly errorCode: number;
  readonly issueTimestamp: number;
  readonly expiryTimestamp: number;
  readonly maxTimestamp: number;
  readonly tokenId: string;
  readonly hmac: Buffer;
}

export interface TokenTimestampResult {
  readonly errorCode: number;
  readonly expiryTimestamp: number;
}

/**
 * Kafka 2.8's DelegationTokenManager (KIP-48), one per broker. Tokens live in `/delegation_token/tokens`; the
 * broker that serves a create, renew or expire writes the node, updates its own cache and adds a
 * `token_change_<seq>` notification, on which every other broker re-reads the token (or drops it when the node
 * is gone). `expireTokens` is run by the active controller every `delegation.token.expiry.check.interval.ms`.
 * Operations run one at a time (Kafka's `lock`), notifications included.
 */
export class DelegationTokenManager {
  readonly cache = new DelegationTokenCache();
  private readonly lock = new SerialQueue();
  private readonly dtZk: DelegationTokenZk;
  private readonly log: Logger;
  private watch: ZkWatch | undefined;
  private lastProcessed = -1;

  constructor(
    private readonly zk: ZkClient,
    private readonly config: DelegationTokenConfig,
    brokerId: number,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.dtZk = new DelegationTokenZk(zk);
    this.log = getLogger('kafka.server.DelegationTokenManager', `[Token Manager on Broker ${brokerId}]: `);
  }

  /** KafkaConfig.tokenAuthEnabled: a non-empty secret key. */
  get tokenAuthEnabled(): boolean {
    return this.config.secretKey !== null && this.config.secretKey.length > 0;
  }

  get expiryCheckIntervalMs(): number {
    return this.config.expiryCheckIntervalMs;
  }

  /** Creates the paths, loads every token, then listens for changes (nothing at all when disabled). */
  async startup(): Promise<void> {
    if (!this.tokenAuthEnabled) return;
    await this.dtZk.createDelegationTokenPaths();
    await this.lock.run(() => this.loadCache());
    this.watch = watchChildren(this.zk, ZkPaths.delegationTokenChanges, (children) => {
      this.lock.run(() => this.processNotifications(children ?? [])).catch((err: unknown) => this.log.error('Error processing token change notifications', err));
    });
  }

  shutdown(): void {
    this.watch?.close();
    this.watch = undefined;
  }

  /** Resolves once every operation and notification queued so far has been handled (for tests and shutdown). */
  idle(): Promise<void> {
    return this.lock.whenIdle();
  }

  private get secretKey(): string {
    return this.config.secretKey ?? '';
  }

  private async loadCache(): Promise<void> {
    const tokens = await this.dtZk.getChildren();
    this.log.info(`Loading the token cache. Total token count: ${tokens.length}`);
    for (const tokenId of tokens) {
      try {
        const token = await this.tokenFromZk(tokenId);
        if (token !== undefined) this.cache.updateCache(token);
      } catch (err) {
        this.log.error(`Error while getting Token for tokenId: ${tokenId}`, err);
      }
    }
  }

  private async tokenFromZk(tokenId: string): Promise<DelegationToken | undefined> {
    const data = await this.dtZk.getDelegationTokenInfo(tokenId);
    if (data === undefined) return undefined;
    return { tokenInfo: tokenInfoFromData(data), hmac: createTokenHmac(tokenId, this.secretKey) };
  }

  /** createToken: max lifetime capped by the broker's, expiry one renew period (or the max) after issue. */
  createToken(owner: KafkaPrincipal, renewers: readonly KafkaPrincipal[], maxLifeTimeMs: number): Promise<CreateTokenResult> {
    if (!this.tokenAuthEnabled) return Promise.resolve(failedCreate(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code));
    return this.lock.run(async () => {
      const tokenId = generateTokenId();
      const issueTimestamp = this.clock.nowMs();
      const maxLifeTime = maxLifeTimeMs <= 0 ? this.config.maxLifetimeMs : Math.min(maxLifeTimeMs, this.config.maxLifetimeMs);
      const maxTimestamp = issueTimestamp + maxLifeTime;
      const expiryTimestamp = Math.min(maxTimestamp, issueTimestamp + this.config.expiryTimeMs);
      const tokenInfo: TokenInformation = { tokenId, owner, renewers: [...renewers], issueTimestamp, maxTimestamp, expiryTimestamp };
      const hmac = createTokenHmac(tokenId, this.secretKey);
      await this.updateToken({ tokenInfo, hmac });
      this.log.info(`Created a delegation token: ${tokenId} for owner: ${principalToString(owner)}`);
      return { errorCode: ErrorCode.NONE.code, issueTimestamp, expiryTimestamp, maxTimestamp, tokenId, hmac };
    });
  }

  /** renewToken: owner or renewer only, not once expired; a negative period means the default renew time. */
  renewToken(principal: KafkaPrincipal, hmac: Buffer, renewLifeTimeMs: number): Promise<TokenTimestampResult> {
    if (!this.tokenAuthEnabled) return Promise.resolve(failedTimestamp(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code));
    return this.lock.run(async () => {
      const tokenInfo = this.cache.tokenForHmac(hmac.toString('base64'));
      if (tokenInfo === undefined) return failedTimestamp(ErrorCode.DELEGATION_TOKEN_NOT_FOUND.code);
      const now = this.clock.nowMs();
      if (!ownerOrRenewer(tokenInfo, principal)) return failedTimestamp(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH.code);
      if (tokenInfo.maxTimestamp < now || tokenInfo.expiryTimestamp < now) return failedTimestamp(ErrorCode.DELEGATION_TOKEN_EXPIRED.code);
      const renewLifeTime = renewLifeTimeMs < 0 ? this.config.expiryTimeMs : renewLifeTimeMs;
      tokenInfo.expiryTimestamp = Math.min(tokenInfo.maxTimestamp, now + renewLifeTime);
      await this.updateToken({ tokenInfo, hmac: Buffer.from(hmac) });
      this.log.info(`Delegation token renewed for token: ${tokenInfo.tokenId} for owner: ${principalToString(tokenInfo.owner)}`);
      return { errorCode: ErrorCode.NONE.code, expiryTimestamp: tokenInfo.expiryTimestamp };
    });
  }

  /**
   * expireToken: owner or renewer only, not once expired; a negative period removes the token now, another one
   * moves its expiry to now + period (never past the max).
   */
  expireToken(principal: KafkaPrincipal, hmac: Buffer, expireLifeTimeMs: number): Promise<TokenTimestampResult> {
    if (!this.tokenAuthEnabled) return Promise.resolve(failedTimestamp(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code));
    return this.lock.run(async () => {
      const tokenInfo = this.cache.tokenForHmac(hmac.toString('base64'));
      if (tokenInfo === undefined) return failedTimestamp(ErrorCode.DELEGATION_TOKEN_NOT_FOUND.code);
      const now = this.clock.nowMs();
      if (!ownerOrRenewer(tokenInfo, principal)) return failedTimestamp(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH.code);
      if (tokenInfo.maxTimestamp < now || tokenInfo.expiryTimestamp < now) return failedTimestamp(ErrorCode.DELEGATION_TOKEN_EXPIRED.code);
      if (expireLifeTimeMs < 0) {
        await this.removeToken(tokenInfo.tokenId);
        this.log.info(`Token expired for token: ${tokenInfo.tokenId} for owner: ${principalToString(tokenInfo.owner)}`);
        return { errorCode: ErrorCode.NONE.code, expiryTimestamp: now };
      }
      tokenInfo.expiryTimestamp = Math.min(tokenInfo.maxTimestamp, now + expireLifeTimeMs);
      await this.updateToken({ tokenInfo, hmac: Buffer.from(hmac) });
      this.log.info(`Updated expiry time for token: ${tokenInfo.tokenId} for owner: ${principalToString(tokenInfo.owner)}`);
      return { errorCode: ErrorCode.NONE.code, expiryTimestamp: tokenInfo.expiryTimestamp };
    });
  }

  /** expireTokens (the controller's "delete-expired-tokens" task): removes every token past its expiry or max. */
  expireTokens(): Promise<void> {
    return this.lock.run(async () => {
      for (const tokenInfo of this.cache.tokens()) {
        const now = this.clock.nowMs();
        if (tokenInfo.maxTimestamp < now || tokenInfo.expiryTimestamp < now) {
          this.log.info(`Delegation token expired for token: ${tokenInfo.tokenId} for owner: ${principalToString(tokenInfo.owner)}`);
          await this.removeToken(tokenInfo.tokenId);
        }
      }
    });
  }

  /** getTokens: the cached tokens `eligible` keeps, with their HMACs. */
  getTokens(eligible: (token: TokenInformation) => boolean): DelegationToken[] {
    return this.cache
      .tokens()
      .filter(eligible)
      .map((tokenInfo) => ({ tokenInfo, hmac: createTokenHmac(tokenInfo.tokenId, this.secretKey) }));
  }

  private async updateToken(token: DelegationToken): Promise<void> {
    await this.dtZk.setOrCreateDelegationToken(tokenInfoToData(token.tokenInfo));
    this.cache.updateCache(token);
    await this.dtZk.createTokenChangeNotification(token.tokenInfo.tokenId);
  }

  private async removeToken(tokenId: string): Promise<void> {
    await this.dtZk.deleteDelegationToken(tokenId);
    this.cache.removeCache(tokenId);
    await this.dtZk.createTokenChangeNotification(tokenId);
  }

  /** ZkNodeChangeNotificationListener.processNotifications with TokenChangedNotificationHandler. */
  private async processNotifications(children: string[]): Promise<void> {
    const sorted = children.filter((c) => c.startsWith(TOKEN_CHANGE_PREFIX)).sort();
    for (const child of sorted) {
      const seq = Number(child.slice(TOKEN_CHANGE_PREFIX.length));
      const path = `${ZkPaths.delegationTokenChanges}/${child}`;
      const node = await this.zk.getData(path);
      if (node === null) continue;
      if (seq > this.lastProcessed) {
        this.lastProcessed = seq;
        const tokenId = DelegationTokenChangeNotificationZNode.decode(node.data);
        try {
          this.log.info(`Processing Token Notification for tokenId: ${tokenId}`);
          const token = await this.tokenFromZk(tokenId);
          if (token !== undefined) this.cache.updateCache(token);
          else this.cache.removeCache(tokenId);
        } catch (err) {
          // Logged, and the listener goes on with the next notification (a bad znode cannot stop the others).
          this.log.error(`error processing change notification ${tokenId.slice(0, 200)} from ${path}`, err);
        }
      }
      if (this.clock.nowMs() - node.stat.ctime > CHANGE_EXPIRATION_MS) await this.zk.delete(path).catch(() => undefined);
    }
  }
}

function failedCreate(errorCode: number): CreateTokenResult {
  return { errorCode, issueTimestamp: ERROR_TIMESTAMP, expiryTimestamp: ERROR_TIMESTAMP, maxTimestamp: ERROR_TIMESTAMP, tokenId: '', hmac: Buffer.alloc(0) };
}

function failedTimestamp(errorCode: number): TokenTimestampResult {
  return { errorCode, expiryTimestamp: ERROR_TIMESTAMP };
}
