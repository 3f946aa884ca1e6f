import { describe, expect, it } from '@jest/globals';


import type { Action, DeadlineSpec } from '../../../../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { complete, fail, retry, wait } from '../../../../../lib/reconcile/engine/outcome.js';
import { shouldRecoverPd } from '../../../../../lib/reconcile/components/pd/failover.js';
import { pdInputOf, planPdFailover, planPdScale } from '../../../../support/pd-rules.js';
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
  withDeadlines,
  withOwned,
  withPd,
  type Change,
} from '../../../../support/fixtures.js';

type PdStatus = NonNullable<TidbClusterStatus['pd']>;
type Member = NonNullable<PdStatus['members']>[string];

const MIN = 60_000;
const IDS = ['0', '12891273174085095651', '2'];
const CLUSTER = { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } as const;
const warning = (reason: string, message: string): Action => ({ kind: 'event', type: 'Warning', reason, message, object: CLUSTER });
/** A warning reported once while its condition persists (the executor skips it when a recent Event has it). */
const onceWarning = (reason: string, message: string): Action => ({ kind: 'event', type: 'Warning', reason, message, object: CLUSTER, once: true });
const unhealthyEvent = (i: number) => onceWarning('PDMemberUnhealthy', `demo/basic-pd-${i}(${IDS[i] ?? ''}) is unhealthy`);

/** Fixture A's member i: id from IDS, healthy unless `sinceMs` says since when it is not (null: no transition time). */
function member(i: number, unhealthySinceMs?: number | null): Member {
  const base = { name: `basic-pd-${i}`, id: IDS[i] ?? String(i), clientURL: `http://basic-pd-${i}.basic-pd-peer.demo.svc:2379` };
  if (unhealthySinceMs === undefined) return { ...base, health: true, lastTransitionTime: toKubeTime(T0 - 60 * MIN) };
  return { ...base, health: false, ...(unhealthySinceMs === null ? {} : { lastTransitionTime: toKubeTime(unhealthySinceMs) }) };
}

/** Fixture A: replicas 3, synced, StatefulSet at 3, `members` as given, plus `extra`. */
function fixtureA(members: Member[], extra: Partial<PdStatus> = {}): Change<TidbCluster> {
  const pd: PdStatus = {
    synced: true,
    phase: 'Normal',
    statefulSet: { replicas: 3, readyReplicas: 3, currentRevision: 'rev-1', updateRevision: 'rev-1' },
    members: Object.fromEntries(members.map((m) => [m.name, m])),
    ...extra,
  };
  return changeStatus((s) => ({ ...s, pd }));
}
const recorded = (o: { deleted?: boolean; memberID?: string; createdAtMs?: number } = {}): Partial<PdStatus> => ({
  failureMembers: {
    'basic-pd-1': {
      podName: 'basic-pd-1',
      memberID: o.memberID ?? IDS[1],
      pvcUIDSet: { 'pvc-1-uid-1': {}, 'pvc-1-uid-2': {} },
      memberDeleted: o.deleted ?? false,
      createdAt: toKubeTime(o.createdAtMs ?? T0 - 5 * MIN),
    },
  },
});
const pod1 = (o: { deleting?: boolean; createdAtMs?: number } = {}) =>
  withOwned('Pod', testPod('basic-pd-1', { claims: ['pd-test-pd-1-1', 'pd-test-pd-1-2'], ...o }));
const pvcs1 = (deleting = false) =>
  withOwned(
    'PersistentVolumeClaim',
    testPvc('pd-test-pd-1-1', 'basic-pd-1', { uid: 'pvc-1-uid-1', deleting }),
    testPvc('pd-test-pd-1-2', 'basic-pd-1', { uid: 'pvc-1-uid-2', deleting }),
  );
const view = (...listed: number[]) => withPd(pdViewOf(listed.map((i) => pdMemberView(`basic-pd-${i}`, { id: IDS[i] ?? '' })), 'basic-pd-0'));
const maxFailover = (n: number): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, pd: { ...spec.pd, replicas: 3, maxFailoverCount: n } }));

