/**
 * The PD members of one cluster as etcd sees them: membership with uint64 member IDs, which member
 * each data directory (PVC) belongs to, raft quorum (a majority of members serving), leader
 * election with a leaderless gap, leader transfer, and member addition and removal with etcd's
 * strict reconfiguration checks (a change that would leave no started majority is refused). A
 * member added whose process died before etcd started stays in the list with no name and no client
 * URL ("not joined"): it counts towards the majority, never serves, and blocks every later join.
 */
import type { TimerHandle } from '../../platform/clock.js';
import { type PdContext, type PdResult, refuse } from './pd-context.js';
import { isAtLeast } from './version.js';

/**
 * One PD member. `serving` is true while a process runs it (it then counts towards the raft
 * majority). A member that never started has `name` and `clientUrl` empty (etcd publishes both
 * when the member first starts).
 */
export type PdMember = {
  readonly name: string;
  readonly id: string;
  readonly dataUid: string;
  readonly peerUrl: string;
  readonly clientUrl: string;
  version: string;
  serving: boolean;
  servingSinceMs: number;
  /** Started as the API service of PD microservices (`pd-server services api`): set by its process. */
  apiService?: boolean;
};

/** What a PD process knows about itself when it starts. */
export type PdMemberInfo = { name: string; dataUid: string; peerUrl: string; clientUrl: string; version: string };

/** Membership, quorum and leadership of one PD cluster. */
export class PdMembers {
  /** Members by id, in join order. */
  private readonly byId = new Map<string, PdMember>();
  /** Data directories (PVC uids) that hold a member's raft log: a restart on one rejoins as that member. */
  private readonly dataOwner = new Map<string, string>();
  /** Data directories of members removed from the cluster: PD refuses to start on them. */
  private readonly removedData = new Set<string>();
  private leaderName: string | undefined;
  private election: TimerHandle | undefined;
  private transfer: TimerHandle | undefined;
  /** The member the transfer in progress goes to. */
  private transferTo: PdMember | undefined;

  constructor(private readonly ctx: PdContext) {}

  /** Members in join order. */
  list(): PdMember[] {
    return [...this.byId.values()];
  }

  /** A started member by name (a member that never started has none). */
  get(name: string): PdMember | undefined {
    return name === '' ? undefined : this.list().find((m) => m.name === name);
  }

  /** A member by id. */
  byIdOf(id: string): PdMember | undefined {
    return this.byId.get(id);
  }

  /** The first member added whose process never started, if any. */
  notJoined(): PdMember | undefined {
    return this.list().find((m) => m.name === '');
  }

  /** The member whose raft data lives on `dataUid`, if that data still belongs to a member. */
  memberOfData(dataUid: string): PdMember | undefined {
    const id = this.dataOwner.get(dataUid);
    const member = id === undefined ? undefined : this.byId.get(id);
    return member && member.dataUid === dataUid ? member : undefined;
  }

  /** Whether `dataUid` held a member that has since been removed (PD exits: "member removed"). */
  isRemovedData(dataUid: string): boolean {
    return this.removedData.has(dataUid);
  }

  /** The current leader, if there is one. */
  leader(): PdMember | undefined {
    return this.leaderName === undefined ? undefined : this.get(this.leaderName);
  }

  /** A majority of members is serving (raft can commit). */
  hasQuorum(): boolean {
    const serving = this.list().filter((m) => m.serving).length;
    return this.byId.size > 0 && serving > this.byId.size / 2;
  }

  /** `--initial-cluster`: a new one-member cluster. */
  bootstrap(info: PdMemberInfo): PdMember {
    return this.add(info);
  }

  /**
   * `--join`: add a member through the current cluster (`joinChecks`), and start it.
   */
  join(info: PdMemberInfo): PdResult<PdMember> {
    const refused = this.joinChecks(info);
    return refused ?? { ok: this.add(info) };
  }

  /**
   * `--join` whose process dies after etcd's MemberAdd and before etcd starts: the same checks,
   * then a member with the peer URL and no name nor client URL, never serving. As PD's
   * `server/join/join.go`, which adds the member before the embedded etcd starts.
   */
  joinInterrupted(info: PdMemberInfo): PdResult<PdMember> {
    const refused = this.joinChecks(info);
    if (refused) return refused;
    const member: PdMember = { ...info, name: '', clientUrl: '', id: this.ctx.rng.uint64AboveSafe(), serving: false, servingSinceMs: this.ctx.clock.nowMs() };
    this.byId.set(member.id, member);
    this.reconcileLeader();
    this.ctx.changed();
    return { ok: member };
  }

