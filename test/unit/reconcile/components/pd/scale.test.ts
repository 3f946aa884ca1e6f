import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import type { Action } from '../../../../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { PdStore } from '../../../../../lib/model/pd.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { AT_ONCE_MS, fail, retry, wait } from '../../../../../lib/reconcile/engine/outcome.js';
import { isPdInUse } from '../../../../../lib/reconcile/components/pd/scale.js';
import { planPdScale } from '../../../../support/pd-rules.js';
import { planDeferredPvcDeletes, planScaleOne } from '../../../../../lib/reconcile/member/scale.js';
import {
  T0,
  changeSpec,
  changeStatus,
  pdMemberView,
  pdSetOf,
  pdViewOf,
  ruleInputOf,
  snapshot,
  testPod,
  testPvc,
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  type Change,
} from '../../../../support/fixtures.js';

type PdStatus = NonNullable<TidbClusterStatus['pd']>;

const DEFER = 'tidb.pingcap.com/pvc-defer-deleting';
const statusMember = (i: number, health = true) => ({
  name: `basic-pd-${i}`,
  id: pdMemberView(`basic-pd-${i}`).id,
  clientURL: `http://basic-pd-${i}.basic-pd-peer.demo.svc:2379`,
  health,
});
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Fixture D: members basic-pd-0..(n-1) healthy (except `unhealthy`), synced, phase `phase`. */
function pdStatus(n: number, o: { unhealthy?: number[]; synced?: boolean; phase?: string; extra?: Partial<PdStatus> } = {}): Change<TidbCluster> {
  const members = Object.fromEntries(range(n).map((i) => [`basic-pd-${i}`, statusMember(i, !(o.unhealthy ?? []).includes(i))]));
  return changeStatus((s) => ({ ...s, pd: { synced: o.synced ?? true, phase: o.phase ?? 'Scale', members, ...o.extra } }));
}
const quorumWarning = (member: string) => ({
  kind: 'event' as const,
  type: 'Warning' as const,
  reason: 'PDQuorumAtRisk',
  message: `scaling PD in waits: removing PD member ${member} now would leave PD without quorum`,
  object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
  once: true as const,
});
const specReplicas = (replicas: number): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, pd: { ...spec.pd, replicas } }));
const view = (n: number, leader: string, unhealthy: number[] = []) =>
  withPd(pdViewOf(range(n).map((i) => pdMemberView(`basic-pd-${i}`, { health: !unhealthy.includes(i) })), leader));

function scaleWith(tc: TidbCluster, setReplicas: number, ...changes: Change<Snapshot>[]) {
  const live = pdSetOf(tc, { replicas: setReplicas, partition: setReplicas, resourceVersion: '70' });
  return planPdScale(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', live), ...changes)));
}

const stsUpdate = (replicas: number, partition: number) =>
  expect.objectContaining({
    kind: 'update',
    ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd' },
    resourceVersion: '70',
    object: expect.objectContaining({
      spec: expect.objectContaining({ replicas, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } }),
    }),
  });
const deferPatch = (name: string) => ({
  kind: 'patch',
  ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name },
  patchType: 'merge',
  patch: { metadata: { annotations: { [DEFER]: toKubeTime(T0) } } },
  resourceVersion: '9',
});