function failover(tc: TidbCluster, ...changes: Change<Snapshot>[]) {
  return planPdFailover(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', pdSetOf(tc)), ...changes)));
}

const deadline1 = (sinceMs: number): DeadlineSpec => ({ component: 'pd', member: 'basic-pd-1', kind: 'failover', sinceMs, deadlineAtMs: sinceMs + 5 * MIN });

type Row = {
  name: string;
  tc: TidbCluster;
  changes: Change<Snapshot>[];
  actions: Action[];
  outcome: unknown;
  failureMembers?: PdStatus['failureMembers'] | 'unchanged';
  wakeAtMs?: number;
};

describe('Fixture A — PD failover: marking (only with quorum, on time, one at a time)', () => {
  it.each<Row>([
    { name: 'A S01: all members healthy: nothing', tc: tidbCluster(fixtureA([member(0), member(1), member(2)])), changes: [pod1()], actions: [], outcome: complete() },
    {
      name: 'A S02: status not synced (a member unhealthy, so failover runs): wait for PD (no backoff), no event',
      tc: tidbCluster(fixtureA([member(0), member(1, T0 - 10 * MIN), member(2)], { synced: false })),
      changes: [pod1()],
      actions: [],
      outcome: wait("TidbCluster: demo/basic .Status.PD.Synced = false, can't failover"),
    },
    {
      name: 'A S03: pd-0 and pd-1 unhealthy, no peers: no quorum, fail, 2 PDMemberUnhealthy events',
      tc: tidbCluster(fixtureA([member(0, null), member(1, null), member(2)])),
      changes: [pod1()],
      actions: [unhealthyEvent(0), unhealthyEvent(1)],
      outcome: fail("TidbCluster: demo/basic's pd cluster is not health: 1/3, replicas: 3, failureCount: 0, can't failover"),
    },
    {
      name: 'A S04: as S03 with 2 healthy peer members (3 of 5): quorum; zero transition times are skipped',
      tc: tidbCluster(
        fixtureA([member(0, null), member(1, null), member(2)], {
          peerMembers: { 'peer-pd-0': { ...member(0), name: 'peer-pd-0' }, 'peer-pd-2': { ...member(2), name: 'peer-pd-2' } },
        }),
      ),
      changes: [pod1()],
      actions: [unhealthyEvent(0), unhealthyEvent(1)],
      outcome: complete(),
    },
    {
      name: 'A S04b: as S04 with 2 members PD lists without a name (joins that never started): 3 of 7, no quorum',
      tc: tidbCluster(
        fixtureA([member(0, null), member(1, null), member(2)], {
          peerMembers: { 'peer-pd-0': { ...member(0), name: 'peer-pd-0' }, 'peer-pd-2': { ...member(2), name: 'peer-pd-2' } },
        }),
      ),
      changes: [
        pod1(),
        withPd(pdViewOf(['1', '2'].map((n) => ({ name: '', id: `900${n}`, clientUrls: [], peerUrls: [`http://basic-pd-${n}9.basic-pd-peer.demo.svc:2380`], health: false })), undefined)),
      ],
      actions: [unhealthyEvent(0), unhealthyEvent(1)],
      outcome: fail("TidbCluster: demo/basic's pd cluster is not health: 3/7, replicas: 3, failureCount: 0, can't failover"),
    },
    {
      name: 'A S05: pd-1 unhealthy for 2 min: not yet; the deadline is persisted and the key woken at it',
      tc: tidbCluster(fixtureA([member(0), member(1, T0 - 2 * MIN), member(2)])),
      changes: [pod1(), pvcs1()],
      actions: [unhealthyEvent(1), { kind: 'state.putDeadline', deadline: deadline1(T0 - 2 * MIN) }],
      outcome: complete(`PD failover deadline at ${toKubeTime(T0 + 3 * MIN)}`),
      wakeAtMs: T0 + 3 * MIN,
    },
    {
      name: 'A S05b: the deadline already persisted is not written again (still woken at it)',
      tc: tidbCluster(fixtureA([member(0), member(1, T0 - 2 * MIN), member(2)])),
      changes: [pod1(), pvcs1(), withDeadlines(deadline1(T0 - 2 * MIN))],
      actions: [unhealthyEvent(1)],
      outcome: complete(`PD failover deadline at ${toKubeTime(T0 + 3 * MIN)}`),
      wakeAtMs: T0 + 3 * MIN,
    },
    {
      name: 'A S06: pd-1 unhealthy without a transition time: skipped',
      tc: tidbCluster(fixtureA([member(0), member(1, null), member(2)])),
      changes: [pod1(), pvcs1()],
      actions: [unhealthyEvent(1)],
      outcome: complete(),
    },
    {
      name: 'A S07: pd-1 unhealthy for 10 min but no PVC: fail, nothing recorded',
      tc: tidbCluster(fixtureA([member(0), member(1, T0 - 10 * MIN), member(2)])),
      changes: [pod1()],
      actions: [unhealthyEvent(1)],
      outcome: fail('no pvc found for pod demo/basic-pd-1'),
    },
    {
      name: 'A S08: pd-1 unhealthy for 10 min with PVCs: marked (pod, member id, PVC uids), retry',
      tc: tidbCluster(fixtureA([member(0), member(1, T0 - 10 * MIN), member(2)])),
      changes: [pod1(), pvcs1(), withDeadlines(deadline1(T0 - 10 * MIN))],
      actions: [
        unhealthyEvent(1),
        onceWarning('Unhealthy', `pd pod[basic-pd-1] is unhealthy, msg:pd member[${IDS[1] ?? ''}] is unhealthy`),
        { kind: 'state.deleteDeadline', deadline: { component: 'pd', member: 'basic-pd-1', kind: 'failover' } },
      ],
      outcome: retry(0, 'marking Pod: demo/basic-pd-1 pd member: basic-pd-1 as failure'),
      failureMembers: recorded({ createdAtMs: T0 }).failureMembers,
    },
    {
      name: 'A S08b: on time — at exactly the deadline the member is marked',
      tc: tidbCluster(fixtureA([member(0), member(1, T0 - 5 * MIN), member(2)])),
      changes: [pod1(), pvcs1()],
      actions: [
        unhealthyEvent(1),
        onceWarning('Unhealthy', `pd pod[basic-pd-1] is unhealthy, msg:pd member[${IDS[1] ?? ''}] is unhealthy`),
        { kind: 'state.deleteDeadline', deadline: { component: 'pd', member: 'basic-pd-1', kind: 'failover' } },
      ],
      outcome: retry(0, 'marking Pod: demo/basic-pd-1 pd member: basic-pd-1 as failure'),
      failureMembers: recorded({ createdAtMs: T0 }).failureMembers,
    },
    {
      name: 'A S09: maxFailoverCount 0: nothing',
      tc: tidbCluster(maxFailover(0), fixtureA([member(0), member(1, T0 - 10 * MIN), member(2)])),
      changes: [pod1(), pvcs1()],
      actions: [],
      outcome: complete(),
    },
    {
      name: 'a member healthy again: its persisted deadline is deleted',
      tc: tidbCluster(fixtureA([member(0), member(1), member(2)])),
      changes: [pod1(), withDeadlines(deadline1(T0 - 2 * MIN))],
      actions: [{ kind: 'state.deleteDeadline', deadline: { component: 'pd', member: 'basic-pd-1', kind: 'failover' } }],
      outcome: complete(),
    },
    {
      name: 'maxFailoverCount reached (3 deleted): no new mark',
      tc: tidbCluster(
        fixtureA([member(0), member(1, T0 - 10 * MIN), member(2)], {
          failureMembers: Object.fromEntries([3, 4, 5].map((i) => [`basic-pd-${i}`, { podName: `basic-pd-${i}`, memberDeleted: true }])),
          statefulSet: { replicas: 6 },
        }),
      ),
      changes: [pod1(), pvcs1()],
      actions: [unhealthyEvent(1)],
      outcome: complete('PD failover reached maxFailoverCount 3'),
    },
  ])('$name', ({ tc, changes, actions, outcome, failureMembers, wakeAtMs }) => {
    // Act
    const decision = failover(tc, view(0, 1, 2), ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(decision.status?.pd?.failureMembers).toEqual(failureMembers);
    expect(decision.wakeAtMs).toBe(wakeAtMs);
  });
});

describe('Fixture A — PD failover: deleting the marked member (verified across steps)', () => {
  const marked = (o: Parameters<typeof recorded>[0] = {}) => tidbCluster(fixtureA([member(0), member(1, T0 - 10 * MIN), member(2)], recorded(o)));
  const deleteMember: Action = { kind: 'pd.deleteMember', id: IDS[1] ?? '' };
  const deletedEvent = warning('PDMemberDeleted', `failure member demo/basic-pd-1(${IDS[1] ?? ''}) deleted from PD cluster`);
  const podDelete: Action = { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-pd-1' }, uid: 'uid-basic-pd-1', resourceVersion: '7' };
  const pvcDelete = (n: number): Action => ({ kind: 'delete', ref: { kind: 'PersistentVolumeClaim', namespace: 'demo', name: `pd-test-pd-1-${n}` }, uid: `pvc-1-uid-${n}` });
  const deleting = retry(0, 'deleting failure member basic-pd-1');
  it.each<Row>([
    {
      name: 'A S10: delete from PD by id, then the pod (uid-guarded); memberDeleted stays false until observed',
      tc: marked(),
      changes: [view(0, 1, 2), pod1()],
      actions: [unhealthyEvent(1), deleteMember, deletedEvent, podDelete],
      outcome: deleting,
      failureMembers: 'unchanged',
    },
    {
      name: 'A S10 (next step): member gone from PD, pod replaced: memberDeleted true',
      tc: marked(),
      changes: [view(0, 2), pod1({ createdAtMs: T0 })],
      actions: [unhealthyEvent(1)],
      outcome: retry(0, 'failure member basic-pd-1 deleted: a replacement follows'),
      failureMembers: recorded({ deleted: true }).failureMembers,
    },
    {
      name: 'a pod recreated while its old claims are still terminating runs on them: deleted again, memberDeleted waits',
      tc: marked(),
      changes: [view(0, 2), pod1({ createdAtMs: T0 }), pvcs1(true)],
      actions: [unhealthyEvent(1), podDelete],
      outcome: deleting,
      failureMembers: 'unchanged',
    },
    {
      name: 'a pod recreated on fresh claims (the old ones gone) is the replacement: memberDeleted true',
      tc: marked(),
      changes: [view(0, 2), pod1({ createdAtMs: T0 }), withOwned('PersistentVolumeClaim', testPvc('pd-test-pd-1-1', 'basic-pd-1', { uid: 'fresh-1' }), testPvc('pd-test-pd-1-2', 'basic-pd-1', { uid: 'fresh-2' }))],
      actions: [unhealthyEvent(1)],
      outcome: retry(0, 'failure member basic-pd-1 deleted: a replacement follows'),
      failureMembers: recorded({ deleted: true }).failureMembers,
    },
    {
      name: 'A S11: a member id that is not a uint64: fail, no PD delete',
      tc: marked({ memberID: 'wrong-id' }),
      changes: [view(0, 1, 2), pod1()],
      actions: [unhealthyEvent(1)],
      outcome: fail('strconv.ParseUint: parsing "wrong-id": invalid syntax'),
      failureMembers: 'unchanged',
    },
    {
      name: 'A S12/S14: with PVCs: member, then pod, then both PVCs — in order, so a failure stops the rest',
      tc: marked(),
      changes: [view(0, 1, 2), pod1(), pvcs1()],
      actions: [unhealthyEvent(1), deleteMember, deletedEvent, podDelete, pvcDelete(1), pvcDelete(2)],
      outcome: deleting,
      failureMembers: 'unchanged',
    },
    {
      name: 'A S13: the member already left PD but the pod delete failed: the pod and PVCs again, no second PD delete',
      tc: marked(),
      changes: [view(0, 2), pod1(), pvcs1()],
      actions: [unhealthyEvent(1), podDelete, pvcDelete(1), pvcDelete(2)],
      outcome: deleting,
      failureMembers: 'unchanged',
    },
    {
      name: 'A S15: the pod is already terminating: not deleted again, PVCs deleted',
      tc: marked(),
      changes: [view(0, 1, 2), pod1({ deleting: true }), pvcs1()],
      actions: [unhealthyEvent(1), deleteMember, deletedEvent, pvcDelete(1), pvcDelete(2)],
      outcome: deleting,
      failureMembers: 'unchanged',
    },
    {
      name: 'A S16: the PVCs are already terminating: only the pod',
      tc: marked(),
      changes: [view(0, 2), pod1(), pvcs1(true)],
      actions: [unhealthyEvent(1), podDelete],
      outcome: deleting,
      failureMembers: 'unchanged',
    },
    {
      name: 'never more than one un-deleted failure member: pd-2 unhealthy too (3 of 5 healthy), only pd-1 is handled',
      tc: tidbCluster(fixtureA([member(0), member(1, T0 - 10 * MIN), member(2, T0 - 10 * MIN), { ...member(0), name: 'basic-pd-3' }, { ...member(0), name: 'basic-pd-4' }], recorded())),
      changes: [view(0, 2), pod1({ createdAtMs: T0 })],
      actions: [unhealthyEvent(1), unhealthyEvent(2)],
      outcome: retry(0, 'failure member basic-pd-1 deleted: a replacement follows'),
      failureMembers: recorded({ deleted: true }).failureMembers,
    },
  ])('$name', ({ tc, changes, actions, outcome, failureMembers }) => {
    // Act
    const decision = failover(tc, ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    if (failureMembers === 'unchanged') expect(decision.status).toBeUndefined();
    else expect(decision.status?.pd?.failureMembers).toEqual(failureMembers);
  });
});

describe('Fixture B — recover (shouldRecover) and the extra member scaled in', () => {
  const replicas = (n: number): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, pd: { ...spec.pd, replicas: n } }));
  const readyPods = (...ready: boolean[]) => withOwned('Pod', ...ready.map((r, i) => testPod(`basic-pd-${i}`, { ready: r })));
  const status = (members: Member[], failureMembers?: PdStatus['failureMembers']) =>
    fixtureA(members, failureMembers === undefined ? {} : { failureMembers });
  const oneFailure = { 'basic-pd-0': { podName: 'basic-pd-0', memberDeleted: true } };
  it.each<{ name: string; tc: TidbCluster; changes: Change<Snapshot>[]; recover: boolean }>([
    { name: 'B S22: no failure members: false', tc: tidbCluster(replicas(2), status([member(0), member(1)])), changes: [readyPods(true, true)], recover: false },
    { name: 'B S23: pd-0 unhealthy: false', tc: tidbCluster(replicas(2), status([member(0, T0), member(1)], oneFailure)), changes: [readyPods(true, true)], recover: false },
    { name: 'B S24: pods 0, 1 Ready and members healthy: true', tc: tidbCluster(replicas(2), status([member(0), member(1)], oneFailure)), changes: [readyPods(true, true)], recover: true },
    {
      name: 'B S25: an extra unhealthy pd-2 beyond spec replicas is not checked: true',
      tc: tidbCluster(replicas(2), status([member(0), member(1), member(2, T0)], oneFailure)),
      changes: [readyPods(true, true, false)],
      recover: true,
    },
    { name: 'B S26: replicas 3, pod 2 not Ready: false', tc: tidbCluster(replicas(3), status([member(0), member(1), member(2)], oneFailure)), changes: [readyPods(true, true, false)], recover: false },
    { name: 'B S27: replicas 3, only pods 0, 1 exist: false', tc: tidbCluster(replicas(3), status([member(0), member(1)], oneFailure)), changes: [readyPods(true, true)], recover: false },
    {
      name: 'B S28: member names must match the pod names: false',
      tc: tidbCluster(replicas(2), status([{ ...member(0), name: 'err-pd-0' }, member(1)], oneFailure)),
      changes: [readyPods(true, true)],
      recover: false,
    },
  ])('$name', ({ tc, changes, recover }) => {
    expect(shouldRecoverPd(pdInputOf(ruleInputOf(snapshot(withCluster(tc), ...changes))))).toBe(recover);
  });

  it.each<{ name: string; replicas: number }>([1, 3, 4, 5, 7].map((n) => ({ name: `B S21: replicas ${n}: failure members cleared, spec unchanged`, replicas: n })))(
    '$name',
    ({ replicas: n }) => {
      // Prepare: every desired ordinal Ready and healthy, one deleted failure member and its deadline
      const members = Array.from({ length: n }, (_, i) => ({ ...member(0), name: `basic-pd-${i}`, clientURL: `http://basic-pd-${i}.basic-pd-peer.demo.svc:2379` }));
      const tc = tidbCluster(replicas(n), status(members, { 'basic-pd-1': { podName: 'basic-pd-1', memberDeleted: true }, 'basic-pd-2': { podName: 'basic-pd-2' } }));
      const pods = readyPods(...members.map(() => true));
      // Act
      const decision = failover(tc, pods, view(0), withDeadlines(deadline1(T0)));
      // Assess
      expect(decision.status?.pd?.failureMembers).toBeUndefined();
      expect(decision.status?.pd?.members).toEqual(tc.status?.pd?.members);
      expect(decision.actions).toEqual([{ kind: 'state.deleteDeadline', deadline: { component: 'pd', member: 'basic-pd-1', kind: 'failover' } }]);
      expect(decision.outcome).toEqual(retry(0, 'PD recovered: failure members cleared'));
      expect(decision.stop).toBe(true);
      expect(tc.spec.pd?.replicas).toBe(n);
    },
  );
});

describe('Fixture P SQ4 — PD failover end to end (failover and scale rules, step by step)', () => {
  it('waits for the deadline, marks, deletes, scales out a replacement, recovers, scales the extra member in', () => {
    // R0 (T0): pd-1 unhealthy since T0: deadline persisted, woken at T0 + 5 min
    const sick = [member(0), member(1, T0), member(2)];
    const r0 = failover(tidbCluster(fixtureA(sick)), view(0, 1, 2), pod1(), pvcs1());
    expect(r0.wakeAtMs).toBe(T0 + 5 * MIN);
    // R1 (T0 + 5 min): marked
    const r1 = failover(tidbCluster(fixtureA(sick)), view(0, 1, 2), pod1(), pvcs1(), (s) => ({ ...s, nowMs: T0 + 5 * MIN }));
    const marks = r1.status?.pd?.failureMembers;
    expect(Object.keys(marks ?? {})).toEqual(['basic-pd-1']);
    // R2: deleted from PD, pod and PVCs deleted
    const r2 = failover(tidbCluster(fixtureA(sick, { failureMembers: marks })), view(0, 1, 2), pod1(), pvcs1());
    expect(r2.actions.map((a) => a.kind)).toEqual(['event', 'pd.deleteMember', 'event', 'delete', 'delete', 'delete']);
    // R3: observed gone ⇒ memberDeleted ⇒ desired replicas 4
    const r3 = failover(tidbCluster(fixtureA(sick, { failureMembers: marks })), view(0, 2), pod1({ createdAtMs: T0 + 6 * MIN }));
    const deleted = r3.status?.pd?.failureMembers;
    expect(deleted?.['basic-pd-1']?.memberDeleted).toBe(true);
    // R4: the scaler adds ordinal 3
    const tc4 = tidbCluster(fixtureA(sick, { failureMembers: deleted }));
    const r4 = planPdScale(ruleInputOf(snapshot(withCluster(tc4), withOwned('StatefulSet', pdSetOf(tc4, { replicas: 3 })), view(0, 2))));
    expect(r4.actions).toEqual([expect.objectContaining({ kind: 'update', object: expect.objectContaining({ spec: expect.objectContaining({ replicas: 4 }) }) })]);
    // R5: pods 0..2 Ready and healthy again ⇒ recover
    const healed = [member(0), member(1), member(2), { ...member(0), name: 'basic-pd-3', clientURL: 'http://basic-pd-3.basic-pd-peer.demo.svc:2379' }];
    const tc5 = tidbCluster(fixtureA(healed, { failureMembers: deleted, statefulSet: { replicas: 4 } }));
    const pods = withOwned('Pod', ...[0, 1, 2, 3].map((i) => testPod(`basic-pd-${i}`, { claims: [`pd-basic-pd-${i}`] })));
    const r5 = planPdFailover(ruleInputOf(snapshot(withCluster(tc5), withOwned('StatefulSet', pdSetOf(tc5, { replicas: 4 })), pods, view(0, 1, 2))));
    expect(r5.status?.pd?.failureMembers).toBeUndefined();
    // R6: desired back to 3 ⇒ normal scale-in of basic-pd-3
    const tc6 = tidbCluster(fixtureA(healed, { statefulSet: { replicas: 4 } }));
    const pvc3 = withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-3', 'basic-pd-3'));
    const listed = withPd(pdViewOf([0, 1, 2, 3].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0'));
    const r6 = planPdScale(ruleInputOf(snapshot(withCluster(tc6), withOwned('StatefulSet', pdSetOf(tc6, { replicas: 4 })), pods, pvc3, listed)));
    expect(r6.actions.map((a) => a.kind)).toEqual(['pd.deleteMember', 'patch', 'update']);
    expect(r6.actions[0]).toEqual({ kind: 'pd.deleteMember', name: 'basic-pd-3' });
  });
});
