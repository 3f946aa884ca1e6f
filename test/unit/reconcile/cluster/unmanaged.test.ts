import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../lib/model/kube.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { UNMANAGED_CONDITION, UNMANAGED_REASON, managedSections, planUnmanaged, unmanagedSections } from '../../../../lib/reconcile/cluster/unmanaged.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { actRule, type Rule } from '../../../../lib/reconcile/engine/rule.js';
import { changeStatus, snapshot, tidbCluster, withCluster, withSpec, type Change } from '../../../support/fixtures.js';

const pdOnly: Change<TidbCluster> = withSpec({ tikv: undefined, tidb: undefined });
const withTiproxy: Change<TidbCluster> = withSpec({ tiproxy: { baseImage: 'pingcap/tiproxy', replicas: 1 } });
const withPdms: Change<TidbCluster> = withSpec({ pdms: [{ name: 'tso', replicas: 2 }] } as Partial<TidbCluster['spec']>);
const managedPd = new Set(['pd']);
const input = (tc: TidbCluster) => ({ snapshot: snapshot(withCluster(tc)), cluster: tc, status: tc.status ?? {} });

describe('which sections are unmanaged', () => {
  it.each([
    { name: 'a PD-only cluster under a PD recipe has none', tc: tidbCluster(pdOnly), managed: managedPd, want: [] },
    { name: 'TiProxy and PD microservices are named, in the order TiDB Operator runs them', tc: tidbCluster(pdOnly, withTiproxy, withPdms), managed: managedPd, want: ['pdms', 'tiproxy'] },
    { name: 'a component whose declaration is not in the recipe is named', tc: tidbCluster(), managed: managedPd, want: ['tikv', 'tidb'] },
    { name: 'a declared component is not', tc: tidbCluster(), managed: new Set(['pd', 'tikv', 'tidb']), want: [] },
  ])('$name', ({ tc, managed, want }) => {
    expect(unmanagedSections(tc.spec as Record<string, unknown>, managed)).toEqual(want);
  });

  it('the recipe names the section of each component block it runs', () => {
    expect(managedSections(clusterRules).has('pd')).toBe(true);
    expect(managedSections(clusterRules).has('pdms')).toBe(true);
    expect(managedSections(clusterRules).has('tiproxy')).toBe(true);
  });
});

describe('the Unmanaged rule', () => {
  it('reports a new unmanaged section once: a Warning Event and the condition naming it', () => {
    // Act
    const decision = planUnmanaged(input(tidbCluster(pdOnly, withTiproxy)), managedPd);
    // Assess
    expect(decision.actions).toEqual([expect.objectContaining({ kind: 'event', type: 'Warning', reason: UNMANAGED_REASON, message: expect.stringContaining('spec.tiproxy (TiProxy) is not reconciled') })]);
    expect(decision.status?.conditions).toEqual([expect.objectContaining({ type: UNMANAGED_CONDITION, status: 'True', reason: UNMANAGED_REASON })]);
    expect(decision.stop).toBeUndefined();
    expect(decision.outcome.kind).toBe('complete');
  });

  it('says nothing again while the same sections stay unmanaged', () => {
    const first = planUnmanaged(input(tidbCluster(pdOnly, withTiproxy)), managedPd);
    const tc = tidbCluster(pdOnly, withTiproxy, changeStatus((s) => ({ ...s, conditions: first.status?.conditions ?? [] })));
    const again = planUnmanaged(input(tc), managedPd);
    expect(again.actions).toEqual([]);
    expect(again.status).toBeUndefined();
  });

  it('reports again when another section becomes unmanaged, keeping when the condition began', () => {
    const first = planUnmanaged(input(tidbCluster(pdOnly, withTiproxy)), managedPd);
    const tc = tidbCluster(pdOnly, withTiproxy, withPdms, changeStatus((s) => ({ ...s, conditions: first.status?.conditions ?? [] })));
    const next = planUnmanaged({ ...input(tc), snapshot: snapshot(withCluster(tc), (s) => ({ ...s, nowMs: s.nowMs + 60_000 })) }, managedPd);
    expect(next.actions).toHaveLength(1);
    const [was, now] = [first.status?.conditions?.[0], next.status?.conditions?.[0]];
    expect(now?.lastTransitionTime).toBe(was?.lastTransitionTime);
    expect(now?.message).toContain('spec.pdms (PD microservices), spec.tiproxy (TiProxy) are not reconciled');
  });

  it('removes the condition once the section is gone, with no Event', () => {
    const first = planUnmanaged(input(tidbCluster(pdOnly, withTiproxy)), managedPd);
    const tc = tidbCluster(pdOnly, changeStatus((s) => ({ ...s, conditions: first.status?.conditions ?? [] })));
    const after = planUnmanaged(input(tc), managedPd);
    expect(after.actions).toEqual([]);
    expect(after.status?.conditions).toEqual([]);
  });

  it('does not block the rest: in the same step PD is created as for any cluster', () => {
    // Every section is reconciled today; a recipe without its TiProxy and PD microservices blocks
    // stands for one that lacks a component a later TiDB Operator adds.
    const lacking: readonly Rule[] = clusterRules
      .filter((rule) => !(rule.kind === 'block' && (rule.section === 'tiproxy' || rule.section === 'pdms')))
      .map((rule) => (rule.name === 'Unmanaged' ? actRule('Unmanaged', (input) => planUnmanaged(input, managedSections(lacking))) : rule));
    const plan = planStep(snapshot(withCluster(tidbCluster(pdOnly, withTiproxy, withPdms))), lacking);
    const created = plan.actions.flatMap((a) => (a.kind === 'create' ? [`${a.ref.kind}/${a.ref.name}`] : []));
    expect(created).toEqual(expect.arrayContaining(['Service/basic-pd', 'ConfigMap/basic-pd', 'StatefulSet/basic-pd', 'Deployment/basic-discovery']));
    expect(plan.actions.filter((a) => a.kind === 'event' && a.reason === UNMANAGED_REASON)).toHaveLength(1);
    expect(plan.status?.conditions?.map((c) => c.type)).toContain(UNMANAGED_CONDITION);
  });

  it('a paused cluster gets no Event (status only)', () => {
    const plan = planStep(snapshot(withCluster(tidbCluster(pdOnly, withTiproxy, withSpec({ paused: true })))), clusterRules);
    expect(plan.actions).toEqual([]);
  });
});
