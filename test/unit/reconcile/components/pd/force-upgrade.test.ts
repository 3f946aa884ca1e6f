import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { complete } from '../../../../../lib/reconcile/engine/outcome.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { pdRules } from '../../../../../lib/reconcile/components/pd/recipe.js';
import { FORCE_UPGRADE_REMOVED_REASON } from '../../../../../lib/reconcile/components/pd/force-upgrade.js';
import { planPdConfigMapObject, planPdForceUpgrade } from '../../../../support/pd-rules.js';
import { pdClientService, pdPeerService } from '../../../../../lib/reconcile/components/pd/services.js';
import {
  changeSpec,
  changeStatus,
  pdMemberView,
  pdSetOf,
  pdViewOf,
  ruleInputOf,
  snapshot,
  testPod,
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  type Change,
} from '../../../../support/fixtures.js';

type PdStatus = NonNullable<TidbClusterStatus['pd']>;

const FORCE = { 'tidb.pingcap.com/force-upgrade': 'true' };
const annotate = (annotations: Record<string, string>): Change<TidbCluster> => (tc) => ({ ...tc, metadata: { ...tc.metadata, annotations } });
const pd = (change: Partial<NonNullable<TidbCluster['spec']['pd']>>): Change<TidbCluster> =>
  changeSpec((spec) => ({ ...spec, pd: { replicas: 3, ...spec.pd, ...change } }));
const withPdStatusOf = (status: PdStatus): Change<TidbCluster> => changeStatus((s) => ({ ...s, pd: status }));
const member0 = { name: 'basic-pd-0', id: '1', clientURL: 'http://basic-pd-0.basic-pd-peer.demo.svc:2379', health: true };

/** Services and ConfigMap as already created for `tc`, plus `sts`: the world after the first Sync. */
function created(tc: TidbCluster, sts: IStatefulSet): Change<Snapshot>[] {
  const cm = planPdConfigMapObject(ruleInputOf(snapshot(withCluster(tc)))).configMap;
  return [withOwned('Service', pdClientService(tc), pdPeerService(tc)), withOwned('ConfigMap', cm), withOwned('StatefulSet', sts)];
}

function step(tc: TidbCluster, sts: IStatefulSet, ...changes: Change<Snapshot>[]) {
  return planStep(snapshot(withCluster(tc), ...created(tc, sts), ...changes), pdRules);
}

const stsWrite = (image: string, replicas: number, partition: number) =>
  expect.objectContaining({
    kind: 'update',
    ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd' },
    object: expect.objectContaining({
      spec: expect.objectContaining({
        replicas,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } },
        template: expect.objectContaining({ spec: expect.objectContaining({ containers: [expect.objectContaining({ image })] }) }),
      }),
    }),
  });

describe('Fixture E — force upgrade while PD is not synced (the whole PD recipe, one step)', () => {
  const unreachable = withPd(undefined, 'GetCluster: connection refused');
  const v2 = pd({ version: 'v9.0.0' });
  it.each<{ name: string; tc: TidbCluster; old: TidbCluster; actions: unknown[]; outcome: string; phase: string }>([
    {
      name: 'E S56: image → v9, replicas → 1, force-upgrade annotation: whole StatefulSet, replicas 1, partition 0, phase Upgrade',
      tc: tidbCluster(v2, pd({ replicas: 1 }), annotate(FORCE), withPdStatusOf({ synced: true, members: { 'basic-pd-0': member0 } })),
      old: tidbCluster(),
      actions: [stsWrite('pingcap/pd:v9.0.0', 1, 0)],
      outcome: 'retry',
      phase: 'Upgrade',
    },
    {
      name: 'E S57: a single replica without peers is forced implicitly: image v9, replicas 1, partition 0',
      tc: tidbCluster(v2, pd({ replicas: 1 }), withPdStatusOf({ synced: true, members: { 'basic-pd-0': member0 } })),
      old: tidbCluster(pd({ replicas: 1 })),
      actions: [stsWrite('pingcap/pd:v9.0.0', 1, 0)],
      outcome: 'retry',
      phase: 'Upgrade',
    },
    {
      name: 'E S58: a single replica with peer members is not forced: StatefulSet unchanged, upgrade fails, phase Normal',
      tc: tidbCluster(v2, pd({ replicas: 1 }), withPdStatusOf({ synced: true, members: { 'basic-pd-0': member0 }, peerMembers: { 'other-pd-0': { ...member0, name: 'other-pd-0' } } })),
      old: tidbCluster(pd({ replicas: 1 })),
      actions: [],
      outcome: 'fail',
      phase: 'Normal',
    },
    {
      name: 'E S59: image → v9, replicas 3 → 1, no annotation: StatefulSet unchanged, scaling fails, phase Scale',
      tc: tidbCluster(v2, pd({ replicas: 1 }), withPdStatusOf({ synced: true, members: { 'basic-pd-0': member0 } })),
      old: tidbCluster(),
      actions: [],
      outcome: 'fail',
      phase: 'Scale',
    },
  ])('$name', ({ tc, old, actions, outcome, phase }) => {
    // Prepare: the StatefulSet as written for the old spec, PD unreachable
    const sts = pdSetOf(old);
    // Act
    const plan = step(tc, sts, unreachable, withOwned('Pod', testPod('basic-pd-0', { revision: 'rev-1' })));
    // Assess
    expect(plan.actions).toEqual(actions);
    expect(plan.outcome.kind).toBe(outcome);
    expect(plan.status?.pd?.synced).toBe(false);
    expect(plan.status?.pd?.phase).toBe(phase);
  });
});

