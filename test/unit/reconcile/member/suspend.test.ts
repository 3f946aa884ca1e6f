import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster, TidbClusterStatus } from '../../../../lib/model/kube.js';
import { componentLabels } from '../../../../lib/model/labels.js';
import { pdRules } from '../../../../lib/reconcile/components/pd/recipe.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { isSuspendWanted, whyNotSuspendable } from '../../../../lib/reconcile/member/suspend.js';
import { changeStatus, healthyStatus, snapshot, tidbCluster, withCluster, withOwned, withSpec, withStatus, type Change } from '../../../support/fixtures.js';

const askAll: Change<TidbCluster> = withSpec({ suspendAction: { suspendStatefulSet: true } });
const pdOnly: Change<TidbCluster> = withSpec({ tikv: undefined, tidb: undefined });
const pdPhase = (phase: string): Change<TidbCluster> => changeStatus((s) => ({ ...s, pd: { ...s.pd, phase } }));

function pdSet(tc: TidbCluster, deleting = false): IStatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'basic-pd', namespace: 'demo', uid: 'uid-sts-pd', resourceVersion: '9', labels: componentLabels(tc, 'pd'), ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { replicas: 3, selector: { matchLabels: componentLabels(tc, 'pd') }, serviceName: 'basic-pd-peer', template: {} },
    status: { replicas: 3, readyReplicas: 3, currentRevision: 'r1', updateRevision: 'r1' },
  };
}

describe('who is asked to suspend, and when it may (TiDB Operator suspender)', () => {
  it.each([
    { name: 'the cluster-wide ask reaches every component', tc: tidbCluster(askAll), component: 'tikv' as const, wanted: true },
    { name: "a component's own ask overrides the cluster's", tc: tidbCluster(askAll, withSpec({ tidb: { replicas: 2, suspendAction: { suspendStatefulSet: false } } })), component: 'tidb' as const, wanted: false },
    { name: 'a component the cluster does not have is never suspended', tc: tidbCluster(askAll), component: 'ticdc' as const, wanted: false },
    { name: 'no ask, no suspension', tc: tidbCluster(), component: 'pd' as const, wanted: false },
  ])('$name', ({ tc, component, wanted }) => {
    expect(isSuspendWanted(tc, component)).toBe(wanted);
  });

  const status = (change: (s: TidbClusterStatus) => TidbClusterStatus): TidbClusterStatus => change(healthyStatus());
  it.each([
    { name: 'PD waits for TiDB, asked too, to be suspended first', status: status((s) => s), component: 'pd' as const, why: 'waiting for tidb to be suspended' },
    { name: 'TiKV waits for TiDB the same way', status: status((s) => s), component: 'tikv' as const, why: 'waiting for tidb to be suspended' },
    { name: 'TiDB, first in the order, may go at once', status: status((s) => s), component: 'tidb' as const, why: undefined },
    { name: 'a component in Upgrade may not', status: status((s) => ({ ...s, tidb: { ...s.tidb, phase: 'Upgrade' } })), component: 'tidb' as const, why: 'phase is Upgrade, not Normal or Suspend' },
    {
      name: 'PD may once TiDB and TiKV are Suspend with no StatefulSet recorded',
      status: status((s) => ({ ...s, tidb: { phase: 'Suspend' }, tikv: { phase: 'Suspend' } })),
      component: 'pd' as const,
      why: undefined,
    },
    {
      name: 'a component whose StatefulSet is still recorded is not suspended yet',
      status: status((s) => ({ ...s, tidb: { phase: 'Suspend' }, tikv: { ...s.tikv, phase: 'Suspend' } })),
      component: 'pd' as const,
      why: 'waiting for tikv to be suspended',
    },
  ])('$name', ({ status: st, component, why }) => {
    expect(whyNotSuspendable(tidbCluster(askAll), st, component)).toBe(why);
  });
});

describe('a suspended component, step by step (PD as the example; every member block has the rule)', () => {
  const base = (...changes: Change<TidbCluster>[]): TidbCluster => tidbCluster(pdOnly, withStatus(healthyStatus()), ...changes);

  it('first step: phase Suspend and nothing else is written for the component', () => {
    const tc = base(askAll);
    const plan = planStep(snapshot(withCluster(tc), withOwned('StatefulSet', pdSet(tc))), pdRules);
    expect(plan.actions).toEqual([]);
    expect(plan.status?.pd?.phase).toBe('Suspend');
    expect(plan.outcome.kind).toBe('retry');
  });

  it('next step: the StatefulSet is deleted in the foreground, only the one observed', () => {
    const tc = base(askAll, pdPhase('Suspend'));
    const plan = planStep(snapshot(withCluster(tc), withOwned('StatefulSet', pdSet(tc))), pdRules);
    expect(plan.actions).toEqual([{ kind: 'delete', ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd' }, uid: 'uid-sts-pd', propagationPolicy: 'Foreground' }]);
    expect(plan.status?.pd?.phase ?? tc.status?.pd?.phase).toBe('Suspend');
  });

  it('while the StatefulSet terminates nothing is asked again', () => {
    const tc = base(askAll, pdPhase('Suspend'));
    const plan = planStep(snapshot(withCluster(tc), withOwned('StatefulSet', pdSet(tc, true))), pdRules);
    expect(plan.actions).toEqual([]);
    expect(plan.outcome.kind).toBe('wait');
  });

  it('once it is gone the status keeps the phase and drops the StatefulSet, synced and the members', () => {
    const tc = base(askAll, pdPhase('Suspend'), changeStatus((s) => ({ ...s, pd: { ...s.pd, leader: { name: 'basic-pd-0', id: '1', clientURL: '', health: true } } })));
    const plan = planStep(snapshot(withCluster(tc)), pdRules);
    expect(plan.actions).toEqual([]);
    expect(plan.status?.pd).toEqual({ phase: 'Suspend', synced: false });
  });

  it('a suspended component at rest writes nothing', () => {
    const tc = base(askAll, changeStatus((s) => ({ ...s, pd: { phase: 'Suspend', synced: false } })));
    const plan = planStep(snapshot(withCluster(tc)), pdRules);
    expect(plan.actions).toEqual([]);
    expect(plan.status).toBeUndefined();
  });

  it('withdrawing the ask sets the phase back to Normal; the step after recreates the StatefulSet', () => {
    const suspended = base(changeStatus((s) => ({ ...s, pd: { phase: 'Suspend', synced: false } })));
    const resumed = planStep(snapshot(withCluster(suspended)), pdRules);
    expect(resumed.actions).toEqual([]);
    expect(resumed.status?.pd?.phase).toBe('Normal');
    const next = planStep(snapshot(withCluster(base(changeStatus((s) => ({ ...s, pd: { phase: 'Normal', synced: false } }))))), pdRules);
    expect(next.actions.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : a.kind))).toContain('create StatefulSet/basic-pd');
  });
});
