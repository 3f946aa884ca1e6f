import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { AT_ONCE_MS, fail, retry, wait } from '../../../../../lib/reconcile/engine/outcome.js';
import { T0, changeSpec, changeStatus, snapshot, tidbCluster, withCluster, withOwned, type Change } from '../../../../support/fixtures.js';
import { kubeTimeAt, planTikvScale, tikvPod, tikvPvcs, tikvSetOf, tikvStore, withStores, withTikvPods } from '../../../../support/tikv-scale.js';

const DEFER = 'tidb.pingcap.com/pvc-defer-deleting';
const SCALE_IN_TIME = 'tidb.pingcap.com/scale-in-time';
const MINUTE = 60_000;

const tikvSpec = (replicas: number): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, tikv: { ...spec.tikv, replicas } }));
const tikvStatus = (o: { synced?: boolean; phase?: string } = {}): Change<TidbCluster> =>
  changeStatus((s) => ({ ...s, tikv: { synced: o.synced ?? true, bootStrapped: true, phase: o.phase ?? 'Scale' } }));

/** The decision of one scale step for spec replicas `desired`, live StatefulSet at `live`. */
function scale(desired: number, live: number, changes: Change<Snapshot>[], status: Change<TidbCluster> = tikvStatus()) {
  const tc = tidbCluster(tikvSpec(desired), status);
  const decision = planTikvScale(snapshot(withCluster(tc), withOwned('StatefulSet', tikvSetOf(tc, live)), ...changes));
  return { actions: decision.actions, outcome: decision.outcome, replicas: decision.draft?.spec?.replicas, stop: decision.stop === true };
}

const pvcRef = (name: string) => ({ kind: 'PersistentVolumeClaim', namespace: 'demo', name });
const deferPatch = (name: string, extra: Record<string, string> = {}) => ({
  kind: 'patch',
  ref: pvcRef(name),
  patchType: 'merge',
  patch: { metadata: { annotations: { [DEFER]: toKubeTime(T0), ...extra } } },
  resourceVersion: '9',
});
/** As TiDB Operator: the claims of a tombstoned store get scale-in-time too. */
const tombstonePatch = (name: string) => deferPatch(name, { [SCALE_IN_TIME]: toKubeTime(T0) });
const podPatch = (name: string, annotations: Record<string, string | null>) => ({
  kind: 'patch',
  ref: { kind: 'Pod', namespace: 'demo', name },
  patchType: 'merge',
  patch: { metadata: { annotations } },
  resourceVersion: '7',
});
const clusterEvent = (type: string, reason: string, message: string) => ({
  kind: 'event',
  type,
  reason,
  message,
  object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
});
/** A cluster Warning reported once while its condition persists (the executor skips it while a recent Event has it). */
const warnedOnce = (reason: string, message: string) => ({ ...clusterEvent('Warning', reason, message), once: true });
/** The wait while the store leaves, with the region replicas PD still counts on it (the fixture's 10). */
const still = (state: string, id = '1') => retry(5_000, `TiKV demo/basic-tikv-4 store ${id} is still in cluster, state: ${state}, 10 regions left`);

/** Fixture G scale-in: stores "10".."13" on tikv-0..3 Up, and the store of tikv-4 as given. */
const othersUp = ['10', '11', '12', '13'].map((id, i) => tikvStore(id, `basic-tikv-${i}`));