describe('force upgrade finished: the annotation is removed (beyond TiDB Operator)', () => {
  const synced = (extra: Partial<PdStatus> = {}) => withPdStatusOf({ synced: true, phase: 'Normal', ...extra });
  const rolled = withOwned('Pod', ...[0, 1, 2].map((i) => testPod(`basic-pd-${i}`, { revision: 'rev-2' })));
  const set = (tc: TidbCluster) => pdSetOf(tc, { partition: 0, currentRevision: 'rev-2', updateRevision: 'rev-2' });
  it.each<{ name: string; tc: TidbCluster; pods: Change<Snapshot>; removed: boolean }>([
    { name: 'synced, every pod on the update revision: annotation removed, Normal event', tc: tidbCluster(annotate(FORCE), synced()), pods: rolled, removed: true },
    {
      name: 'a pod still on the old revision: kept',
      tc: tidbCluster(annotate(FORCE), synced()),
      pods: withOwned('Pod', ...['rev-2', 'rev-1', 'rev-2'].map((r, i) => testPod(`basic-pd-${i}`, { revision: r }))),
      removed: false,
    },
    { name: 'PD not synced: kept', tc: tidbCluster(annotate(FORCE), synced({ synced: false })), pods: rolled, removed: false },
    { name: 'no annotation: nothing to remove', tc: tidbCluster(synced()), pods: rolled, removed: false },
  ])('$name', ({ tc, pods, removed }) => {
    // Act
    const decision = planPdForceUpgrade(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', set(tc)), pods)));
    // Assess
    if (!removed) {
      expect(decision.actions).toEqual([]);
      return;
    }
    expect(decision.actions).toEqual([
      {
        kind: 'patch',
        ref: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
        patchType: 'merge',
        patch: { metadata: { annotations: { 'tidb.pingcap.com/force-upgrade': null } } },
        resourceVersion: '100',
      },
      {
        kind: 'event',
        type: 'Normal',
        reason: FORCE_UPGRADE_REMOVED_REASON,
        message: 'PD is synced and every PD pod runs revision rev-2: removed annotation tidb.pingcap.com/force-upgrade',
        object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
      },
    ]);
    expect(decision.outcome).toEqual(complete('force upgrade finished: annotation removed'));
  });

  it('waits for a step that changes no status, and asks for that step soon rather than at the next sweep', () => {
    const tc = tidbCluster(annotate(FORCE), synced());
    const input = ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', set(tc)), rolled));
    const decision = planPdForceUpgrade({ ...input, status: { ...input.status, clusterID: 'changed-this-step' } });
    expect(decision.actions).toEqual([]);
    expect(decision.outcome).toMatchObject({ kind: 'retry' });
  });

  it('the whole recipe on a synced, rolled-out cluster: only the removal (and no other write)', () => {
    const members = Object.fromEntries([0, 1, 2].map((i) => [`basic-pd-${i}`, pdMemberView(`basic-pd-${i}`)]));
    const view = pdViewOf(Object.values(members), 'basic-pd-0');
    const tc0 = tidbCluster(annotate(FORCE));
    const sts = pdSetOf(tc0, { currentRevision: 'rev-2', updateRevision: 'rev-2' });
    // first step: status converges (members, synced); the removal waits for a settled status
    const first = step(tc0, sts, withPd(view), rolled);
    expect(first.actions).toEqual([]);
    // next step, status as written: the removal happens
    const tc1 = tidbCluster(annotate(FORCE), (tc) => ({ ...tc, status: first.status }));
    const second = step(tc1, sts, withPd(view), rolled);
    expect(second.actions.map((a) => a.kind)).toEqual(['patch', 'event']);
    expect(second.status).toBeUndefined();
  });
});
