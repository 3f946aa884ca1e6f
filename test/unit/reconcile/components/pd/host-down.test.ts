/**
 * PD failover with detectNodeFailure (§2.8, v1's `RestartPodOnHostDown` and `canDoCleanUpNow` in
 * `pd_failover.go`): a failure member on a lost host is marked hostDown, its pod force-deleted once
 * (with the auto-failure-recovery annotation), and the member, its recreated pod and its claims are
 * deleted only restartToDeleteStoreGap after that pod was recreated — so a member on local storage,
 * whose pod cannot leave the lost node, comes back on a new claim.
 */
import { describe, expect, it } from '@jest/globals';
import type { INode } from 'kubernetes-models/v1/Node';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action } from '../../../../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { complete, retry, wait } from '../../../../../lib/reconcile/engine/outcome.js';
import { planPdFailover } from '../../../../support/pd-rules.js';
import { T0, pdMemberView, pdSetOf, pdViewOf, ruleInputOf, snapshot, testPod, testPvc, tidbCluster, withCluster, withConfig, withOwned, withPd } from '../../../../support/fixtures.js';

type PdStatus = NonNullable<TidbClusterStatus['pd']>;
type FailureMember = NonNullable<PdStatus['failureMembers']>[string];

const MIN = 60_000;
const IDS = ['10', '11', '12'];
const CLAIM_UID = 'uid-pd-claim';
const MARKED_AT_MS = T0 - 20 * MIN;
const DOWN_NODE: INode = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } };

const failure = (extra: Partial<FailureMember> = {}): FailureMember => ({ podName: 'basic-pd-1', memberID: IDS[1], pvcUIDSet: { [CLAIM_UID]: {} }, memberDeleted: false, createdAt: toKubeTime(MARKED_AT_MS), ...extra });

/** PD 3 replicas; basic-pd-1 unhealthy for 30 minutes and recorded as `f`; optionally annotated for auto recovery. */
function cluster(f: FailureMember, annotated: boolean): TidbCluster {
  const member = (i: number, health: boolean) => ({ name: `basic-pd-${i}`, id: IDS[i] ?? '', clientURL: `http://basic-pd-${i}.basic-pd-peer.demo.svc:2379`, health, lastTransitionTime: toKubeTime(T0 - 30 * MIN) });
  const pd: PdStatus = {
    synced: true,
    phase: 'Normal',
    statefulSet: { replicas: 3, readyReplicas: 2, currentRevision: 'rev-1', updateRevision: 'rev-1' },
    members: { 'basic-pd-0': member(0, true), 'basic-pd-1': member(1, false), 'basic-pd-2': member(2, true) },
    failureMembers: { 'basic-pd-1': f },
  };
  return tidbCluster(
    (tc) => ({ ...tc, metadata: { ...tc.metadata, ...(annotated ? { annotations: { 'app.kubernetes.io/auto-failure-recovery': 'true' } } : {}) } }),
    (tc) => ({ ...tc, status: { ...tc.status, pd } }),
  );
}

/** basic-pd-1, unready, on node-1 (down), created `agoMs` before now, on its claim. */
const pdPod = (createdAtMs: number): IPod => testPod('basic-pd-1', { ready: false, nodeName: 'node-1', createdAtMs, claims: ['pd-basic-pd-1'] });
const original = pdPod(T0 - 60 * MIN);
const recreated = (agoMs: number): IPod => pdPod(T0 - agoMs);

