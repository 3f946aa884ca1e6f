import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import {
  RECHECK_WHILE_ABSENT_MS,
  RECHECK_WHILE_RUNNING_MS,
  TAKE_OVER_ANNOTATION,
  VERDICT_KIND,
  detectOperator,
  leaseHeld,
  operatorCheckDue,
  operatorWrite,
  type ObservedOperator,
  type OperatorObservation,
} from '../../../../lib/model/tidb-operator.js';
import { TAKE_OVER_EVENT, TIDB_OPERATOR_CONDITION, TIDB_OPERATOR_EVENT, planCoexistence } from '../../../../lib/reconcile/cluster/coexistence.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { T0, changeStatus, healthy, snapshot, tidbCluster, withCluster, withDeadlines, type Change } from '../../../support/fixtures.js';

const operator = (o: Partial<ObservedOperator> = {}): ObservedOperator => ({ namespace: 'tidb-admin', name: 'tidb-controller-manager', readyReplicas: 1, clusterScoped: true, ...o });
const lease = (renewAgoMs: number, holder = 'tidb-controller-manager-7d9f-abcde', durationS = 15) => ({ holderIdentity: holder, renewTimeMs: T0 - renewAgoMs, leaseDurationMs: durationS * 1000 });
const seen = (...operators: ObservedOperator[]): OperatorObservation => ({ operators, scope: 'cluster' });

describe('whether a TiDB Operator manages the cluster (namespace demo, now T0)', () => {
  it.each([
    { name: 'none installed', observed: seen(), want: false },
    { name: 'a cluster-scoped operator with a ready replica, in another namespace', observed: seen(operator()), want: true },
    { name: 'scaled to 0, its Lease expired', observed: seen(operator({ readyReplicas: 0, lease: lease(16_000) })), want: false },
    { name: 'scaled to 0, its Lease renewed 3 s ago (the pod still stopping)', observed: seen(operator({ readyReplicas: 0, lease: lease(3_000) })), want: true },
    { name: 'scaled to 0, its Lease renewed exactly a lease duration ago', observed: seen(operator({ readyReplicas: 0, lease: lease(15_000) })), want: false },
    { name: 'scaled to 0, a 60 s lease renewed 30 s ago', observed: seen(operator({ readyReplicas: 0, lease: lease(30_000, 'p', 60) })), want: true },
    { name: 'scaled to 0, a Lease with no holder', observed: seen(operator({ readyReplicas: 0, lease: lease(1_000, '') })), want: false },
    { name: 'namespace-scoped (-cluster-scoped=false) in another namespace', observed: seen(operator({ clusterScoped: false })), want: false },
    { name: 'namespace-scoped in the cluster\'s namespace', observed: seen(operator({ clusterScoped: false, namespace: 'demo' })), want: true },
    { name: 'a stopped one beside a running one', observed: seen(operator({ name: 'tidb-controller-manager-a', readyReplicas: 0 }), operator({ name: 'tidb-controller-manager-b' })), want: true },
  ])('$name: $want', ({ observed, want }) => {
    expect(detectOperator(observed, 'demo', T0).running).toBe(want);
  });

  it('names the first running operator in name order, with what shows it runs', () => {
    const verdict = detectOperator(seen(operator({ namespace: 'b' }), operator({ namespace: 'a', lease: lease(1_000, 'pod-a') })), 'demo', T0);
    expect(verdict).toEqual({ running: true, operator: expect.objectContaining({ namespace: 'a' }), evidence: '1 ready replica, Lease a/tidb-controller-manager held by pod-a' });
  });

  it.each([
    { name: 'no lease', lease: undefined, want: false },
    { name: 'no renew time', lease: { holderIdentity: 'p' }, want: false },
    { name: 'no duration: client-go\'s 15 s', lease: { holderIdentity: 'p', renewTimeMs: T0 - 14_999 }, want: true },
  ])('a Lease with $name is held: $want', ({ lease: l, want }) => {
    expect(leaseHeld(l, T0)).toBe(want);
  });
});

const verdict = (kind: string, deadlineAtMs: number) => ({ component: 'cluster', member: 'tidb-operator', kind, sinceMs: T0 - 60_000, deadlineAtMs });

describe('when a step reads TiDB Operator', () => {
  it.each([
    { name: 'no verdict yet', deadlines: [], annotations: undefined, want: true },
    { name: 'a verdict not due', deadlines: [verdict(VERDICT_KIND.absent, T0 + 1)], annotations: undefined, want: false },
    { name: 'a verdict due', deadlines: [verdict(VERDICT_KIND.running, T0)], annotations: undefined, want: true },
    { name: 'another deadline only', deadlines: [{ ...verdict('failover', T0 + 1), component: 'tikv' }], annotations: undefined, want: true },
    { name: 'told to take over', deadlines: [], annotations: { [TAKE_OVER_ANNOTATION]: 'true' }, want: false },
    { name: 'a take-over annotation that is not "true"', deadlines: [], annotations: { [TAKE_OVER_ANNOTATION]: 'yes' }, want: true },
  ])('$name: $want', ({ deadlines, annotations, want }) => {
    expect(operatorCheckDue(deadlines, T0, annotations)).toBe(want);
  });
});

