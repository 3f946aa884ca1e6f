/**
 * Store failover and explicit recovery, shared by the store components (TiDB Operator v1's
 * `commonStoreFailover` over a `StoreAccess`, §2.2 Failover, §2.3, Fixture F). A store of a desired
 * ordinal `Down` for the failover period (from its `lastTransitionTime`; the deadline persisted and
 * the key woken at it; a Disconnected store wakes the key when PD will call it Down) is recorded in `status.<c>.failureStores` — several per step, never more than
 * `maxFailoverCount` — and the desired-replica formula, which counts every failure store, brings a
 * replacement. Nothing is marked while PD cannot vouch for the stores (unread, no leader, no quorum).
 * The extra stores hold data, so they go only when the user asks (`recoverFailover`, or
 * `failover.recoverByUID` equal to `status.<c>.failoverUID`) and every desired ordinal is Ready with
 * an Up store; the extra ordinals then leave through the component's normal scale-in. With
 * `detectNodeFailure` the host-down recovery (`store-host-down.ts`) runs first, as v1's hook.
 */

import { createHash } from 'node:crypto';

import type { Action, DeadlineSpec } from '../../model/action.js';
import { toKubeTime } from '../cluster/condition.js';
import { EVENT_REASON, clusterWarning } from '../cluster/events.js';
import { observedPd, pdReadError } from '../cluster/observed.js';
import { complete, fail, retry } from '../engine/outcome.js';
import type { MemberDecision, MemberInput } from './component.js';
import { failoverDeadline, failoverDeadlinePuts, hasQuorum, staleFailoverDeadlines } from './failover.js';
import { nothing, unlessRecorded } from './members.js';
import { isPodReady } from './statefulset.js';
import { planStoreHostDown } from './store-host-down.js';
import { storeSpecOf, storeStatusOf, withFailureFields, type FailureStore, type StatusStore, type StoreAccess } from './store-access.js';

// As TiDB Operator's defaulting of `maxFailoverCount`.
const DEFAULT_MAX_FAILOVER_COUNT = 3;

// After a mark the replacement's scale-out is the next step's work, and safe at once.
const AFTER_MARK_RETRY_MS = 1_000;

const stamp = (time: string | undefined): number => (time === undefined ? Number.NaN : Date.parse(time));
const failuresOf = (access: StoreAccess, input: MemberInput): Record<string, FailureStore> => ({ ...storeStatusOf(access, input).failureStores });
const specReplicas = (access: StoreAccess, input: MemberInput): number => storeSpecOf(access, input.cluster)?.replicas ?? 0;

/** Whether `podName` is one of the ordinals `[0, spec.replicas)` (v1's desired ordinals, failover excluded). */
function isDesiredPod(access: StoreAccess, input: MemberInput, podName: string | undefined): boolean {
  const ordinal = input.scope.ordinalOf(podName ?? '');
  return ordinal !== undefined && ordinal < specReplicas(access, input);
}

/** A Down store of a desired ordinal with a transition time, and its failover deadline. */
type DownStore = { readonly store: StatusStore; readonly deadline: DeadlineSpec; readonly recorded: boolean };

/** The Down stores of desired ordinals with a transition time, in ordinal order, each with its deadline. */
function downStores(access: StoreAccess, input: MemberInput): DownStore[] {
  const periodMs = input.snapshot.config.failoverPeriodMs[access.component];
  const recorded = new Set(Object.values(failuresOf(access, input)).map((f) => f.podName));
  const stores = Object.values(storeStatusOf(access, input).stores ?? {}).filter(
    (s) => s.state === 'Down' && !Number.isNaN(stamp(s.lastTransitionTime)) && isDesiredPod(access, input, s.podName),
  );
  const rank = (s: StatusStore): number => input.scope.ordinalOf(s.podName) ?? Number.MAX_SAFE_INTEGER;
  return stores
    .sort((a, b) => rank(a) - rank(b))
    .map((store) => ({ store, deadline: failoverDeadline(access.component, store.podName, stamp(store.lastTransitionTime), periodMs), recorded: recorded.has(store.podName) }));
}

