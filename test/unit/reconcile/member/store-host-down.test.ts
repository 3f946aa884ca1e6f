import { describe, expect, it } from '@jest/globals';
import type { INode } from 'kubernetes-models/v1/Node';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action } from '../../../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../../../lib/model/kube.js';
import type { PdStoreState, PdView } from '../../../../lib/model/pd.js';
import { toKubeTime } from '../../../../lib/reconcile/cluster/condition.js';
import { planTikvFailover } from '../../../support/store-rules.js';
import { T0, pdMemberView, pdViewOf, ruleInputOf, snapshot, testPod, testPvc, tidbCluster, withCluster, withConfig, withOwned, withPd } from '../../../support/fixtures.js';

type TikvStatus = NonNullable<TidbClusterStatus['tikv']>;
type FailureStore = NonNullable<TikvStatus['failureStores']>[string];

const MIN = 60_000;
const CREATED_AT = toKubeTime(T0 - 30 * MIN);
const OLD_CLAIM_UID = 'uid-old-claim';
const ANNOTATION = { 'app.kubernetes.io/auto-failure-recovery': 'true' };

/** Failure store "2" of basic-tikv-1, recorded 30 minutes ago with its claim. */
const failure = (extra: Partial<FailureStore> = {}): FailureStore => ({ podName: 'basic-tikv-1', storeID: '2', pvcUIDSet: { [OLD_CLAIM_UID]: {} }, createdAt: CREATED_AT, ...extra });

/** TiKV 3 replicas plus failure store "2"; store 2 Down for 40 minutes, the others Up; the failover's basic-tikv-3 Up. */
function cluster(f: FailureStore, annotated: boolean): TidbCluster {
  const up = (id: string, pod: number) => ({ id, podName: `basic-tikv-${pod}`, ip: '', leaderCount: 1, state: 'Up', lastTransitionTime: toKubeTime(T0 - 120 * MIN) });
  const stores = { '1': up('1', 0), '2': { ...up('2', 1), state: 'Down', lastTransitionTime: toKubeTime(T0 - 40 * MIN) }, '3': up('3', 2), '4': up('4', 3) };
  const tikv: TikvStatus = { synced: true, phase: 'Normal', statefulSet: { replicas: 4, readyReplicas: 3 }, stores, failureStores: { '2': f } };
  return tidbCluster(
    (tc) => ({ ...tc, metadata: { ...tc.metadata, ...(annotated ? { annotations: ANNOTATION } : {}) }, spec: { ...tc.spec, tikv: { ...tc.spec.tikv, replicas: 3 } } }),
    (tc) => ({ ...tc, status: { ...tc.status, tikv } }),
  );
}

/** PD with quorum, listing store 2 in `state` (absent: not listed) and the rest Up. */
function pd(state: PdStoreState | 'absent', quorum = true): PdView {
  const members = [0, 1, 2].map((i) => ({ ...pdMemberView(`basic-pd-${i}`), health: quorum || i === 0 }));
  const store = (id: string, s: PdStoreState) => ({ id, address: `${id}`, state: s, leaderCount: 0, regionCount: 0, labels: {} });
  const stores = [store('1', 'Up'), store('3', 'Up'), store('4', 'Up'), ...(state === 'absent' ? [] : [store('2', state)])];
  return { ...pdViewOf(members, 'basic-pd-0'), stores, bootstrapped: true };
}

const DOWN_NODE: INode = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } };
/** basic-tikv-1 on node-1 (down), created at `createdAtMs`, unready, on claim tikv-basic-tikv-1. */
const tikvPod = (createdAtMs: number, deleting = false): IPod =>
  testPod('basic-tikv-1', { component: 'tikv', ready: false, nodeName: 'node-1', createdAtMs, claims: ['tikv-basic-tikv-1'], deleting });
const claim = (uid: string, deleting = false): IPersistentVolumeClaim => testPvc('tikv-basic-tikv-1', 'basic-tikv-1', { uid, deleting });

type Row = {
  name: string;
  failure: FailureStore;
  annotated?: boolean;
  detect?: boolean;
  store?: PdStoreState | 'absent';
  quorum?: boolean;
  pod?: IPod;
  claims?: IPersistentVolumeClaim[];
  expected: { actions?: Action[]; failure?: FailureStore; outcome?: string; wakeAtMs?: number };
};

const forceDelete: Action = { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tikv-1' }, uid: 'uid-basic-tikv-1', resourceVersion: '7', gracePeriodSeconds: 0 };
const storeDelete: Action[] = [
  { kind: 'pd.deleteStore', storeId: '2' },
  { kind: 'event', type: 'Normal', reason: 'StoreDeleted', message: "Invoked delete on tikv store '2' in cluster demo/basic", object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } },
];
const podDelete: Action = { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tikv-1' }, uid: 'uid-basic-tikv-1', resourceVersion: '7' };
const claimDelete: Action = { kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name: 'tikv-basic-tikv-1' }, uid: OLD_CLAIM_UID };
const recreated = (agoMs: number) => tikvPod(T0 - agoMs);

