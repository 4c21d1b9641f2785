import { TimerHandle } from '../common/time';
import { GroupState, isValidTransition } from './group-state';
import { MemberMetadata, MemberProtocol } from './member-metadata';

/**
 * A group's membership and generation on its coordinator (Kafka's GroupMetadata). Only the coordinator mutates
 * it, always on the event loop, so no locking is needed (Kafka's group lock).
 *
 * Generations: every completed JoinGroup round bumps `generationId` and fixes the chosen protocol and leader;
 * requests carrying another generation get ILLEGAL_GENERATION. The protocol is the one every member supports,
 * chosen by each member voting for its most preferred candidate. Offsets are not kept here: they live in
 * ZooKeeper (`/consumers/<group>/offsets`), shared with the ZooKeeper-based consumer.
 */
export class GroupMetadata {
  private stateValue: GroupState = 'Empty';
  readonly members = new Map<string, MemberMetadata>();
  /** group.instance.id -> member id of the static members (KIP-345). */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED (KIP-394), until they rejoin or their session timeout passes. */
  readonly pendingMembers = new Map<string, TimerHandle>();
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** The pending delayed join (rebalance timeout or initial delay); cancelled when the join completes early. */
  joinTimer: TimerHandle | null = null;
  /** When the current rebalance started (bounds the initial-delay extensions). */
  rebalanceStartMs = 0;
  /** The first rebalance of an empty group is waiting out group.initial.rebalance.delay.ms. */
  inInitialDelay = false;
  /** Members that joined while the initial delay was running (Kafka's InitialDelayedJoin extends for them). */
  newMemberAdded = false;

  /** When the group entered its current state (Kafka's currentStateTimestamp): offsets expire from an Empty group's. */
  currentStateTimestamp: number;

  constructor(
    readonly groupId: string,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.currentStateTimestamp = nowMs();
  }

  get state(): GroupState {
    return this.stateValue;
  }

  is(state: GroupState): boolean {
    return this.stateValue === state;
  }

  transitionTo(state: GroupState): void {
    if (!isValidTransition(this.stateValue, state)) {
      throw new Error(`Group ${this.groupId} should be in one of the valid previous states of ${state}, but it is ${this.stateValue}`);
    }
    this.stateValue = state;
    this.currentStateTimestamp = this.nowMs();
  }

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  get isEmpty(): boolean {
    return this.members.size === 0;
  }

  add(member: MemberMetadata): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
  }

  remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member?.groupInstanceId != null && this.staticMembers.get(member.groupInstanceId) === memberId) this.staticMembers.delete(member.groupInstanceId);
    this.members.delete(memberId);
    if (this.leaderId === memberId) this.leaderId = this.members.keys().next().value ?? null;
  }

  /**
   * A static member rejoining under a new member id takes over its old member (assignment included); parked
   * answers of the old one are answered by the caller first. The leader stays the leader under the new id.
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): MemberMetadata {
    const member = this.members.get(oldMemberId);
    if (member === undefined) throw new Error(`Cannot replace non-existing member id ${oldMemberId}`);
    this.members.delete(oldMemberId);
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    this.staticMembers.set(groupInstanceId, newMemberId);
    return member;
  }

  /** A newcomer must use the group's protocol type and share at least one protocol with every member. */
  supportsProtocols(protocolType: string, protocols: readonly MemberProtocol[]): boolean {
    if (this.is('Empty') || this.members.size === 0) return protocolType !== '' && protocols.length > 0;
    if (protocolType !== this.protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  candidateProtocols(): Set<string> {
    let candidates: Set<string> | undefined;
    for (const m of this.members.values()) {
      const names = new Set(m.protocols.map((p) => p.name));
      const previous: Set<string> | undefined = candidates;
      candidates = previous === undefined ? names : new Set([...previous].filter((n) => names.has(n)));
    }
    return candidates ?? new Set<string>();
  }

  /** Each member votes for its most preferred common protocol; the most votes wins (ties: first counted). */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best = '';
    let bestVotes = -1;
    for (const [name, count] of votes) if (count > bestVotes) [best, bestVotes] = [name, count];
    return best;
  }

  notYetRejoined(): MemberMetadata[] {
    return [...this.members.values()].filter((m) => !m.isAwaitingJoin);
  }

  get allMembersJoined(): boolean {
    return this.notYetRejoined().length === 0;
  }

  /** Kafka bounds a rebalance by the largest rebalance timeout any member asked for. */
  get rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Starts the next generation from the members that rejoined (Kafka's initNextGeneration). */
  initNextGeneration(): void {
    this.generationId += 1;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.transitionTo('CompletingRebalance');
    } else {
      this.protocolName = null;
      this.transitionTo('Empty');
    }
  }
}
