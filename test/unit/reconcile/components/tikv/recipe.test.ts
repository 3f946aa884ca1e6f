import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { Plan } from '../../../../../lib/model/plan.js';
import { pdRules } from '../../../../../lib/reconcile/components/pd/recipe.js';
import { tikvRules } from '../../../../../lib/reconcile/components/tikv/recipe.js';
import { tikvPeerService } from '../../../../../lib/reconcile/components/tikv/services.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { ruleNames } from '../../../../../lib/reconcile/engine/rule.js';
import {
  changeSpec,
  convergedPdObjects,
  pdMemberView,
  pdViewOf,
  ruleInputOf,
  snapshot,
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  type Change,
} from '../../../../support/fixtures.js';
import { labelled, pdStore, tikvInputOf, tikvPod, tikvSetOf, withStoreIds, withStores } from '../../../../support/tikv-rules.js';

const CLUSTER_ID = '6800000000000000001';

const rules = [...pdRules, ...tikvRules];
const noTidb = changeSpec((spec) => ({ ...spec, tidb: undefined }));
const tikvReplicas = (replicas: number): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, tikv: { ...spec.tikv, replicas } }));
const written = (plan: Plan): string[] => plan.actions.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : a.kind));
const resultOf = (plan: Plan, rule: string) => plan.ruleResults.find((r) => r.rule === rule);

/** PD converged (its status computed by the PD rules of the same step) and TiKV's own objects, if any. */
function world(tc: TidbCluster, ...tikv: Change<ReturnType<typeof snapshot>>[]) {
  return snapshot(withCluster(tc), ...convergedPdObjects(tc), ...tikv);
}

/** TiKV's objects as the rules write them, with 3 Ready pods (their store ids recorded and labelled) and 3 Up stores in PD. */
function tikvObjects(tc: TidbCluster, replicas = 3): Change<ReturnType<typeof snapshot>>[] {
  const input = tikvInputOf(ruleInputOf(snapshot(withCluster(tc))));
  const ordinals = [...Array(replicas).keys()];
  const members = [0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`, { ready: true }));
  return [
    withOwned('Service', tikvPeerService(tc)),
    withOwned('ConfigMap', input.scope.configMap().configMap),
    withOwned('StatefulSet', tikvSetOf(tc, { replicas })),
    withOwned('Pod', ...ordinals.map((i) => labelled(tikvPod(i, { revision: 'rev-1' }), { 'tidb.pingcap.com/store-id': String(i + 1), 'tidb.pingcap.com/cluster-id': CLUSTER_ID }))),
    withStoreIds(...ordinals.map((i): [string, string] => [`basic-tikv-${i}`, String(i + 1)])),
    withPd(withStores(pdViewOf(members, 'basic-pd-1', CLUSTER_ID), ...ordinals.map((i) => pdStore(String(i + 1))))),
  ];
}

describe('the TiKV recipe (tikvRules)', () => {
  it('runs in the order of the member recipe (TiDB Operator v1 §1.4)', () => {
    expect(ruleNames(tikvRules)).toEqual([
      'act:TikvGate',
      'status:TikvStatus',
      'act:TikvSuspend',
      'act:TikvDependencies',
      'act:TikvServices',
      'act:TikvConfigMap',
      'act:TikvFailoverRecovery',
      'act:TikvStoreIds',
      'act:TikvStoreLabels',
      'act:TikvEvictLeaderCleanup',
      'act:TikvScale',
      'act:TikvFailover',
      'act:TikvUpgrade',
      'act:TikvStatefulSet',
    ]);
  });

  it('§1.5: while PD is not available TiKV writes nothing and waits', () => {
    // Prepare: PD's objects exist but PD answers with no member
    const tc = tidbCluster(noTidb);
    const s = snapshot(withCluster(tc), ...convergedPdObjects(tc), withPd(pdViewOf([])));

    // Act
    const plan = planStep(s, rules);

    // Assess
    expect(written(plan).filter((w) => w.includes('tikv'))).toEqual([]);
    expect(resultOf(plan, 'TikvDependencies')?.outcome).toEqual({ kind: 'wait', message: 'TiKV waits for pd to be available' });
  });

  it('once PD is available, the first step creates the peer Service, the ConfigMap and the StatefulSet', () => {
    // Act
    const plan = planStep(world(tidbCluster(noTidb)), rules);

    // Assess
    expect(written(plan)).toEqual(['create Service/basic-tikv-peer', 'create ConfigMap/basic-tikv', 'create StatefulSet/basic-tikv']);
    const sts = plan.actions.find((a) => a.kind === 'create' && a.ref.kind === 'StatefulSet');
    expect(sts?.kind === 'create' ? sts.object.spec : undefined).toMatchObject({
      replicas: 3,
      serviceName: 'basic-tikv-peer',
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 3 } },
    });
  });

  it('a converged PD + TiKV cluster syncs its stores, then plans nothing', () => {
    // Prepare
    const tc = tidbCluster(noTidb);
    const first = planStep(world(tc, ...tikvObjects(tc)), rules);
    const synced = { ...tc, status: first.status ?? {} };

    // Act
    const second = planStep(world(synced, ...tikvObjects(synced)), rules);

    // Assess
    expect(first.actions).toEqual([]);
    expect(first.status?.tikv).toMatchObject({ synced: true, bootStrapped: true, phase: 'Normal' });
    expect(Object.keys(first.status?.tikv?.stores ?? {})).toEqual(['1', '2', '3']);
    expect(second.actions).toEqual([]);
    expect(second.status).toBeUndefined();
  });

  it('a scale-in that would leave fewer Up stores than max-replicas is refused: one FailedScaleIn Warning, nothing else written', () => {
    // Prepare: spec 2 against a StatefulSet of 3, 3 Up stores, PD max-replicas 3, status synced
    const tc = tidbCluster(noTidb, tikvReplicas(2));
    const synced = { ...tc, status: planStep(world(tc, ...tikvObjects(tc)), rules).status ?? {} };

    // Act
    const plan = planStep(world(synced, ...tikvObjects(synced)), rules);

    // Assess
    expect(written(plan)).toEqual(['event']);
    expect(plan.actions[0]).toMatchObject({ kind: 'event', type: 'Warning', reason: 'FailedScaleIn' });
    expect(resultOf(plan, 'TikvScale')?.outcome).toMatchObject({ kind: 'wait', message: expect.stringContaining('the store in Pod basic-tikv-2 which is going to be deleted is up too') });
  });

  it('a scale-out adds one ordinal per step', () => {
    // Prepare
    const tc = tidbCluster(noTidb, tikvReplicas(4));
    const synced = { ...tc, status: planStep(world(tc, ...tikvObjects(tc)), rules).status ?? {} };

    // Act
    const plan = planStep(world(synced, ...tikvObjects(synced)), rules);

    // Assess
    expect(written(plan)).toEqual(['update StatefulSet/basic-tikv']);
    const update = plan.actions[0];
    expect(update?.kind === 'update' ? update.object.spec : undefined).toMatchObject({ replicas: 4 });
  });

  it('without spec.tikv nothing TiKV-related happens', () => {
    // Act
    const plan = planStep(world(tidbCluster(changeSpec((spec) => ({ ...spec, tikv: undefined, tidb: undefined })))), rules);

    // Assess
    expect(written(plan).filter((w) => w.includes('tikv'))).toEqual([]);
    expect(plan.status?.tikv).toBeUndefined();
  });
});