describe('Fixture D — PD scale-out (5 → 7, next ordinal 5), one member per step', () => {
  const pvc5 = (annotations?: Record<string, string>, deleting = false): IPersistentVolumeClaim =>
    testPvc('pd-basic-pd-5', 'basic-pd-5', { uid: 'pvc-5', ...(annotations ? { annotations } : {}), deleting });
  // As the StatefulSet controller creates it: the selector labels, no tidb.pingcap.com/pod-name.
  const unlabelled = (p: IPersistentVolumeClaim): IPersistentVolumeClaim => {
    const { 'tidb.pingcap.com/pod-name': _pod, ...labels } = p.metadata?.labels ?? {};
    return { ...p, metadata: { ...p.metadata, labels } };
  };
  it.each<{ name: string; tc: TidbCluster; changes: Change<Snapshot>[]; actions: unknown[]; outcome: unknown; stop?: boolean }>([
    {
      name: 'D S43: a PVC without annotations is reused: replicas 6',
      tc: tidbCluster(specReplicas(7), pdStatus(5)),
      changes: [withOwned('PersistentVolumeClaim', pvc5())],
      actions: [stsUpdate(6, 7)],
      outcome: retry(AT_ONCE_MS, 'scaling PD out to 6'),
      stop: true,
    },
    {
      name: 'D S44: scaling is allowed during an upgrade: replicas 6',
      tc: tidbCluster(specReplicas(7), pdStatus(5, { phase: 'Upgrade' })),
      changes: [],
      actions: [stsUpdate(6, 7)],
      outcome: retry(AT_ONCE_MS, 'scaling PD out to 6'),
      stop: true,
    },
    {
      name: 'D S45: no PVC: replicas 6',
      tc: tidbCluster(specReplicas(7), pdStatus(5)),
      changes: [],
      actions: [stsUpdate(6, 7)],
      outcome: retry(AT_ONCE_MS, 'scaling PD out to 6'),
      stop: true,
    },
    {
      name: 'D S46/S47 (first step): a defer-deleting PVC is deleted first (uid-guarded); replicas stay 5',
      tc: tidbCluster(specReplicas(7), pdStatus(5, { unhealthy: [0], extra: { failureMembers: { 'basic-pd-0': { podName: 'basic-pd-0' } } } })),
      changes: [withOwned('PersistentVolumeClaim', pvc5({ [DEFER]: toKubeTime(T0 - 1_000) }))],
      actions: [{ kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name: 'pd-basic-pd-5' }, uid: 'pvc-5' }],
      outcome: retry(5_000, 'deleting the defer-deleting PVCs of basic-pd-5 before scaling out'),
      stop: true,
    },
    {
      name: 'a defer-deleting PVC nobody labelled with its pod is still found by its claim name and deleted first',
      tc: tidbCluster(specReplicas(7), pdStatus(5)),
      changes: [withOwned('PersistentVolumeClaim', unlabelled(pvc5({ [DEFER]: toKubeTime(T0 - 1_000) })))],
      actions: [{ kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name: 'pd-basic-pd-5' }, uid: 'pvc-5' }],
      outcome: retry(5_000, 'deleting the defer-deleting PVCs of basic-pd-5 before scaling out'),
      stop: true,
    },
    {
      name: 'D S47 (between steps): the PVC is still terminating: wait, replicas stay 5',
      tc: tidbCluster(specReplicas(7), pdStatus(5)),
      changes: [withOwned('PersistentVolumeClaim', pvc5({ [DEFER]: toKubeTime(T0 - 1_000) }, true))],
      actions: [],
      outcome: retry(5_000, 'waiting for the PVCs of basic-pd-5 to go'),
    },
    {
      name: 'D S48: PD status not synced: fail, replicas stay 5',
      tc: tidbCluster(specReplicas(7), pdStatus(5, { synced: false })),
      changes: [],
      actions: [],
      outcome: fail("TidbCluster: [demo/basic]'s pd status sync failed, can't scale out now"),
    },
  ])('$name', ({ tc, changes, actions, outcome, stop }) => {
    // Act
    const decision = scaleWith(tc, 5, view(5, 'basic-pd-0'), ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(decision.stop).toBe(stop);
  });
});