describe('Fixture G — TiKV scale-out (5 → 7, next ordinal 5), one ordinal per step', () => {
  const pvc5 = (annotations?: Record<string, string>) => tikvPvcs('basic-tikv-5', annotations);
  it.each<{ name: string; changes: Change<Snapshot>[]; actions: unknown[]; outcome: unknown; replicas?: number }>([
    {
      name: 'G S74: a PVC of the ordinal that is not marked defer-deleting holds the scale-out (a Warning says why, once); replicas stay 5',
      changes: [withOwned('PersistentVolumeClaim', ...pvc5()), withStores(othersUp)],
      actions: [
        warnedOnce(
          'FailedScaleOut',
          'TiKV demo/basic ready to scale out, wait for next round: PVC log-basic-tikv-5, tikv-basic-tikv-5 of basic-tikv-5 still exists and is not marked tidb.pingcap.com/pvc-defer-deleting',
        ),
      ],
      outcome: retry(5_000, 'TiKV demo/basic ready to scale out, wait for next round: PVC log-basic-tikv-5, tikv-basic-tikv-5 of basic-tikv-5 still exists'),
    },
    { name: 'G S75: no PVC: replicas 6', changes: [withStores(othersUp)], actions: [], outcome: retry(AT_ONCE_MS, 'scaling TiKV out to 6'), replicas: 6 },
    {
      name: 'G S76/S77: defer-deleting PVCs are deleted (uid-guarded) and the step ends there, so a failed delete leaves replicas 5',
      changes: [withOwned('PersistentVolumeClaim', ...pvc5({ [DEFER]: kubeTimeAt(-MINUTE) })), withStores(othersUp)],
      actions: ['log-basic-tikv-5', 'tikv-basic-tikv-5'].map((name) => ({ kind: 'delete', ref: pvcRef(name), uid: `uid-${name}` })),
      outcome: retry(5_000, 'deleting the defer-deleting PVCs of basic-tikv-5 before scaling out'),
    },
    {
      name: 'P21: an unmarked PVC of an ordinal whose every store PD had is Tombstone is released, never mounted again',
      changes: [withOwned('PersistentVolumeClaim', ...pvc5()), withStores([...othersUp, tikvStore('4', 'basic-tikv-5', { state: 'Tombstone' })])],
      actions: [deferPatch('log-basic-tikv-5'), deferPatch('tikv-basic-tikv-5')],
      outcome: retry(5_000, 'the claims of basic-tikv-5 hold removed store 4: releasing them before scaling out'),
    },
    {
      name: 'P12: an unmarked PVC whose store PD still counts (Down, its pod gone) is mounted again, not waited on forever: replicas 6',
      changes: [withOwned('PersistentVolumeClaim', ...pvc5()), withStores([...othersUp, tikvStore('4', 'basic-tikv-5', { state: 'Tombstone' }), tikvStore('9', 'basic-tikv-5', { state: 'Down' })])],
      actions: [],
      outcome: retry(AT_ONCE_MS, 'scaling TiKV out to 6'),
      replicas: 6,
    },
  ])('$name', ({ changes, actions, outcome, replicas }) => {
    // Act
    const decision = scale(7, 5, changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(decision.replicas).toBe(replicas);
  });
});

describe('Fixture G — TiKV scale-in (5 → 3, ordinal 4): the store leaves PD before the pod goes', () => {
  const pod4 = (o: Parameters<typeof tikvPod>[1] = {}) => tikvPod('basic-tikv-4', { storeId: '1', ...o });
  const marked = { [SCALE_IN_TIME]: kubeTimeAt(-MINUTE) };
  const releasePvcs = [deferPatch('log-basic-tikv-4'), deferPatch('tikv-basic-tikv-4')];
  const releaseTombstone = [tombstonePatch('log-basic-tikv-4'), tombstonePatch('tikv-basic-tikv-4')];
  it.each<{ name: string; changes: Change<Snapshot>[]; status?: Change<TidbCluster>; actions: unknown[]; outcome: unknown; replicas?: number }>([
    {
      name: 'G S79 (and S78: the delete is the last write, so a failed one leaves replicas 5): mark scale-in-time, leaders 0 → DELETE store 1',
      changes: [withTikvPods(pod4()), withStores([...othersUp, tikvStore('1', 'basic-tikv-4')])],
      actions: [podPatch('basic-tikv-4', { [SCALE_IN_TIME]: toKubeTime(T0) }), { kind: 'pd.deleteStore', storeId: '1' }],
      outcome: still('Up'),
    },
    {
      name: 'G S80: leaders left and scale-in-time under 5 min ago → the evict-leader scheduler is added, no DELETE',
      changes: [withTikvPods(pod4({ annotations: marked })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { leaderCount: 7 })])],
      actions: [{ kind: 'pd.beginEvictLeader', storeId: '1' }],
      outcome: retry(5_000, 'evicting the leaders of basic-tikv-4 (store 1, 7 left) before deleting its store'),
    },
    {
      name: 'G S80: a scheduler PD already runs is not added again',
      changes: [withTikvPods(pod4({ annotations: marked })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { leaderCount: 7 })], { evicting: ['1'] })],
      actions: [],
      outcome: retry(5_000, 'evicting the leaders of basic-tikv-4 (store 1, 7 left) before deleting its store'),
    },
    {
      name: 'the eviction is capped at 5 min after scale-in-time: the wake-up is at the cap',
      changes: [withTikvPods(pod4({ annotations: { [SCALE_IN_TIME]: kubeTimeAt(-298_000) } })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { leaderCount: 7 })], { evicting: ['1'] })],
      actions: [],
      outcome: retry(3_000, 'evicting the leaders of basic-tikv-4 (store 1, 7 left) before deleting its store'),
    },
    {
      name: 'leaders left but scale-in-time over 5 min ago → DELETE store 1 anyway',
      changes: [withTikvPods(pod4({ annotations: { [SCALE_IN_TIME]: kubeTimeAt(-6 * MINUTE) } })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { leaderCount: 7 })], { evicting: ['1'] })],
      actions: [{ kind: 'pd.deleteStore', storeId: '1' }],
      outcome: still('Up'),
    },
    {
      name: 'G S81: store Offline → poll for Tombstone, no DELETE again',
      changes: [withTikvPods(pod4({ annotations: marked })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Offline' })])],
      actions: [],
      outcome: still('Offline'),
    },
    {
      name: 'G S82: store Tombstone → both PVCs defer-deleting, then the evict-leader scheduler ends, replicas 4',
      changes: [withTikvPods(pod4({ annotations: marked })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Tombstone' })], { evicting: ['1'] })],
      actions: [...releaseTombstone, { kind: 'pd.endEvictLeader', storeId: '1' }],
      outcome: retry(AT_ONCE_MS, 'scaling TiKV in to 4'),
      replicas: 4,
    },
    {
      name: 'G S82: also while TiKV is upgrading (no scheduler left: nothing to end)',
      status: tikvStatus({ phase: 'Upgrade' }),
      changes: [withTikvPods(pod4({ annotations: marked })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Tombstone' })])],
      actions: releaseTombstone,
      outcome: retry(AT_ONCE_MS, 'scaling TiKV in to 4'),
      replicas: 4,
    },
    {
      name: 'P13: a Tombstone is matched by its address even when the pod never got its store-id label',
      changes: [withTikvPods(pod4({ storeId: undefined })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Tombstone' })])],
      actions: releaseTombstone,
      outcome: retry(AT_ONCE_MS, 'scaling TiKV in to 4'),
      replicas: 4,
    },
    {
      name: 'G S86 (P13): a live store is deleted even when the pod has no store-id label yet (matched by its address)',
      changes: [withTikvPods(pod4({ storeId: undefined, annotations: marked })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4')])],
      actions: [{ kind: 'pd.deleteStore', storeId: '1' }],
      outcome: still('Up'),
    },
    {
      name: 'an older Tombstone at the same address does not count: the live store is the one to delete',
      changes: [withTikvPods(pod4({ annotations: marked })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Tombstone' }), tikvStore('21', 'basic-tikv-4')])],
      actions: [{ kind: 'pd.deleteStore', storeId: '21' }],
      outcome: still('Up', '21'),
    },
    {
      name: 'G S84/S87: a store id that is not an integer fails',
      changes: [withTikvPods(pod4()), withStores([...othersUp, tikvStore('not integer', 'basic-tikv-4', { state: 'Tombstone' })])],
      actions: [],
      outcome: fail('store id "not integer" of basic-tikv-4 is not an integer'),
    },
    {
      name: 'G S85: Tombstone but the pod has no PVCs fails, replicas 5',
      changes: [withOwned('Pod', pod4({ claims: [] })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Tombstone' })])],
      actions: [],
      outcome: fail('no pvc found for pod demo/basic-tikv-4'),
    },
    {
      name: 'G S88: no store, pod not Ready and created just now → wait the 5 resync periods (woken when they end)',
      changes: [withTikvPods(pod4({ ready: false, createdAtMs: T0 - 30_000 })), withStores(othersUp)],
      actions: [],
      outcome: retry(120_000, 'TiKV demo/basic-tikv-4 is not ready, wait for 5 resync periods to sync its status'),
    },
    {
      name: 'G S89: no store, pod not Ready, created 1 h ago → PVCs defer-deleting, replicas 4',
      changes: [withTikvPods(pod4({ ready: false })), withStores(othersUp)],
      actions: releasePvcs,
      outcome: retry(AT_ONCE_MS, 'scaling TiKV in to 4'),
      replicas: 4,
    },
    {
      name: 'G S90: no store, pod Ready, no no-active-store-since → fail "not found in cluster"',
      changes: [withTikvPods(pod4()), withStores(othersUp)],
      actions: [],
      outcome: fail('TiKV demo/basic-tikv-4 not found in cluster'),
    },
    {
      name: 'G S91: no store, pod Ready, tikv-no-active-store-since 1 h ago → PVCs defer-deleting, replicas 4',
      changes: [withTikvPods(pod4({ annotations: { 'tidb.pingcap.com/tikv-no-active-store-since': kubeTimeAt(-60 * MINUTE) } })), withStores(othersUp)],
      actions: releasePvcs,
      outcome: retry(AT_ONCE_MS, 'scaling TiKV in to 4'),
      replicas: 4,
    },
    {
      name: 'not synced: fail, replicas 5',
      status: tikvStatus({ synced: false }),
      changes: [withTikvPods(pod4()), withStores([...othersUp, tikvStore('1', 'basic-tikv-4')])],
      actions: [],
      outcome: fail("TidbCluster: [demo/basic]'s tikv status sync failed, can't scale in now"),
    },
  ])('$name', ({ changes, status, actions, outcome, replicas }) => {
    // Act
    const decision = scale(3, 5, changes, status);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(decision.replicas).toBe(replicas);
  });
});

describe('Fixture G / P12 — the Up-stores check against max-replicas refuses before anything is deleted', () => {
  const pod4 = tikvPod('basic-tikv-4', { storeId: '1' });
  const equalMessage =
    "can't scale in TiKV of TidbCluster [demo/basic], cause the number of up stores is equal to MaxReplicas in PD configuration(3), and the store in Pod basic-tikv-4 which is going to be deleted is up too";
  const refused = warnedOnce('FailedScaleIn', equalMessage);
  it.each<{ name: string; changes: Change<Snapshot>[]; actions: unknown[]; outcome: unknown }>([
    {
      name: 'G S92: 3 Up stores with max-replicas 3 and the target Up → Warning FailedScaleIn, wait (no retry storm), nothing deleted',
      changes: [withTikvPods(pod4), withStores([tikvStore('10', 'basic-tikv-0'), tikvStore('11', 'basic-tikv-1'), tikvStore('1', 'basic-tikv-4')])],
      actions: [refused],
      outcome: wait(equalMessage),
    },
    {
      name: 'G S93: an Up TiFlash store does not count',
      changes: [withTikvPods(pod4), withStores([tikvStore('10', 'basic-tikv-0'), tikvStore('11', 'basic-tikv-1'), tikvStore('1', 'basic-tikv-4'), tikvStore('30', 'basic-tiflash-0', { engine: 'tiflash' })])],
      actions: [refused],
      outcome: wait(equalMessage),
    },
    {
      name: 'fewer Up stores than max-replicas (one Down) → refused with the count',
      changes: [withTikvPods(pod4), withStores([tikvStore('10', 'basic-tikv-0'), tikvStore('11', 'basic-tikv-1', { state: 'Down' }), tikvStore('1', 'basic-tikv-4')], { maxReplicas: 3 })],
      actions: [
        warnedOnce(
          'FailedScaleIn',
          "the number of stores in Up state of TidbCluster [demo/basic] is 2, less than MaxReplicas in PD configuration(3), can't scale in TiKV, podname basic-tikv-4",
        ),
      ],
      outcome: wait("the number of stores in Up state of TidbCluster [demo/basic] is 2, less than MaxReplicas in PD configuration(3), can't scale in TiKV, podname basic-tikv-4"),
    },
    {
      name: 'a store already Offline is not checked again: it is polled for Tombstone',
      changes: [withTikvPods(tikvPod('basic-tikv-4', { storeId: '1', annotations: { [SCALE_IN_TIME]: kubeTimeAt(-MINUTE) } })), withStores([tikvStore('10', 'basic-tikv-0'), tikvStore('11', 'basic-tikv-1'), tikvStore('12', 'basic-tikv-2'), tikvStore('1', 'basic-tikv-4', { state: 'Offline' })])],
      actions: [],
      outcome: still('Offline'),
    },
  ])('$name', ({ changes, actions, outcome }) => {
    // Act
    const decision = scale(3, 5, changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(decision.replicas).toBeUndefined();
  });
});

describe('P14 — a scale-out arriving mid-scale-in settles the in-flight deletion first', () => {
  const inFlight = (o: Parameters<typeof tikvPod>[1] = {}) => tikvPod('basic-tikv-4', { storeId: '1', annotations: { [SCALE_IN_TIME]: kubeTimeAt(-MINUTE) }, ...o });
  const unmark = podPatch('basic-tikv-4', { [SCALE_IN_TIME]: null });
  const cancelled = (what: string) => `scale-in of basic-tikv-4 cancelled by a scale-out: ${what} kept`;
  it.each<{ name: string; desired: number; changes: Change<Snapshot>[]; actions: unknown[]; outcome: unknown; replicas?: number }>([
    {
      name: 'back to 5 with the store Offline → PD sets it Up again, its scheduler ends, the mark goes (a Normal Event says so)',
      desired: 5,
      changes: [withTikvPods(inFlight()), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Offline' })], { evicting: ['1'] })],
      actions: [{ kind: 'pd.setStoreState', storeId: '1', state: 'Up' }, { kind: 'pd.endEvictLeader', storeId: '1' }, unmark, clusterEvent('Normal', 'ScaleInCancelled', cancelled('store 1 (Offline)'))],
      outcome: retry(5_000, cancelled('store 1 (Offline)')),
    },
    {
      name: 'out to 6 while leaders were being evicted (store still Up) → the eviction ends before ordinal 5 is added',
      desired: 6,
      changes: [withTikvPods(inFlight()), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { leaderCount: 4 })], { evicting: ['1'] })],
      actions: [{ kind: 'pd.endEvictLeader', storeId: '1' }, unmark, clusterEvent('Normal', 'ScaleInCancelled', cancelled('store 1 (Up)'))],
      outcome: retry(5_000, cancelled('store 1 (Up)')),
    },
    {
      name: 'back to 5 with the store already Tombstone → the scale-in is finished first (PVCs released, replicas 4)',
      desired: 5,
      changes: [withTikvPods(inFlight()), withStores([...othersUp, tikvStore('1', 'basic-tikv-4', { state: 'Tombstone' })])],
      actions: [tombstonePatch('log-basic-tikv-4'), tombstonePatch('tikv-basic-tikv-4')],
      outcome: retry(5_000, 'scaling TiKV in to 4'),
      replicas: 4,
    },
    {
      name: 'no scale-in-time mark on the highest pod → nothing in flight, nothing to do',
      desired: 5,
      changes: [withTikvPods(tikvPod('basic-tikv-4', { storeId: '1' })), withStores([...othersUp, tikvStore('1', 'basic-tikv-4')])],
      actions: [],
      outcome: { kind: 'complete' },
    },
  ])('$name', ({ desired, changes, actions, outcome, replicas }) => {
    // Act
    const decision = scale(desired, 5, changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(decision.replicas).toBe(replicas);
  });
});