const running: Change<Snapshot> = (s) => ({ ...s, tidbOperator: seen(operator()) });
const stopped: Change<Snapshot> = (s) => ({ ...s, tidbOperator: seen(operator({ readyReplicas: 0, lease: lease(20_000) })) });
const takeOver: Change<TidbCluster> = (tc) => ({ ...tc, metadata: { ...tc.metadata, annotations: { ...tc.metadata.annotations, [TAKE_OVER_ANNOTATION]: 'true' } } });
const input = (tc: TidbCluster, ...changes: Change<Snapshot>[]) => ({ snapshot: snapshot(withCluster(tc), ...changes), cluster: tc, status: tc.status ?? {} });
const withConditionOf = (conditions: NonNullable<TidbCluster['status']>['conditions']): Change<TidbCluster> => changeStatus((s) => ({ ...s, conditions: conditions ?? [] }));

describe('the Coexistence rule', () => {
  it('refuses a cluster a running operator manages: condition, one Warning Event, the verdict kept a minute, the step halted', () => {
    const decision = planCoexistence(input(tidbCluster(healthy()), running));
    expect(decision.halt).toBe(true);
    expect(decision.outcome).toEqual(expect.objectContaining({ kind: 'wait' }));
    expect(decision.wakeAtMs).toBe(T0 + RECHECK_WHILE_RUNNING_MS);
    expect(decision.actions).toEqual([
      { kind: 'state.putDeadline', deadline: { component: 'cluster', member: 'tidb-operator', kind: VERDICT_KIND.running, sinceMs: T0, deadlineAtMs: T0 + RECHECK_WHILE_RUNNING_MS } },
      expect.objectContaining({ kind: 'event', type: 'Warning', reason: TIDB_OPERATOR_EVENT, message: expect.stringContaining('tidb-admin/tidb-controller-manager runs and manages this TidbCluster') }),
    ]);
    expect(decision.status?.conditions?.find((c) => c.type === TIDB_OPERATOR_CONDITION)).toEqual(expect.objectContaining({ status: 'True', reason: 'ControllerManagerRunning' }));
  });

  it('records no second Event while the same operator runs, and changes no status', () => {
    const first = planCoexistence(input(tidbCluster(healthy()), running));
    const tc = tidbCluster(healthy(), withConditionOf(first.status?.conditions));
    const again = planCoexistence(input(tc, running, withDeadlines(verdict(VERDICT_KIND.running, T0))));
    expect(again.actions.map((a) => a.kind)).toEqual(['state.putDeadline']);
    expect(again.status).toBeUndefined();
    expect(again.halt).toBe(true);
  });

  it('between re-checks keeps refusing on the persisted verdict, reading and writing nothing, woken at the re-check', () => {
    const first = planCoexistence(input(tidbCluster(healthy()), running));
    const tc = tidbCluster(healthy(), withConditionOf(first.status?.conditions));
    const between = planCoexistence(input(tc, withDeadlines(verdict(VERDICT_KIND.running, T0 + 30_000))));
    expect(between).toEqual(expect.objectContaining({ actions: [], halt: true, wakeAtMs: T0 + 30_000 }));
    expect(between.status).toBeUndefined();
  });

  it('takes over once the operator stopped: the condition removed with a Normal Event, the absent verdict replacing the running one', () => {
    const first = planCoexistence(input(tidbCluster(healthy()), running));
    const tc = tidbCluster(healthy(), withConditionOf(first.status?.conditions));
    const next = planCoexistence(input(tc, stopped, withDeadlines(verdict(VERDICT_KIND.running, T0))));
    expect(next.halt).toBeUndefined();
    expect(next.outcome.kind).toBe('complete');
    expect(next.status?.conditions?.some((c) => c.type === TIDB_OPERATOR_CONDITION)).toBe(false);
    expect(next.actions).toEqual([
      { kind: 'state.deleteDeadline', deadline: { component: 'cluster', member: 'tidb-operator', kind: VERDICT_KIND.running } },
      { kind: 'state.putDeadline', deadline: { component: 'cluster', member: 'tidb-operator', kind: VERDICT_KIND.absent, sinceMs: T0, deadlineAtMs: T0 + RECHECK_WHILE_ABSENT_MS } },
      expect.objectContaining({ kind: 'event', type: 'Normal', reason: TAKE_OVER_EVENT }),
    ]);
  });

  it.each([
    { name: 'while the operator runs', changes: [running] },
    { name: 'on a persisted running verdict', changes: [withDeadlines(verdict(VERDICT_KIND.running, T0 + 30_000))] },
  ])('with the take-over annotation acts $name, removing the condition once with a Normal Event', ({ changes }) => {
    const first = planCoexistence(input(tidbCluster(healthy()), running));
    const tc = tidbCluster(healthy(), takeOver, withConditionOf(first.status?.conditions));
    const decision = planCoexistence(input(tc, ...changes));
    expect(decision.halt).toBeUndefined();
    expect(decision.actions).toEqual([expect.objectContaining({ kind: 'event', type: 'Normal', reason: TAKE_OVER_EVENT, message: expect.stringContaining(TAKE_OVER_ANNOTATION) })]);
    expect(decision.status?.conditions?.some((c) => c.type === TIDB_OPERATOR_CONDITION)).toBe(false);
    const later = planCoexistence(input(tidbCluster(healthy(), takeOver), ...changes));
    expect(later).toEqual({ actions: [], outcome: { kind: 'complete' } });
  });

  it('in the recipe, halts the whole step: no other rule runs, not even the status rules', () => {
    const tc = tidbCluster(withSpecReplicas(5));
    const plan = planStep(snapshot(withCluster(tc), running), clusterRules);
    expect(plan.ruleResults.map((r) => r.rule)).toEqual(['Coexistence']);
    expect(plan.actions.every((a) => a.kind === 'state.putDeadline' || a.kind === 'event')).toBe(true);
    expect(plan.nextWakeAtMs).toBe(T0 + RECHECK_WHILE_RUNNING_MS);
    const free = planStep(snapshot(withCluster(tc), stopped), clusterRules);
    expect(free.ruleResults.length).toBeGreaterThan(1);
  });
});