// Past PD's own moment: its `silent > max-store-down-time` is strict.
const DOWN_MARGIN_MS = 1_000;

/**
 * When PD will call a silent store of a desired ordinal Down — Disconnected, or Up while its pod is
 * not Ready (PD notices 20 s later, and nothing in Kubernetes changes then): its last heartbeat plus
 * PD's `max-store-down-time` (both from PD), so the status records Down — and the failover period
 * starts — when it happens, not at the next sweep. Only moments still ahead.
 */
function downMoments(access: StoreAccess, input: MemberInput): number[] {
  const view = observedPd(input.snapshot);
  const downAfterMs = view?.config?.schedule?.maxStoreDownTimeMs;
  if (!view || downAfterMs === undefined) return [];
  const heartbeats = new Map(view.stores.map((s) => [s.id, s.lastHeartbeatAtMs]));
  return Object.values(storeStatusOf(access, input).stores ?? {}).flatMap((s) => {
    const lastMs = heartbeats.get(s.id);
    const pod = input.scope.pod(s.podName);
    const silent = s.state === 'Disconnected' || (s.state === 'Up' && (pod === undefined || !isPodReady(pod)));
    if (!silent || lastMs === undefined || !isDesiredPod(access, input, s.podName)) return [];
    const atMs = lastMs + downAfterMs + DOWN_MARGIN_MS;
    return atMs > input.snapshot.nowMs ? [atMs] : [];
  });
}

/**
 * Why PD cannot vouch for the stores' states now, or undefined when it can: it was read, has a
 * leader and a healthy majority of members, and the component's status was synced from it. A
 * store looks Down to a PD that lost its quorum (P9): never fail over then.
 */
export function pdQuorumProblem(access: StoreAccess, input: MemberInput): string | undefined {
  const view = observedPd(input.snapshot);
  if (!view) return `PD could not be read (${pdReadError(input.snapshot) ?? 'not observed'})`;
  if (!view.leader) return 'PD has no leader';
  const healthy = view.members.filter((m) => m.health).length;
  if (!hasQuorum(healthy, view.members.length)) return `PD has no quorum: ${healthy}/${view.members.length} members healthy`;
  if (storeStatusOf(access, input).synced !== true) return `status.${access.component}.synced is not true`;
  return undefined;
}