describe('the step after a PD replicas change runs at once only when it can act right away', () => {
  const pod4 = withOwned('Pod', testPod('basic-pd-4', { claims: ['pd-basic-pd-4'] }));
  const pvc4 = withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-4', 'basic-pd-4'));
  it.each<{ name: string; desired: number; listed: number; afterMs: number; replicas: number; message: string }>([
    { name: 'out 5 → 7: ordinal 6 follows, so at once', desired: 7, listed: 5, afterMs: AT_ONCE_MS, replicas: 6, message: 'scaling PD out to 6' },
    { name: 'out 5 → 6: the last ordinal; its pod starts, so the usual look-again', desired: 6, listed: 5, afterMs: 5_000, replicas: 6, message: 'scaling PD out to 6' },
    { name: 'in 5 → 3: ordinal 3 follows, so at once', desired: 3, listed: 5, afterMs: AT_ONCE_MS, replicas: 4, message: 'scaling PD in to 4' },
    { name: 'in 5 → 4 with the member deleted from PD: PD forgets it at the call, so at once', desired: 4, listed: 5, afterMs: AT_ONCE_MS, replicas: 4, message: 'scaling PD in to 4' },
    { name: 'in 5 → 4 with the member already gone from PD: nothing changed that the next step sees, so the usual look-again', desired: 4, listed: 4, afterMs: 5_000, replicas: 4, message: 'scaling PD in to 4' },
  ])('$name', ({ desired, listed, afterMs, replicas, message }) => {
    // Prepare
    const tc = tidbCluster(specReplicas(desired), pdStatus(5));
    // Act
    const decision = scaleWith(tc, 5, view(listed, 'basic-pd-0'), pod4, pvc4);
    // Assess
    expect(decision.outcome).toEqual(retry(afterMs, message));
    expect(decision.actions).toContainEqual(expect.objectContaining({ kind: 'update', object: expect.objectContaining({ spec: expect.objectContaining({ replicas }) }) }));
  });
});