const forceDelete: Action = { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-pd-1' }, uid: 'uid-basic-pd-1', resourceVersion: '7', gracePeriodSeconds: 0 };
const nodeFailureEvent: Action = { kind: 'event', type: 'Warning', reason: 'NodeFailure', message: `pd pod[basic-pd-1] of member[${IDS[1] ?? ''}] is host-down: NodeFailure`, object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' }, once: true };
const deleteMember: Action = { kind: 'pd.deleteMember', id: IDS[1] ?? '' };
const podDelete: Action = { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-pd-1' }, uid: 'uid-basic-pd-1', resourceVersion: '7' };
const claimDelete: Action = { kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name: 'pd-basic-pd-1' }, uid: CLAIM_UID };
/** Member, pod and claim deleted (as v1's `tryToDeleteAFailureMember` and `deletePodAndPvcs`). */
const cleanUp = [deleteMember, podDelete, claimDelete];

type Row = { name: string; failure: FailureMember; detect?: boolean; annotated?: boolean; pod: IPod; expected: { actions?: Action[]; hostDown?: boolean; outcome?: unknown; wakeAtMs?: number } };

describe('PD failover with detectNodeFailure: host-down recovery (§2.8)', () => {
  it.each<Row>([
    { name: 'off: the marked member is deleted at once, as before', detect: false, failure: failure(), pod: original, expected: { actions: cleanUp } },
    { name: 'an unready pod on a node whose Ready is Unknown marks the member hostDown (NodeFailure), nothing deleted', failure: failure(), pod: original, expected: { actions: [nodeFailureEvent], hostDown: true } },
    { name: 'hostDown without the annotation: no force delete, and no clean-up until the pod is recreated', failure: failure({ hostDown: true }), pod: original, expected: { actions: [], outcome: wait('failure member basic-pd-1 is host-down: waiting for its pod to be recreated') } },
    { name: 'hostDown with the annotation: the pod from before the failure is force-deleted once', annotated: true, failure: failure({ hostDown: true }), pod: original, expected: { actions: [forceDelete] } },
    {
      name: 'the recreated pod (Pending: its volume is on the lost node) is younger than restartToDeleteStoreGap: woken then',
      annotated: true,
      failure: failure({ hostDown: true }),
      pod: recreated(3 * MIN),
      expected: { actions: [], outcome: complete(`failure member basic-pd-1 is host-down: clean-up at ${toKubeTime(T0 + 7 * MIN)}`), wakeAtMs: T0 + 7 * MIN },
    },
    { name: 'restartToDeleteStoreGap after the restart: member deleted from PD, its recreated pod and its claim with it', annotated: true, failure: failure({ hostDown: true }), pod: recreated(10 * MIN), expected: { actions: cleanUp, outcome: retry(0, 'deleting failure member basic-pd-1') } },
  ])('$name', ({ failure: f, detect, annotated, pod, expected }) => {
    // Prepare
    const tc = cluster(f, annotated === true);
    const members = [0, 1, 2].map((i) => ({ ...pdMemberView(`basic-pd-${i}`, { id: IDS[i] ?? '' }), health: i !== 1 }));
    const input = ruleInputOf(
      snapshot(
        withCluster(tc),
        withConfig({ detectNodeFailure: detect ?? true }),
        withOwned('StatefulSet', pdSetOf(tc)),
        withPd(pdViewOf(members, 'basic-pd-0')),
        withOwned('Pod', pod),
        withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-1', 'basic-pd-1', { uid: CLAIM_UID })),
        (s) => ({ ...s, nodes: [DOWN_NODE] }),
      ),
    );
    // Act
    const decision = planPdFailover(input);
    // Assess
    const own = decision.actions.filter((a) => a.kind !== 'event' || a.reason !== 'PDMemberUnhealthy');
    if (expected.actions) expect(own.filter((a) => a.kind !== 'event' || a.reason === 'NodeFailure')).toEqual(expected.actions);
    if (expected.hostDown !== undefined) expect(decision.status?.pd?.failureMembers?.['basic-pd-1']?.hostDown).toBe(expected.hostDown);
    else expect(decision.status).toBeUndefined();
    if (expected.outcome !== undefined) expect(decision.outcome).toEqual(expected.outcome);
    expect(decision.wakeAtMs).toBe(expected.wakeAtMs);
  });
});