/** A failover UID for this cluster, component and moment: UUID-shaped, the same for the same step. */
function failoverUidFor(access: StoreAccess, input: MemberInput): string {
  const hex = createHash('sha256').update(`${input.cluster.metadata.uid ?? input.cluster.metadata.name ?? ''}/${access.component}/${input.snapshot.nowMs}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * As TiDB Operator's `tryMarkAStoreAsFailure`: `failoverUID` is set as soon as a store is due (even
 * at the limit); each due store not yet recorded (by pod) is recorded with its PVC uids until
 * `maxFailoverCount` failure stores exist, with a Warning `Unhealthy` Event.
 */
function mark(access: StoreAccess, input: MemberInput, due: readonly DownStore[], max: number, prelude: readonly Action[]): MemberDecision {
  const status = storeStatusOf(access, input);
  const failureStores = failuresOf(access, input);
  const events: Action[] = [];
  for (const { store } of due.filter((d) => !d.recorded)) {
    if (Object.keys(failureStores).length >= max) break;
    const pvcUIDSet = Object.fromEntries(input.scope.pvcsLabelledFor(store.podName).map((pvc) => [pvc.metadata?.uid ?? '', {}]));
    failureStores[store.id] = { podName: store.podName, storeID: store.id, pvcUIDSet, createdAt: toKubeTime(input.snapshot.nowMs) };
    const message = `${access.component} pod[${store.podName}] is unhealthy, msg:store[${store.id}] is Down`;
    events.push(...unlessRecorded(clusterWarning(input.cluster, EVENT_REASON.unhealthy, message)));
  }
  const uid = status.failoverUID !== undefined && status.failoverUID !== '' ? status.failoverUID : failoverUidFor(access, input);
  const added = Object.keys(failureStores).length - Object.keys(failuresOf(access, input)).length;
  const changed = added > 0 || uid !== status.failoverUID;
  if (!changed) return { actions: prelude, outcome: complete(`${access.title} failure stores reached maxFailoverCount ${max}`) };
  const next = withFailureFields(access, input, { failureStores: Object.keys(failureStores).length > 0 ? failureStores : undefined, failoverUID: uid });
  const message = added > 0 ? `marking ${added} ${access.title} store(s) as failure` : `${access.title} failover UID set`;
  return { status: next, actions: [...prelude, ...events], outcome: retry(AFTER_MARK_RETRY_MS, message), stop: true };
}

/** As TiDB Operator's condition for running store failover: every pod started, not every store Up. */
function shouldRunFailover(access: StoreAccess, input: MemberInput): boolean {
  const status = storeStatusOf(access, input);
  const desired = access.desiredReplicas(input.cluster.spec, input.status);
  const stores = Object.values(status.stores ?? {});
  return desired === status.statefulSet?.replicas && !(stores.length === desired && stores.every((s) => s.state === 'Up'));
}

/** Failover does not run: only the stale deadlines go, and a silent store wakes the key when PD will call it Down. */
function watchSilentStores(access: StoreAccess, input: MemberInput, stale: readonly Action[]): MemberDecision {
  const [downAtMs] = downMoments(access, input).sort((a, b) => a - b);
  if (downAtMs === undefined) return { actions: stale, outcome: complete() };
  return { actions: stale, outcome: complete(`${access.title} failover: a silent store is Down for PD at ${toKubeTime(downAtMs)}`), wakeAtMs: downAtMs };
}

/** `decision` woken no later than `wakeAtMs` (when given). */
function earliestWake(decision: MemberDecision, wakeAtMs: number | undefined): MemberDecision {
  if (wakeAtMs === undefined) return decision;
  return { ...decision, wakeAtMs: decision.wakeAtMs === undefined ? wakeAtMs : Math.min(decision.wakeAtMs, wakeAtMs) };
}

/** The stores past their deadline: nothing to do, held without PD, or marked (`mark`). */
function planDue(access: StoreAccess, input: MemberInput, down: readonly DownStore[], prelude: readonly Action[], wakeAtMs: number | undefined): MemberDecision {
  const due = down.filter((d) => input.snapshot.nowMs >= d.deadline.deadlineAtMs);
  if (due.length === 0) return { actions: prelude, outcome: complete(wakeAtMs === undefined ? undefined : `${access.title} failover: next look at ${toKubeTime(wakeAtMs)}`) };
  if (due.every((d) => d.recorded) && (storeStatusOf(access, input).failoverUID ?? '') !== '') return { actions: prelude, outcome: complete() };
  const problem = pdQuorumProblem(access, input);
  if (problem) return { actions: prelude, outcome: fail(`${access.title} failover held: ${problem}`) };
  const max = storeSpecOf(access, input.cluster)?.maxFailoverCount ?? DEFAULT_MAX_FAILOVER_COUNT;
  if (max <= 0) return { actions: prelude, outcome: complete() };
  return mark(access, input, due, max, prelude);
}

/**
 * The component's `…Failover` rule (v1 runs it with `autoFailover` when all pods started but not
 * all stores are Up). Guarantees: a store is marked only past its persisted deadline and only
 * while PD vouches for the stores (else the rule fails and holds); the key is woken at the
 * earliest pending deadline, or when PD will call a silent store Down; deadlines of stores no
 * longer waiting are deleted; failure stores never exceed `maxFailoverCount`; a status change
 * stops the block, so replicas move next step.
 */
export function planStoreFailover(access: StoreAccess): (input: MemberInput) => MemberDecision {
  return (input) => {
    if (!input.snapshot.config.autoFailover || !storeSpecOf(access, input.cluster)) {
      return { actions: staleFailoverDeadlines(input, access.component, new Set()), outcome: complete() };
    }
    const down = downStores(access, input);
    const waiting = down.filter((d) => !d.recorded);
    const stale = staleFailoverDeadlines(input, access.component, new Set(waiting.map((d) => d.store.podName)));
    // As TiDB Operator the host-down recovery hook runs first (only with detectNodeFailure); here also
    // while all stores are Up, so a clean-up begun is seen through (storeDeleted) once the ordinal is back.
    const hostDown = planStoreHostDown(access, input, pdQuorumProblem(access, input));
    if ('decision' in hostDown) return { ...hostDown.decision, actions: [...stale, ...hostDown.decision.actions] };
    if (!shouldRunFailover(access, input)) return earliestWake(watchSilentStores(access, input, stale), hostDown.wakeAtMs);
    const pending = waiting.filter((d) => input.snapshot.nowMs < d.deadline.deadlineAtMs);
    const moments = [...pending.map((d) => d.deadline.deadlineAtMs), ...downMoments(access, input), ...(hostDown.wakeAtMs === undefined ? [] : [hostDown.wakeAtMs])];
    const wakeAtMs = moments.length > 0 ? Math.min(...moments) : undefined;
    const prelude = [...stale, ...failoverDeadlinePuts(input, waiting.map((d) => d.deadline))];
    const decision = planDue(access, input, down, prelude, wakeAtMs);
    return wakeAtMs === undefined ? decision : { ...decision, wakeAtMs };
  };
}

/**
 * As TiDB Operator's `shouldRecover` for stores: there are failure stores, and every desired
 * ordinal `[0, spec.replicas)` has a Ready pod with a store, every store of that pod `Up`.
 */
export function shouldRecoverStores(access: StoreAccess, input: MemberInput): boolean {
  if (Object.keys(failuresOf(access, input)).length === 0) return false;
  const stores = Object.values(storeStatusOf(access, input).stores ?? {});
  return Array.from({ length: specReplicas(access, input) }, (_, i) => input.scope.podName(i)).every((podName) => {
    const pod = input.scope.pod(podName);
    const own = stores.filter((s) => s.podName === podName);
    return pod !== undefined && isPodReady(pod) && own.length > 0 && own.every((s) => s.state === 'Up');
  });
}

/** Whether the user asked for recovery: `recoverFailover`, or `failover.recoverByUID` equal to the recorded `failoverUID`. */
export function isRecoveryRequested(access: StoreAccess, input: MemberInput): boolean {
  const spec = storeSpecOf(access, input.cluster);
  const uid = storeStatusOf(access, input).failoverUID ?? '';
  return spec?.recoverFailover === true || (uid !== '' && spec?.failover?.recoverByUID === uid);
}

/**
 * The component's `…FailoverRecovery` rule, before the scaler (as v1 recovers before it builds the
 * StatefulSet): failure stores of ordinals no longer desired are dropped (`RemoveUndesiredFailures`);
 * when recovery is requested and `shouldRecoverStores`, `failureStores` and `failoverUID` are
 * cleared. Without the request the extra stores stay, by design (P11). A change stops the block.
 */
export function planStoreRecovery(access: StoreAccess): (input: MemberInput) => MemberDecision {
  return (input) => {
    const failures = failuresOf(access, input);
    if (Object.keys(failures).length === 0) return nothing();
    const uid = storeStatusOf(access, input).failoverUID;
    if (isRecoveryRequested(access, input) && shouldRecoverStores(access, input)) {
      const status = withFailureFields(access, input, { failureStores: undefined, failoverUID: undefined });
      return { status, actions: [], outcome: retry(access.retryMs, `${access.title} recovered: failure stores cleared`), stop: true };
    }
    const kept = Object.fromEntries(Object.entries(failures).filter(([, f]) => isDesiredPod(access, input, f.podName)));
    if (Object.keys(kept).length < Object.keys(failures).length) {
      const status = withFailureFields(access, input, { failureStores: kept, failoverUID: uid });
      return { status, actions: [], outcome: retry(access.retryMs, `${access.title} failure stores of undesired ordinals dropped`), stop: true };
    }
    return nothing(isRecoveryRequested(access, input) ? undefined : `${access.title} failure stores kept until recovery is requested`);
  };
}
