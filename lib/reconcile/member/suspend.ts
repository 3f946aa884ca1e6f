/**
 * `suspendAction`, for every member component alike — TiDB Operator v1's suspender
 * (`pkg/manager/suspender`). A component asked to suspend its StatefulSet (its own
 * `spec.<component>.suspendAction`, else the cluster's `spec.suspendAction`) goes through three
 * steps, one per reconcile step: its phase becomes `Suspend` (only from `Normal`, and only once every
 * component before it in the suspend order that is asked to suspend is suspended); its StatefulSet is
 * deleted with Foreground propagation (its pods go first); once the StatefulSet is gone, `synced`,
 * `statefulSet` and the member maps (members, leader, stores, captures) are cleared. While suspended,
 * the component's block does nothing else. When the ask is withdrawn, the phase goes back to `Normal`
 * and the next step recreates the StatefulSet (the member recipe creates a missing one).
 */

import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import { complete, retry, wait } from '../engine/outcome.js';
import type { DeclaredName, MemberDecision, MemberInput, MemberName, MemberSpec, MemberStatus } from './component.js';
import { componentStatusIn, memberStatusOf, withComponentStatusIn } from './member-status.js';
import { isTerminating, nothing } from './members.js';

/** The phase of a suspended (or suspending) component, as TiDB Operator. */
export const SUSPEND_PHASE = 'Suspend';

/**
 * As TiDB Operator's `suspendOrderForTC`: a component is suspended only after every component before
 * it that is asked to suspend (TiDB first, PD last — what depends on others goes first).
 */
export const SUSPEND_ORDER: readonly MemberName[] = ['tidb', 'tiflash', 'ticdc', 'tikv', 'pump', 'pd'];

/** The status fields that describe running members; cleared once a component's StatefulSet is gone. */
const MEMBER_FIELDS = ['members', 'leader', 'stores', 'captures'] as const;

type AnyStatus = { readonly phase?: string; readonly statefulSet?: unknown; readonly synced?: boolean } & Record<string, unknown>;

const specOf = (tc: TidbCluster, name: MemberName): MemberSpec | undefined => tc.spec[name] as MemberSpec | undefined;
const statusOf = (status: TidbClusterStatus, name: MemberName): AnyStatus | undefined => status[name] as AnyStatus | undefined;

/**
 * As TiDB Operator's `needsSuspendComponent`: the cluster has the component and its suspend action
 * (the component's own, else the cluster's) asks for the StatefulSet to be suspended.
 */
export function isSuspendWanted(tc: TidbCluster, name: MemberName): boolean {
  const spec = specOf(tc, name);
  if (spec === undefined) return false;
  const action = spec.suspendAction ?? tc.spec.suspendAction;
  return action?.suspendStatefulSet === true;
}

/** As TiDB Operator's `ComponentIsSuspended`: phase `Suspend` and (suspending the StatefulSet) none recorded. */
export function isSuspended(tc: TidbCluster, status: TidbClusterStatus, name: MemberName): boolean {
  const current = statusOf(status, name);
  if (specOf(tc, name) === undefined || current?.phase !== SUSPEND_PHASE) return false;
  return !isSuspendWanted(tc, name) || current.statefulSet === undefined;
}

/**
 * As TiDB Operator's `canSuspendComponent`: the phase is `Normal` or already `Suspend`, and every
 * component earlier in `SUSPEND_ORDER` that is asked to suspend is suspended. Undefined when it can,
 * else why not.
 */
export function whyNotSuspendable(tc: TidbCluster, status: TidbClusterStatus, name: MemberName): string | undefined {
  return whyNotSuspendableAt(tc, status, statusOf(status, name)?.phase, name);
}

/**
 * `whyNotSuspendable` for a component whose phase is `phase` and whose place in `SUSPEND_ORDER` is
 * that of `name` (a PD microservice is not in it: it comes after every listed one, as v1's order).
 */
function whyNotSuspendableAt(tc: TidbCluster, status: TidbClusterStatus, phase: string | undefined, name: DeclaredName): string | undefined {
  if (phase !== 'Normal' && phase !== SUSPEND_PHASE) return `phase is ${phase ?? 'not set'}, not Normal or Suspend`;
  for (const earlier of SUSPEND_ORDER) {
    if (earlier === name) break;
    if (isSuspendWanted(tc, earlier) && !isSuspended(tc, status, earlier)) return `waiting for ${earlier} to be suspended`;
  }
  return undefined;
}

function withComponentStatus(input: MemberInput, next: AnyStatus): TidbClusterStatus {
  return withComponentStatusIn(input.scope.component, input.status, next as MemberStatus);
}

/** The component's status with the StatefulSet and member maps cleared (v1's `suspendSts` once the set is gone). */
function cleared(current: AnyStatus): AnyStatus {
  const rest: Record<string, unknown> = { ...current, phase: SUSPEND_PHASE, synced: false };
  delete rest['statefulSet'];
  for (const field of MEMBER_FIELDS) delete rest[field];
  return rest as AnyStatus;
}

/**
 * The `…Suspend` rule (after the component's status sync, so what it sets is what is written).
 * Guarantees: with no ask and no `Suspend` phase it does nothing; a withdrawn ask sets the phase
 * back to `Normal` and stops the block for this step; an ask that cannot be honoured yet does nothing
 * (the component is reconciled as usual, as TiDB Operator); otherwise the block stops, and the phase
 * is `Suspend` — the first step only sets it, later steps delete the StatefulSet (once: not again
 * while it terminates) and, once it is gone, clear the status.
 */
export function planSuspend(input: MemberInput): MemberDecision {
  const { component, spec, set } = input.scope;
  if (spec === undefined) return nothing();
  const current = memberStatusOf(input) as AnyStatus;
  // The phase as stored: the status sync before this rule recomputes it from the StatefulSet.
  const observed = input.cluster.status ?? {};
  const stored = componentStatusIn(component, observed)?.phase;
  const title = component.title;
  const action = spec.suspendAction ?? input.cluster.spec.suspendAction;
  if (action?.suspendStatefulSet !== true) {
    if (stored !== SUSPEND_PHASE) return nothing();
    const status = withComponentStatus(input, { ...current, phase: 'Normal' });
    return { status, actions: [], outcome: retry(component.retryMs, `${title} resumes: phase back to Normal`), stop: true };
  }
  if (stored !== SUSPEND_PHASE) {
    const why = whyNotSuspendableAt(input.cluster, observed, stored, component.name);
    if (why !== undefined) return nothing(`${title} cannot be suspended yet: ${why}`);
    const status = withComponentStatus(input, { ...current, phase: SUSPEND_PHASE });
    return { status, actions: [], outcome: retry(component.retryMs, `${title} begins to suspend`), stop: true };
  }
  if (set === undefined) {
    const status = withComponentStatus(input, cleared(current));
    return { status, actions: [], outcome: complete(`${title} is suspended`), stop: true };
  }
  const status = withComponentStatus(input, { ...current, phase: SUSPEND_PHASE });
  if (isTerminating(set)) return { status, actions: [], outcome: wait(`${title} StatefulSet is being deleted`), stop: true };
  const ref = { kind: 'StatefulSet' as const, namespace: set.metadata?.namespace ?? '', name: set.metadata?.name ?? '' };
  const del = { kind: 'delete' as const, ref, ...(set.metadata?.uid ? { uid: set.metadata.uid } : {}), propagationPolicy: 'Foreground' as const };
  return { status, actions: [del], outcome: wait(`${title} StatefulSet deleted to suspend`), stop: true };
}