  /**
   * As PD's `PrepareJoinCluster` (`server/join/join.go`, release-7.1 … v8.5): without a leader the
   * member list fails (etcd needs quorum); a member with no name ("there is a member … that has not
   * joined successfully"; the id is in the message from release-8.5) or one of the same name
   * ("missing data or join a duplicated pd") refuses the join. Then etcd's MemberAdd under strict
   * reconfiguration (`IsReadyToAddVotingMember`): the started members must stay a majority with the
   * new one counted, except a second member added to a lone one.
   */
  private joinChecks(info: PdMemberInfo): PdResult<PdMember> | undefined {
    if (!this.leader()) return refuse(503, 'etcdserver: unhealthy cluster');
    const notJoined = this.notJoined();
    if (notJoined) {
      const which = isAtLeast(info.version, 'v8.5.0') ? ` ${notJoined.id}` : '';
      return refuse(500, `there is a member${which} that has not joined successfully`);
    }
    if (this.get(info.name)) return refuse(500, 'missing data or join a duplicated pd');
    const total = this.byId.size + 1;
    const started = this.list().filter((m) => m.serving).length;
    if (started < Math.floor(total / 2) + 1 && !(started === 1 && total === 2)) {
      return refuse(500, 'etcdserver: re-configuration failed due to not enough started members');
    }
    return undefined;
  }

  /** A process serves `member` from now on. */
  setServing(member: PdMember, serving: boolean): void {
    if (member.serving === serving) return;
    member.serving = serving;
    member.servingSinceMs = this.ctx.clock.nowMs();
    this.reconcileLeader();
    this.ctx.changed();
  }

  /** The data directory was deleted (PVC gone): nothing can restart this member any more. */
  dataDeleted(dataUid: string): void {
    this.dataOwner.delete(dataUid);
  }

  /**
   * Moves leadership to `name` after the transfer delay. As PD's ResignEtcdLeader: refused (500)
   * without a leader, for an unknown member, or for one that is not serving. As raft, a transfer to
   * the member a transfer in progress already goes to is ignored (the one in progress goes on, its
   * time unchanged); a transfer to another member replaces it.
   */
  transferLeader(name: string): PdResult {
    const target = this.get(name);
    if (!this.leader()) return refuse(500, 'no leader');
    if (!target || !target.serving) return refuse(500, 'no valid pd to transfer etcd leader');
    if (this.transfer && this.transferTo === target) return { ok: true };
    if (this.transfer) this.ctx.clock.clearTimer(this.transfer);
    this.transferTo = target;
    this.transfer = this.ctx.clock.setTimer(() => {
      this.transfer = undefined;
      this.transferTo = undefined;
      if (target.serving && this.hasQuorum() && this.get(name) === target) this.setLeader(name);
    }, this.ctx.knobs.pdLeaderTransferMs);
    return { ok: true };
  }

  /** Makes `name` the leader at once (the world verb an administrator's pd-ctl would be). */
  forceLeader(name: string): PdResult {
    const target = this.get(name);
    if (!target || !target.serving || !this.hasQuorum()) return refuse(500, `member ${name} cannot lead now`);
    this.setLeader(name);
    return { ok: true };
  }

  /**
   * Removes a member. As etcd with strict reconfiguration checks: needs quorum, and is refused when
   * the remaining members would not have a serving majority.
   */
  remove(member: PdMember): PdResult {
    if (!this.hasQuorum()) return refuse(500, 'etcdserver: request timed out');
    const rest = this.list().filter((m) => m !== member);
    const servingRest = rest.filter((m) => m.serving).length;
    if (rest.length > 0 && servingRest <= rest.length / 2) return refuse(500, 'etcdserver: unhealthy cluster');
    this.byId.delete(member.id);
    // A member that never started wrote nothing to its data directory.
    if (member.name !== '') {
      this.dataOwner.delete(member.dataUid);
      this.removedData.add(member.dataUid);
    }
    if (this.leaderName === member.name) this.leaderName = undefined;
    this.reconcileLeader();
    this.ctx.changed();
    return { ok: true };
  }

  /** Cancels pending timers (the simulation is stopping). */
  stop(): void {
    if (this.election) this.ctx.clock.clearTimer(this.election);
    if (this.transfer) this.ctx.clock.clearTimer(this.transfer);
    this.election = undefined;
    this.transfer = undefined;
    this.transferTo = undefined;
  }

  /** A new member is serving from the start: its process adds it and runs it in one go. */
  private add(info: PdMemberInfo): PdMember {
    const member: PdMember = { ...info, id: this.ctx.rng.uint64AboveSafe(), serving: true, servingSinceMs: this.ctx.clock.nowMs() };
    this.byId.set(member.id, member);
    this.dataOwner.set(member.dataUid, member.id);
    this.reconcileLeader();
    this.ctx.changed();
    return member;
  }

  /** Without quorum there is no leader; a lost leader is replaced after the election delay. */
  private reconcileLeader(): void {
    if (!this.hasQuorum()) {
      this.leaderName = undefined;
      this.cancelElection();
      return;
    }
    const leader = this.leader();
    if (leader?.serving) return;
    this.leaderName = undefined;
    if (this.election) return;
    this.election = this.ctx.clock.setTimer(() => this.elect(), this.ctx.knobs.pdElectionMs);
  }

  private elect(): void {
    this.election = undefined;
    if (!this.hasQuorum() || this.leader()?.serving) return;
    const candidate = this.ctx.rng.pick(this.list().filter((m) => m.serving));
    if (candidate) this.setLeader(candidate.name);
  }

  private setLeader(name: string): void {
    this.cancelElection();
    if (this.leaderName === name) return;
    this.leaderName = name;
    this.ctx.changed();
  }

  private cancelElection(): void {
    if (this.election) this.ctx.clock.clearTimer(this.election);
    this.election = undefined;
  }
}
