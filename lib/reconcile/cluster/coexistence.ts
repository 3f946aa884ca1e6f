/**
 * Coexistence with TiDB Operator: the first rule of every step. TiDB Operator v1 and tidb-reconciler
 * manage the same TidbClusters through the same objects (same names, labels, `managed-by`), so two
 * of them acting on one cluster would fight — each rolling back the other's StatefulSet partition,
 * both failing over the same member. While a TiDB Operator controller manager that manages the
 * cluster runs — its Deployment ready or its Lease held, or its recent writes on the TidbCluster or
 * a StatefulSet (lib/model/tidb-operator.ts says what counts) — the reconciler leaves the cluster
 * alone: the step halts here, before any other rule, so it writes nothing to the cluster's objects
 * and not even the status beyond its own condition — that is the operator's to write.
 *
 * Never silent, never a storm: the cluster carries the condition `TiDBOperatorRunning` (status True,
 * reason `ControllerManagerRunning`) naming the operator and the two ways out, and a Warning Event
 * `TiDBOperatorRunning` is recorded when that message changes (once per operator found, not on every
 * step). The step then waits for the re-check timer (`RECHECK_WHILE_RUNNING_MS`, a minute) rather than
 * retrying. The verdict is kept in the state item as a deadline (`VERDICT_KIND`) whose time is the
 * next re-check, so steps in between read nothing more; once no operator runs (scaled to 0: its pods
 * gone and its Lease expired) or the TidbCluster is annotated `tidb-reconciler/take-over: "true"`,
 * the condition is removed, a Normal Event `TakeOver` says so, and the rules run in the same step.
 */

import type { Action, DeadlineSpec } from '../../model/action.js';
import {
  OPERATOR_FIELD_MANAGER,
  RECENT_WRITE_MS,
  RECHECK_WHILE_ABSENT_MS,
  RECHECK_WHILE_RUNNING_MS,
  TAKE_OVER_ANNOTATION,
  VERDICT_COMPONENT,
  VERDICT_KIND,
  VERDICT_MEMBER,
  cachedVerdict,
  detectOperator,
  operatorWrite,
  type ObservedOperator,
  type WrittenObject,
} from '../../model/tidb-operator.js';
import { complete, wait } from '../engine/outcome.js';
import type { Decision, RuleInput } from '../engine/rule.js';
import { toKubeTime, type ClusterCondition } from './condition.js';
import { clusterNormal, clusterWarning } from './events.js';
import { observedObjects } from './observed.js';

/** The condition type of a cluster left alone because TiDB Operator manages it. */
export const TIDB_OPERATOR_CONDITION = 'TiDBOperatorRunning';

/** The condition's reason. */
export const TIDB_OPERATOR_REASON = 'ControllerManagerRunning';

/** The Warning Event's reason (as the condition type). */
export const TIDB_OPERATOR_EVENT = 'TiDBOperatorRunning';

/** The Normal Event's reason when the reconciler starts acting on a cluster it left alone. */
export const TAKE_OVER_EVENT = 'TakeOver';

/**
 * The condition's message for `operator` (undefined: the persisted verdict says one runs, but not
 * which): stable while the same operator runs, so its Warning Event is recorded once.
 */
export function describeRunning(operator: Pick<ObservedOperator, 'namespace' | 'name'> | undefined): string {
  const who = operator === undefined ? `TiDB Operator's controller manager` : `TiDB Operator's controller manager ${operator.namespace}/${operator.name}`;
  const scale = operator === undefined ? 'kubectl scale deployment tidb-controller-manager --replicas=0' : `kubectl -n ${operator.namespace} scale deployment ${operator.name} --replicas=0`;
  return (
    `${who} runs and manages this TidbCluster: tidb-reconciler makes no change to it until that operator is stopped ` +
    `(${scale}) or the TidbCluster is annotated ${TAKE_OVER_ANNOTATION}=true`
  );
}

/** The condition's message when TiDB Operator is known by its writes (its Deployment not found). */
export function describeWriting(): string {
  return (
    `TiDB Operator's controller manager (field manager ${OPERATOR_FIELD_MANAGER}) still writes this TidbCluster's objects and manages it: ` +
    `tidb-reconciler makes no change to it until that operator is stopped (scale its Deployment to 0) or the TidbCluster is annotated ${TAKE_OVER_ANNOTATION}=true`
  );
}

type Refusal = { readonly message: string; readonly evidence: string; readonly recheckAtMs: number };

/**
 * The `Coexistence` rule. Guarantees: with the take-over annotation it completes — removing a
 * leftover condition with one Normal Event — and lets every rule after it run. Otherwise an operator
 * runs when the controller managers read this step say so, or (not read) the persisted verdict does,
 * or its field manager wrote the TidbCluster or a StatefulSet recently and after the reconciler
 * (`operatorWrite`); then the rule halts the step with `wait` and a wake-up at the re-check time, asks
 * for the Warning Event only when the condition's message changes, and changes nothing else. When
 * none runs it completes as with the annotation. A verdict read this step is persisted with its
 * re-check time (`RECHECK_WHILE_RUNNING_MS` or `RECHECK_WHILE_ABSENT_MS`).
 */
