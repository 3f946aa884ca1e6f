import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { planReadyCondition } from '../../../../../lib/reconcile/cluster/cluster-status.js';
import { retry } from '../../../../../lib/reconcile/engine/outcome.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { ruleNames } from '../../../../../lib/reconcile/engine/rule.js';
import { pdRules } from '../../../../../lib/reconcile/components/pd/recipe.js';
import { changeSpec, convergedPdObjects, snapshot, tidbCluster, withCluster, type Change } from '../../../../support/fixtures.js';

const pdOnly = changeSpec((spec) => ({ ...spec, tikv: undefined, tidb: undefined }));
/** The converged world of a 3-member PD cluster (shared with the registry test). */
const world = (tc: TidbCluster): Change<Snapshot>[] => convergedPdObjects(tc);

describe('the PD recipe (pdRules)', () => {
  it('runs in the order of the member recipe (TiDB Operator v1 §1.4: gate, status, dependencies, objects, scale, failover, upgrade, write)', () => {
    expect(ruleNames(pdRules)).toEqual([
      'act:PdGate',
      'status:PdStatus',
      'act:PdSuspend',
      'act:PdDependencies',
      'act:PdTlsSecret',
      'act:PdRefusesClient',
      'act:PdServices',
      'act:PdConfigMap',
      'act:PdForceUpgrade',
      'act:PdNotJoinedMembers',
      'act:PdStrayMembers',
      'act:PdScale',
      'act:PdFailover',
      'act:PdUpgrade',
      'act:PdStatefulSet',
    ]);
  });

  it('E: the first step on an empty cluster creates both Services, the ConfigMap and the StatefulSet, then waits for PD', () => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster())), pdRules);
    // Assess
    expect(plan.actions.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : a.kind))).toEqual([
      'create Service/basic-pd',
      'create Service/basic-pd-peer',
      'create ConfigMap/basic-pd',
      'create StatefulSet/basic-pd',
    ]);
    expect(plan.outcome).toEqual(retry(5_000, 'waiting for PD cluster running'));
    expect(plan.status?.pd).toEqual({ statefulSet: { replicas: 0 } });
  });

  it('a 3-PD cluster, once PD reports its members, syncs its status and reaches Ready; the next step changes nothing', () => {
    // Prepare
    const tc = tidbCluster(pdOnly);
    // Act
    const first = planStep(snapshot(withCluster(tc), ...world(tc)), pdRules);
    const settled = tidbCluster(pdOnly, (x) => ({ ...x, status: first.status }));
    const second = planStep(snapshot(withCluster(settled), ...world(settled)), pdRules);
    // Assess
    expect(first.actions).toEqual([]);
    expect(first.status?.pd?.synced).toBe(true);
    expect(Object.keys(first.status?.pd?.members ?? {})).toEqual(['basic-pd-0', 'basic-pd-1', 'basic-pd-2']);
    expect(first.status?.pd?.leader?.name).toBe('basic-pd-1');
    expect(first.status?.pd?.phase).toBe('Normal');
    expect(planReadyCondition(tc.spec, first.status ?? {}).status).toBe('True');
    expect(second).toMatchObject({ actions: [], status: undefined, outcome: { kind: 'complete' } });
  });

  it('without spec.pd nothing PD-related happens', () => {
    const tc = tidbCluster(changeSpec((spec) => ({ ...spec, pd: undefined })));
    const plan = planStep(snapshot(withCluster(tc), ...world(tidbCluster())), pdRules);
    expect(plan.actions).toEqual([]);
    expect(plan.status).toBeUndefined();
  });

  it('a paused cluster keeps its PD status in sync and gets no other write', () => {
    const tc = tidbCluster(changeSpec((spec) => ({ ...spec, paused: true, pd: { ...spec.pd, replicas: 5 } })));
    const plan = planStep(snapshot(withCluster(tc), ...world(tidbCluster())), pdRules);
    expect(plan.actions).toEqual([]);
    expect(plan.status?.pd?.synced).toBe(true);
    expect(plan.status?.pd?.phase).toBe('Scale');
  });
});