describe('store failover with detectNodeFailure: host-down recovery (§2.8, §2.2 Failover, S72–S73)', () => {
  it.each<Row>([
    { name: 'off: a failure on a down node is not marked hostDown', detect: false, failure: failure(), pod: tikvPod(T0 - 60 * MIN), expected: { failure: failure() } },
    {
      name: 'an unready pod on a node whose Ready is Unknown marks the failure hostDown (NodeFailure)',
      failure: failure(),
      pod: tikvPod(T0 - 60 * MIN),
      expected: { failure: failure({ hostDown: true }), outcome: 'retry' },
    },
    { name: 'without the annotation a hostDown pod is not deleted', failure: failure({ hostDown: true }), pod: tikvPod(T0 - 60 * MIN, true), expected: { actions: [] } },
    { name: 'with the annotation the pod from before the failure is force-deleted, Terminating or not', annotated: true, failure: failure({ hostDown: true }), pod: tikvPod(T0 - 60 * MIN, true), expected: { actions: [forceDelete], outcome: 'retry' } },
    { name: 'a pod recreated less than 10m ago: the store waits, woken at the gap', annotated: true, failure: failure({ hostDown: true }), pod: recreated(5 * MIN), expected: { actions: [], wakeAtMs: T0 + 5 * MIN } },
    { name: 'S72: a pod recreated 10m+1s ago: the Down store is deleted in PD', annotated: true, failure: failure({ hostDown: true }), pod: recreated(10 * MIN + 1_000), claims: [claim(OLD_CLAIM_UID)], expected: { actions: storeDelete, outcome: 'retry' } },
    { name: 'a store Up again is left alone', annotated: true, failure: failure({ hostDown: true }), store: 'Up', pod: recreated(20 * MIN), claims: [claim(OLD_CLAIM_UID)], expected: { actions: [] } },
    { name: 'no store deleted without PD quorum', annotated: true, failure: failure({ hostDown: true }), quorum: false, pod: recreated(20 * MIN), claims: [claim(OLD_CLAIM_UID)], expected: { actions: [], outcome: 'fail' } },
    { name: 'an Offline store: no claim deleted while it is not Tombstone', annotated: true, failure: failure({ hostDown: true }), store: 'Offline', pod: recreated(20 * MIN), claims: [claim(OLD_CLAIM_UID)], expected: { actions: [], outcome: 'retry' } },
    { name: 'a Tombstone store: the pod on the old volume and the recorded claim are deleted', annotated: true, failure: failure({ hostDown: true }), store: 'Tombstone', pod: recreated(20 * MIN), claims: [claim(OLD_CLAIM_UID)], expected: { actions: [podDelete, claimDelete], outcome: 'retry' } },
    { name: 'a Tombstone store: a claim of another uid is never deleted', annotated: true, failure: failure({ hostDown: true }), store: 'Tombstone', pod: recreated(1 * MIN), claims: [claim('uid-fresh-claim')], expected: { failure: failure({ hostDown: true, storeDeleted: true }), actions: [] } },
    { name: 'store gone, the ordinal back on a fresh claim: storeDeleted', annotated: true, failure: failure({ hostDown: true }), store: 'absent', pod: recreated(1 * MIN), claims: [claim('uid-fresh-claim')], expected: { failure: failure({ hostDown: true, storeDeleted: true }) } },
    { name: 'S73: storeDeleted: nothing more', annotated: true, failure: failure({ hostDown: true, storeDeleted: true }), store: 'absent', pod: recreated(20 * MIN), claims: [claim('uid-fresh-claim')], expected: { actions: [] } },
  ])('$name', ({ failure: f, annotated, detect, store, quorum, pod, claims, expected }) => {
    // Prepare
    const input = ruleInputOf(
      snapshot(
        withCluster(cluster(f, annotated === true)),
        withConfig({ detectNodeFailure: detect ?? true }),
        withPd(pd(store ?? 'Down', quorum ?? true)),
        withOwned('Pod', ...(pod ? [pod] : [])),
        withOwned('PersistentVolumeClaim', ...(claims ?? [])),
        (s) => ({ ...s, nodes: [DOWN_NODE] }),
      ),
    );

    // Act
    const decision = planTikvFailover(input);

    // Assess
    const actions = decision.actions.filter((a) => a.kind !== 'state.putDeadline' && a.kind !== 'state.deleteDeadline');
    if (expected.actions) expect(actions).toEqual(expected.actions);
    if (expected.failure) expect((decision.status ?? input.status).tikv?.failureStores?.['2']).toEqual(expected.failure);
    if (expected.outcome) expect(decision.outcome.kind).toBe(expected.outcome);
    if (expected.wakeAtMs !== undefined) expect(decision.wakeAtMs).toBe(expected.wakeAtMs);
  });
});