describe('Fixture D — PD scale-in (5 → 3, ordinal 4 removed), one member per step; partition stays ≥ replicas so nothing rolls', () => {
  const pod4 = withOwned('Pod', testPod('basic-pd-4', { claims: ['pd-scaler-4-1', 'pd-scaler-4-2'] }));
  const pvcs4 = withOwned('PersistentVolumeClaim', testPvc('pd-scaler-4-1', 'basic-pd-4'), testPvc('pd-scaler-4-2', 'basic-pd-4'));
  it.each<{ name: string; tc: TidbCluster; changes: Change<Snapshot>[]; actions: unknown[]; outcome: unknown; stop?: boolean }>([
    {
      name: 'D S49: delete member by name, mark both PVCs defer-deleting, then replicas 4 — in that order',
      tc: tidbCluster(specReplicas(3), pdStatus(5)),
      changes: [view(5, 'basic-pd-0'), pod4, pvcs4],
      actions: [{ kind: 'pd.deleteMember', name: 'basic-pd-4' }, deferPatch('pd-scaler-4-1'), deferPatch('pd-scaler-4-2'), stsUpdate(4, 4)],
      outcome: retry(AT_ONCE_MS, 'scaling PD in to 4'),
      stop: true,
    },
    {
      name: 'D S50: scaling in during an upgrade is allowed: replicas 4',
      tc: tidbCluster(specReplicas(3), pdStatus(5, { phase: 'Upgrade' })),
      changes: [view(5, 'basic-pd-0'), pod4, pvcs4],
      actions: [{ kind: 'pd.deleteMember', name: 'basic-pd-4' }, deferPatch('pd-scaler-4-1'), deferPatch('pd-scaler-4-2'), stsUpdate(4, 4)],
      outcome: retry(AT_ONCE_MS, 'scaling PD in to 4'),
      stop: true,
    },
    {
      name: 'D S51/S53: re-run after a failed action: a member PD no longer lists is not deleted again, marked PVCs are not re-marked',
      tc: tidbCluster(specReplicas(3), pdStatus(5)),
      changes: [
        view(4, 'basic-pd-0'),
        pod4,
        withOwned('PersistentVolumeClaim', testPvc('pd-scaler-4-1', 'basic-pd-4', { annotations: { [DEFER]: 'x' } }), testPvc('pd-scaler-4-2', 'basic-pd-4')),
      ],
      actions: [deferPatch('pd-scaler-4-2'), stsUpdate(4, 4)],
      outcome: retry(AT_ONCE_MS, 'scaling PD in to 4'),
      stop: true,
    },
    {
      name: 'D S52: the pod has no PVCs: fail, replicas stay 5',
      tc: tidbCluster(specReplicas(3), pdStatus(5)),
      changes: [view(5, 'basic-pd-0'), pod4],
      actions: [],
      outcome: fail('no pvc found for pod demo/basic-pd-4'),
    },
    {
      name: 'D S54: PD status not synced: fail, replicas stay 5',
      tc: tidbCluster(specReplicas(3), pdStatus(5, { synced: false })),
      changes: [view(5, 'basic-pd-0'), pod4, pvcs4],
      actions: [],
      outcome: fail("TidbCluster: [demo/basic]'s pd status sync failed, can't scale in now"),
    },
    {
      name: 'the leader is the member removed: transfer to the lowest ordinal and come back',
      tc: tidbCluster(specReplicas(3), pdStatus(5)),
      changes: [view(5, 'basic-pd-4'), pod4, pvcs4],
      actions: [{ kind: 'pd.transferLeader', to: 'basic-pd-0' }],
      outcome: retry(1_000, 'moving PD leadership from basic-pd-4 to basic-pd-0 before scaling in'),
      stop: true,
    },
    {
      name: 'the leader is removed and the lowest ordinal is unhealthy: the lowest healthy one leads',
      tc: tidbCluster(specReplicas(3), pdStatus(5, { unhealthy: [0] })),
      changes: [view(5, 'basic-pd-4', [0]), pod4, pvcs4],
      actions: [{ kind: 'pd.transferLeader', to: 'basic-pd-1' }],
      outcome: retry(1_000, 'moving PD leadership from basic-pd-4 to basic-pd-1 before scaling in'),
      stop: true,
    },
    {
      name: 'invariant pd-quorum-kept: no scale-in without quorum now (2 of 5 healthy)',
      tc: tidbCluster(specReplicas(3), pdStatus(5, { unhealthy: [0, 1, 2] })),
      changes: [view(5, 'basic-pd-4', [0, 1, 2]), pod4, pvcs4],
      // The Warning is new (issue 9: a held operation says why); the outcome is as before.
      actions: [quorumWarning('basic-pd-4')],
      outcome: retry(5_000, 'removing PD member basic-pd-4 now would leave PD without quorum'),
    },
  ])('$name', ({ tc, changes, actions, outcome, stop }) => {
    // Act
    const decision = scaleWith(tc, 5, ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(decision.stop).toBe(stop);
  });

  it('invariant pd-quorum-kept: no scale-in that leaves the rest without quorum (3 → 2 with basic-pd-0 unhealthy)', () => {
    const tc = tidbCluster(specReplicas(2), pdStatus(3, { unhealthy: [0] }));
    const pod2 = withOwned('Pod', testPod('basic-pd-2', { claims: ['pd-basic-pd-2'] }));
    const decision = scaleWith(tc, 3, view(3, 'basic-pd-1', [0]), pod2, withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-2', 'basic-pd-2')));
    expect(decision).toEqual({ actions: [quorumWarning('basic-pd-2')], outcome: retry(5_000, 'removing PD member basic-pd-2 now would leave PD without quorum') });
  });

  it('the quorum Warning is reported once while the scale-in waits: the executor skips it while a recent Event has it', () => {
    // Prepare
    const tc = tidbCluster(specReplicas(2), pdStatus(3, { unhealthy: [0] }));
    const pod2 = withOwned('Pod', testPod('basic-pd-2', { claims: ['pd-basic-pd-2'] }));
    // Act
    const decision = scaleWith(tc, 3, view(3, 'basic-pd-1', [0]), pod2, withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-2', 'basic-pd-2')));
    // Assess
    expect(decision.actions).toEqual([expect.objectContaining({ kind: 'event', reason: 'PDQuorumAtRisk', once: true })]);
    expect(decision.outcome.kind).toBe('retry');
  });

  it('scaling the last local PD away moves leadership to a healthy peer member first', () => {
    const peer = { name: 'other-pd-0', id: '9', clientURL: 'http://other-pd-0.other-pd-peer.demo.svc:2379', health: true };
    const tc = tidbCluster(
      specReplicas(0),
      changeSpec((spec) => ({ ...spec, tikv: undefined, tidb: undefined })),
      pdStatus(1, { extra: { peerMembers: { 'other-pd-0': peer } } }),
    );
    const pod0 = withOwned('Pod', testPod('basic-pd-0', { claims: ['pd-basic-pd-0'] }));
    const decision = scaleWith(tc, 1, view(1, 'basic-pd-0'), pod0, withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-0', 'basic-pd-0')));
    expect(decision.actions).toEqual([{ kind: 'pd.transferLeader', to: 'other-pd-0' }]);
  });
});

describe('D S55 — PD is never scaled to 0 while other components use it (as observed)', () => {
  const store = (id: string, state: PdStore['state'], address = `basic-tikv-${id}.basic-tikv-peer.demo.svc:20160`): PdStore => ({ id, address, state, leaderCount: 0, regionCount: 0, labels: {} });
  const setOf = (component: string, replicas: number, statusReplicas = replicas): IStatefulSet => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: `basic-${component}`, namespace: 'demo', labels: { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': component } },
    spec: { replicas, selector: {}, serviceName: `basic-${component}-peer`, template: {} },
    status: { replicas: statusReplicas },
  });
  const pdWith = (...stores: PdStore[]): Change<Snapshot> => withPd({ ...pdViewOf([pdMemberView('basic-pd-0')], 'basic-pd-0'), stores });
  const sets = (...list: IStatefulSet[]): Change<Snapshot> => withOwned('StatefulSet', ...list);
  it.each<{ name: string; observed: Change<Snapshot>[]; inUse: boolean }>([
    { name: 'D S55: a TiKV store PD lists as Up', observed: [pdWith(store('1', 'Up'))], inUse: true },
    { name: 'D S55: a store going Offline still uses PD', observed: [pdWith(store('1', 'Offline'))], inUse: true },
    { name: 'D S55: only Tombstone stores', observed: [pdWith(store('1', 'Tombstone'), store('2', 'Removed'))], inUse: false },
    { name: 'D S55: a TiFlash store of this cluster', observed: [pdWith(store('7', 'Up', 'basic-tiflash-0.basic-tiflash-peer.demo.svc:3930'))], inUse: true },
    { name: 'D S55: only stores of another cluster sharing PD (PD moves to the peer)', observed: [pdWith(store('8', 'Up', 'other-tikv-0.other-tikv-peer.demo.svc:20160'))], inUse: false },
    { name: 'D S55: a same-named cluster in another namespace', observed: [pdWith(store('9', 'Up', 'basic-tikv-0.basic-tikv-peer.prod.svc:20160'))], inUse: false },
    { name: 'D S55: a TiDB StatefulSet with replicas', observed: [pdWith(), sets(setOf('tidb', 2))], inUse: true },
    { name: 'D S55: a TiKV StatefulSet still running pods after its spec went to 0', observed: [pdWith(), sets(setOf('tikv', 0, 1))], inUse: true },
    { name: 'D S55: a TiCDC StatefulSet with replicas', observed: [pdWith(), sets(setOf('ticdc', 1))], inUse: true },
    { name: 'D S55: Pump replicas 1', observed: [pdWith(), sets(setOf('pump', 1))], inUse: true },
    { name: 'D S55: other components at 0 and no store', observed: [pdWith(), sets(setOf('tikv', 0), setOf('tidb', 0), setOf('tiflash', 0))], inUse: false },
    { name: 'D S55: only PD and discovery', observed: [pdWith(), sets(setOf('pd', 1), setOf('discovery', 1))], inUse: false },
  ])('$name', ({ observed, inUse }) => {
    // Prepare
    const input = ruleInputOf(snapshot(withCluster(tidbCluster(specReplicas(0))), ...observed));
    // Act
    const used = isPdInUse(input);
    // Assess
    expect(used).toBe(inUse);
  });

  it('D S55: scale-in to 0 under a TiKV store PD still lists: Warning FailedScaleIn, wait, no scaling', () => {
    // Prepare
    const tc = tidbCluster(specReplicas(0), changeSpec((spec) => ({ ...spec, tikv: undefined, tidb: undefined })), pdStatus(1));
    const message = "The PD is in use by TidbCluster [demo/basic], can't scale in PD to 0";
    // Act
    const decision = scaleWith(tc, 1, pdWith(store('1', 'Up')));
    // Assess: reported once while the scale-in is refused (the executor skips it while a recent Event has it)
    const event: Action = { kind: 'event', type: 'Warning', reason: 'FailedScaleIn', message, object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' }, once: true };
    expect(decision).toEqual({ actions: [event], outcome: wait(message) });
  });
});

describe('Fixture M — scaleOne and deleteDeferDeletingPVC', () => {
  it.each<{ name: string; actual: number; desired: number; steps: [number, number, number][] }>([
    { name: 'M: 1→1 does nothing', actual: 1, desired: 1, steps: [[0, -1, 1]] },
    { name: 'M: 1→0 removes ordinal 0', actual: 1, desired: 0, steps: [[-1, 0, 0]] },
    { name: 'M: 8→6 removes 7 then 6', actual: 8, desired: 6, steps: [[-1, 7, 7], [-1, 6, 6]] },
    { name: 'M: 2→0 removes 1 then 0', actual: 2, desired: 0, steps: [[-1, 1, 1], [-1, 0, 0]] },
    { name: 'M: 0→1 adds ordinal 0', actual: 0, desired: 1, steps: [[1, 0, 1]] },
    { name: 'M: 3→5 adds 3 then 4', actual: 3, desired: 5, steps: [[1, 3, 4], [1, 4, 5]] },
  ])('$name', ({ actual, desired, steps }) => {
    let replicas = actual;
    for (const [direction, ordinal, after] of steps) {
      const step = planScaleOne(replicas, desired);
      expect([step.direction, step.ordinal, step.replicas]).toEqual([direction, ordinal, after]);
      replicas = step.replicas;
    }
  });

  const pvc = (annotations?: Record<string, string>) => testPvc('pd-basic-pd-3', 'basic-pd-3', annotations ? { annotations } : {});
  it.each<{ name: string; pvcs: IPersistentVolumeClaim[]; deleted: string[]; skip: Record<string, string> }>([
    { name: 'M: an annotated PVC is deleted, no skip reason', pvcs: [pvc({ [DEFER]: 'x' })], deleted: ['pd-basic-pd-3'], skip: {} },
    { name: 'M: no PVC', pvcs: [], deleted: [], skip: { 'basic-pd-3': 'scaler: pvc is not found' } },
    { name: 'M: nil annotations', pvcs: [pvc()], deleted: [], skip: { 'pd-basic-pd-3': 'scaler: pvc annotations is nil' } },
    { name: 'M: annotations without the key', pvcs: [pvc({ a: 'b' })], deleted: [], skip: { 'pd-basic-pd-3': 'scaler: pvc annotations defer deleting is empty' } },
  ])('$name', ({ pvcs, deleted, skip }) => {
    const plan = planDeferredPvcDeletes(pvcs, 'basic-pd-3');
    expect(plan.toDelete.map((p) => p.metadata?.name)).toEqual(deleted);
    expect(plan.skipReasons).toEqual(skip);
  });
});