function withSpecReplicas(replicas: number): Change<TidbCluster> {
  return (tc) => ({ ...tc, spec: { ...tc.spec, pd: { ...tc.spec.pd, replicas } } });
}

describe('writes by TiDB Operator (managedFields), the sign that needs no read', () => {
  const entry = (manager: string, agoMs: number, subresource?: string) => ({ manager, operation: 'Update', time: new Date(T0 - agoMs).toISOString().replace('.000Z', 'Z'), ...(subresource ? { subresource } : {}) });
  const tc = (...entries: object[]) => ({ kind: 'TidbCluster', metadata: { name: 'basic', managedFields: entries } });
  const sts = (...entries: object[]) => ({ kind: 'StatefulSet', metadata: { name: 'basic-tikv', managedFields: entries } });

  it.each([
    { name: 'no managedFields', objects: [{ kind: 'TidbCluster', metadata: { name: 'basic' } }], want: undefined },
    { name: 'the operator wrote the status a minute ago, the reconciler never', objects: [tc(entry('tidb-controller-manager', 60_000, 'status'))], want: 'TidbCluster basic' },
    { name: 'the operator wrote 6 minutes ago: only that it once managed it', objects: [tc(entry('tidb-controller-manager', 360_000, 'status'))], want: undefined },
    { name: 'the reconciler wrote the StatefulSet after the operator', objects: [sts(entry('tidb-controller-manager', 60_000), entry('tidb-reconciler', 30_000))], want: undefined },
    { name: 'the operator wrote the StatefulSet after the reconciler', objects: [sts(entry('tidb-reconciler', 60_000), entry('tidb-controller-manager', 30_000))], want: 'StatefulSet basic-tikv' },
    { name: "the reconciler's own status write (its refusal's condition) does not lift it", objects: [tc(entry('tidb-controller-manager', 60_000, 'status'), entry('tidb-reconciler', 10_000, 'status'))], want: 'TidbCluster basic' },
    { name: 'another manager (kube-controller-manager) is not TiDB Operator', objects: [sts(entry('kube-controller-manager', 1_000, 'status'))], want: undefined },
  ])('$name: $want', ({ objects, want }) => {
    expect(operatorWrite(objects, T0)?.object).toBe(want);
  });

  it('the rule refuses on a recent write with no Deployment found, woken when the write is a minute older', () => {
    const written = tidbCluster(healthy(), (c) => ({ ...c, metadata: { ...c.metadata, managedFields: [entry('tidb-controller-manager', 20_000, 'status')] } }));
    const decision = planCoexistence(input(written, (s) => ({ ...s, tidbOperator: seen() })));
    expect(decision.halt).toBe(true);
    expect(decision.wakeAtMs).toBe(T0 + RECHECK_WHILE_RUNNING_MS);
    expect(decision.actions).toEqual([
      expect.objectContaining({ kind: 'state.putDeadline', deadline: expect.objectContaining({ kind: VERDICT_KIND.absent }) }),
      expect.objectContaining({ kind: 'event', type: 'Warning', reason: TIDB_OPERATOR_EVENT, message: expect.stringContaining('field manager tidb-controller-manager') }),
    ]);
  });
});
