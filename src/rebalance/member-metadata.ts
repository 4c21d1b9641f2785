import { TimerHandle } from '../common/time';

export interface MemberProtocol {
  name: string;
  metadata: Buffer;
}

export interface JoinResult {
  errorCode: number;
  generationId: number;
  /** The group's protocol type; null in error answers (JoinGroup v7 sends it, null there too). */
  protocolType: string | null;
  protocolName: string;
  leaderId: string;
  memberId: string;
  /** Filled for the leader only: every member with its metadata for the chosen protocol. */
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResult {
  errorCode: number;
  assignment: Buffer;
  /** The group's protocol type and name on success (SyncGroup v5), absent in error answers. */
  protocolType?: string | null;
  protocolName?: string | null;
}

/**
 * One member of a group as the coordinator knows it (Kafka's MemberMetadata): its timeouts, the protocols it
 * supports with their opaque metadata (passed to the leader untouched), its assignment for the current
 * generation and the parked JoinGroup/SyncGroup answers while a rebalance is running.
 */
export class MemberMetadata {
  assignment: Buffer = Buffer.alloc(0);
  awaitingJoin: ((result: JoinResult) => void) | null = null;
  awaitingSync: ((result: SyncResult) => void) | null = null;
  /** The static member's group.instance.id (KIP-345), null for a dynamic member. */
  groupInstanceId: string | null = null;
  /** Joined during the current rebalance (not yet part of any generation). */
  isNew = false;
  heartbeatTimer: TimerHandle | null = null;
  /** Whether the last session-timer reset came after the previous expiry check (Kafka's heartbeatSatisfied). */
  latestHeartbeatMs = 0;

  constructor(
    /** Replaced when a static member rejoins with a new member id (Kafka's replaceStaticMember). */
    public memberId: string,
    readonly clientId: string,
    readonly clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    readonly protocolType: string,
    public protocols: MemberProtocol[],
  ) {}

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  metadataFor(protocol: string): Buffer {
    const p = this.protocols.find((x) => x.name === protocol);
    if (p === undefined) throw new Error(`Member ${this.memberId} does not support protocol ${protocol}`);
    return p.metadata;
  }

  /** Same protocol names and metadata bytes, in the same order: a rejoin that changes nothing. */
  matches(protocols: readonly MemberProtocol[]): boolean {
    return protocols.length === this.protocols.length && protocols.every((p, i) => p.name === this.protocols[i]!.name && p.metadata.equals(this.protocols[i]!.metadata));
  }

  /** The member's vote: its most preferred protocol among the candidates. */
  vote(candidates: ReadonlySet<string>): string {
    const choice = this.protocols.find((p) => candidates.has(p.name));
    if (choice === undefined) throw new Error(`Member ${this.memberId} does not support any of the candidate protocols`);
    return choice.name;
  }
}
