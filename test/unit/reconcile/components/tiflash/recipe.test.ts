import { describe, expect, it } from '@jest/globals';

import type { Action } from '../../../../../lib/model/action.js';
import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { PdView } from '../../../../../lib/model/pd.js';
import { clusterRules } from '../../../../../lib/reconcile/cluster/recipe.js';
import { retry, wait } from '../../../../../lib/reconcile/engine/outcome.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { ruleNames } from '../../../../../lib/reconcile/engine/rule.js';
import { tiflashRules } from '../../../../../lib/reconcile/components/tiflash/recipe.js';
import { changeStatus, healthyStatus, pdMemberView, pdViewOf, snapshot, testPvc, tidbCluster, withCluster, withOwned, withPd, type Change } from '../../../../support/fixtures.js';
import { tiflashSetOf, withTiflash } from '../../../../support/tiflash-rules.js';

const written = (actions: readonly Action[]) => actions.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : a.kind));
const pdAvailable: Change<TidbCluster> = changeStatus((s) => ({ ...s, pd: healthyStatus().pd }));
const pdWith = (placementRules: boolean | undefined): PdView => {
  const view = pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0');
  return { ...view, bootstrapped: true, config: { replication: { maxReplicas: 3, locationLabels: [], ...view.config?.replication, ...(placementRules === undefined ? {} : { enablePlacementRules: placementRules }) } } } as PdView;
};

describe('TiFlash on the member recipe', () => {
  it('runs its own gates (placement rules, an old set at 0) inside the shared recipe, named after it', () => {
    expect(ruleNames(tiflashRules)).toEqual([
      'act:TiflashGate',
      'status:TiflashStatus',
      'act:TiflashSuspend',
      'act:TiflashDependencies',
      'act:TiflashPlacementRules',
      'act:TiflashOldSet',
      'act:TiflashServices',
      'act:TiflashConfigMap',
      'act:TiflashStoreIds',
      'act:TiflashFailoverRecovery',
      'act:TiflashScale',
      'act:TiflashFailover',
      'act:TiflashUpgrade',
      'act:TiflashStatefulSet',
    ]);
  });

  it('comes after PD and before everything else in the cluster recipe (TiDB Operator v1 order)', () => {
    const names = ruleNames(clusterRules);
    expect(names.indexOf('act:TiflashGate')).toBeGreaterThan(names.indexOf('act:PdStatefulSet'));
    expect(names.indexOf('act:TiflashGate')).toBeLessThan(names.indexOf('status:ClusterStatus'));
  });

  it('writes its Service and ConfigMap while PD is not available, but not its StatefulSet', () => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(withTiflash(1)))), tiflashRules);
    // Assess
    expect(written(plan.actions)).toEqual(['create Service/basic-tiflash-peer', 'create ConfigMap/basic-tiflash']);
    expect(plan.outcome).toEqual(wait('TiFlash waits for pd to be available before its StatefulSet is created'));
  });

  it('creates its StatefulSet once PD is available: data claims, peer Service, partition = replicas', () => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(withTiflash(2), pdAvailable))), tiflashRules);
    // Assess
    expect(written(plan.actions)).toEqual(['create Service/basic-tiflash-peer', 'create ConfigMap/basic-tiflash', 'create StatefulSet/basic-tiflash']);
    const sts = plan.actions.flatMap((a) => (a.kind === 'create' && a.ref.kind === 'StatefulSet' ? [a.object] : []))[0];
    expect(sts?.spec).toMatchObject({
      replicas: 2,
      serviceName: 'basic-tiflash-peer',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      volumeClaimTemplates: [{ metadata: { name: 'data0' } }],
    });
    expect(plan.status?.tiflash).toEqual({ statefulSet: { replicas: 0 } });
  });

  it.each([
    { name: 'PD says placement rules are off: it asks PD to turn them on, first', rules: false, first: ['pd.setReplication'] },
    { name: 'PD has them on: nothing to ask', rules: true, first: [] },
    { name: 'PD does not say (before v4): nothing to ask', rules: undefined, first: [] },
  ])('$name', ({ rules, first }) => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(withTiflash(1), pdAvailable)), withPd(pdWith(rules))), tiflashRules);
    // Assess
    expect(written(plan.actions)).toEqual([...first, 'create Service/basic-tiflash-peer', 'create ConfigMap/basic-tiflash', 'create StatefulSet/basic-tiflash']);
    if (rules === false) expect(plan.actions[0]).toEqual({ kind: 'pd.setReplication', change: { enablePlacementRules: true } });
  });

  it('deletes a StatefulSet left at 0 replicas when TiFlash is scaled up again, instead of scaling it (P21)', () => {
    // Prepare
    const tc = tidbCluster(withTiflash(1), pdAvailable);
    const old = tiflashSetOf(tidbCluster(withTiflash(0)), { replicas: 0, updatedReplicas: 0 });
    // Act
    const plan = planStep(snapshot(withCluster(tc), withOwned('StatefulSet', old)), tiflashRules);
    // Assess
    expect(plan.actions).toEqual([{ kind: 'delete', ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-tiflash' }, uid: 'uid-sts-tiflash' }]);
    expect(plan.outcome).toEqual(retry(5_000, 'wait for previous sts basic-tiflash for cluster demo/basic to be deleted'));
  });

  it('deletes the defer-deleting PVC of a tombstoned store before making the StatefulSet again, so the pod starts on a fresh volume (P21)', () => {
    // Prepare: the set was deleted after TiFlash went to 0; data0-basic-tiflash-0 was marked by that scale-in
    const tc = tidbCluster(withTiflash(1), pdAvailable);
    const marked = testPvc('data0-basic-tiflash-0', 'basic-tiflash-0', { annotations: { 'tidb.pingcap.com/pvc-defer-deleting': '2025-12-31T00:00:00Z' } });
    // Act
    const first = planStep(snapshot(withCluster(tc), withOwned('PersistentVolumeClaim', marked)), tiflashRules);
    const then = planStep(snapshot(withCluster(tc)), tiflashRules);
    // Assess
    expect(written(first.actions)).toEqual(['delete PersistentVolumeClaim/data0-basic-tiflash-0']);
    expect(first.outcome).toEqual(retry(5_000, 'deleting the defer-deleting PVCs of TiFlash before its StatefulSet is created'));
    expect(written(then.actions)).toContain('create StatefulSet/basic-tiflash');
  });
});