export function planCoexistence(input: RuleInput): Decision {
  const { cluster, status, snapshot } = input;
  const nowMs = snapshot.nowMs;
  if (cluster.metadata.annotations?.[TAKE_OVER_ANNOTATION] === 'true') {
    return released(input, [], `the TidbCluster is annotated ${TAKE_OVER_ANNOTATION}=true: tidb-reconciler reconciles it whether or not TiDB Operator runs`);
  }
  const cached = cachedVerdict(snapshot.state.deadlines);
  const observed = snapshot.tidbOperator;
  let store: Action[] = [];
  let refusal: Refusal | undefined;
  if (observed !== undefined) {
    const verdict = detectOperator(observed, cluster.metadata.namespace ?? '', nowMs);
    const recheckAtMs = nowMs + (verdict.running ? RECHECK_WHILE_RUNNING_MS : RECHECK_WHILE_ABSENT_MS);
    store = persistVerdict(cached, verdict.running ? VERDICT_KIND.running : VERDICT_KIND.absent, nowMs, recheckAtMs);
    if (verdict.running) refusal = { message: describeRunning(verdict.operator), evidence: verdict.evidence, recheckAtMs };
  } else if (cached?.kind === VERDICT_KIND.running) {
    const reported = (status.conditions ?? []).find((c) => c.type === TIDB_OPERATOR_CONDITION);
    refusal = { message: reported?.message ?? describeRunning(undefined), evidence: 'as last seen', recheckAtMs: cached.deadlineAtMs };
  }
  const written = refusal === undefined ? operatorWrite(ownWrites(input), nowMs) : undefined;
  if (written !== undefined) {
    const evidence = `${written.object} written by ${OPERATOR_FIELD_MANAGER} at ${toKubeTime(written.atMs)}`;
    refusal = { message: describeWriting(), evidence, recheckAtMs: Math.min(written.atMs + RECENT_WRITE_MS, nowMs + RECHECK_WHILE_RUNNING_MS) };
  }
  if (refusal !== undefined) return refused(input, refusal.message, store, refusal.recheckAtMs, `${refusal.message} (${refusal.evidence})`);
  return released(input, store, `TiDB Operator's controller manager no longer runs (none with a ready replica or a held Lease) nor writes this cluster's objects: tidb-reconciler reconciles this TidbCluster`);
}

/** The objects whose writers tell TiDB Operator at work: the TidbCluster and its StatefulSets (as read, no extra request). */
function ownWrites({ cluster, snapshot }: RuleInput): WrittenObject[] {
  return [{ kind: 'TidbCluster', metadata: cluster.metadata }, ...observedObjects(snapshot, 'StatefulSet').map((sts) => ({ kind: 'StatefulSet', metadata: sts.metadata ?? {} }))];
}

/** Halts the step: the condition (and its Warning Event when its message is new), the verdict, a wake-up at the re-check. */
function refused(input: RuleInput, message: string, store: readonly Action[], recheckAtMs: number, outcomeMessage: string): Decision {
  const { cluster, status, snapshot } = input;
  const current = status.conditions ?? [];
  const reported = current.find((c) => c.type === TIDB_OPERATOR_CONDITION);
  const base = { outcome: wait(outcomeMessage), wakeAtMs: recheckAtMs, stop: true, halt: true } as const;
  if (reported?.status === 'True' && reported.message === message) return { ...base, actions: store };
  const conditions = [...current.filter((c) => c.type !== TIDB_OPERATOR_CONDITION), runningCondition(reported, message, snapshot.nowMs)];
  return { ...base, status: { ...status, conditions }, actions: [...store, clusterWarning(cluster, TIDB_OPERATOR_EVENT, message)] };
}

/** Lets the rules run: a leftover condition removed with a Normal Event saying why. */
function released(input: RuleInput, store: readonly Action[], why: string): Decision {
  const { cluster, status } = input;
  const current = status.conditions ?? [];
  if (!current.some((c) => c.type === TIDB_OPERATOR_CONDITION)) return { actions: store, outcome: complete() };
  const conditions = current.filter((c) => c.type !== TIDB_OPERATOR_CONDITION);
  return { status: { ...status, conditions }, actions: [...store, clusterNormal(cluster, TAKE_OVER_EVENT, why)], outcome: complete(why) };
}

function runningCondition(previous: ClusterCondition | undefined, message: string, nowMs: number): ClusterCondition {
  const now = toKubeTime(nowMs);
  const since = previous?.status === 'True' ? (previous.lastTransitionTime ?? now) : now;
  return { type: TIDB_OPERATOR_CONDITION, status: 'True', reason: TIDB_OPERATOR_REASON, message, lastUpdateTime: now, lastTransitionTime: since };
}

/**
 * The state writes that persist a verdict of `kind` until `recheckAtMs`: the other verdict deleted
 * when it was the one stored; `sinceMs` kept while the verdict stays the same.
 */
function persistVerdict(cached: DeadlineSpec | undefined, kind: string, nowMs: number, recheckAtMs: number): Action[] {
  const ref = { component: VERDICT_COMPONENT, member: VERDICT_MEMBER };
  const sinceMs = cached?.kind === kind ? cached.sinceMs : nowMs;
  const put: Action = { kind: 'state.putDeadline', deadline: { ...ref, kind, sinceMs, deadlineAtMs: recheckAtMs } };
  if (cached === undefined || cached.kind === kind) return [put];
  return [{ kind: 'state.deleteDeadline', deadline: { ...ref, kind: cached.kind } }, put];
}
