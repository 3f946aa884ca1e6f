import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { isOwnPdMemberUrl } from '../../../../../lib/reconcile/components/pd/status.js';
import { planPdStatus } from '../../../../support/pd-rules.js';
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
  withPdErrorKind,
  type Change,
} from '../../../../support/fixtures.js';

const NOW = toKubeTime(T0);
const EARLIER = toKubeTime(T0 - 600_000);
const url = (i: number) => `http://basic-pd-${i}.basic-pd-peer.demo.svc:2379`;
const member = (i: number, health = true, lastTransitionTime = NOW) => ({
  name: `basic-pd-${i}`,
  id: pdMemberView(`basic-pd-${i}`).id,
  clientURL: url(i),
  health,
  lastTransitionTime,
});
const pods = (...ordinals: number[]) => ordinals.map((i) => testPod(`basic-pd-${i}`, { revision: 'rev-1', claims: [`pd-basic-pd-${i}`] }));
const withStatusPd = (pd: NonNullable<TidbClusterStatus['pd']>): Change<TidbCluster> => changeStatus((s) => ({ ...s, pd }));

function statusOf(tc: TidbCluster, ...changes: Change<Snapshot>[]): TidbClusterStatus['pd'] {
  const s = snapshot(withCluster(tc), withOwned('StatefulSet', pdSetOf(tc)), ...changes);
  return planPdStatus(ruleInputOf(s)).status?.pd;
}

describe('PD status sync from PD (Fixture E and §2.1)', () => {
  it.each<{ name: string; tc: TidbCluster; changes: Change<Snapshot>[]; expected: Partial<NonNullable<TidbClusterStatus['pd']>> }>([
    {
      name: 'E S60: pods basic-pd-0..2, PD lists 0 and 1 → basic-pd-2 is unjoined',
      tc: tidbCluster(),
      changes: [
        withPd(pdViewOf([pdMemberView('basic-pd-0'), pdMemberView('basic-pd-1')], 'basic-pd-0')),
        withOwned('Pod', ...pods(0, 1, 2)),
        withOwned('PersistentVolumeClaim', testPvc('pd-basic-pd-2', 'basic-pd-2', { uid: 'pvc-2' })),
      ],
      expected: {
        synced: true,
        phase: 'Normal',
        members: { 'basic-pd-0': member(0), 'basic-pd-1': member(1) },
        leader: member(0),
        unjoinedMembers: { 'basic-pd-2': { podName: 'basic-pd-2', pvcUIDSet: { 'pvc-2': {} }, createdAt: NOW } },
      },
    },
    {
      name: 'E S61: previously unjoined basic-pd-0, PD lists 0, 1, 2 → no unjoined, 3 members',
      tc: tidbCluster(withStatusPd({ unjoinedMembers: { 'basic-pd-0': { podName: 'basic-pd-0', createdAt: EARLIER } } })),
      changes: [
        withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-2')),
        withOwned('Pod', ...pods(0, 1, 2)),
      ],
      expected: {
        synced: true,
        members: { 'basic-pd-0': member(0), 'basic-pd-1': member(1), 'basic-pd-2': member(2) },
        leader: member(2),
        unjoinedMembers: undefined,
      },
    },
    {
      name: 'lastTransitionTime is kept while health is unchanged and moves when it flips',
      tc: tidbCluster(withStatusPd({ members: { 'basic-pd-0': member(0, true, EARLIER), 'basic-pd-1': member(1, true, EARLIER) } })),
      changes: [withPd(pdViewOf([pdMemberView('basic-pd-0'), pdMemberView('basic-pd-1', { health: false })], 'basic-pd-0'))],
      expected: { members: { 'basic-pd-0': member(0, true, EARLIER), 'basic-pd-1': member(1, false, NOW) } },
    },
    {
      name: 'a member of another cluster sharing PD is a peer member',
      tc: tidbCluster(),
      changes: [withPd(pdViewOf([pdMemberView('basic-pd-0'), pdMemberView('other-pd-0', { tc: 'other' })], 'other-pd-0'))],
      expected: {
        members: { 'basic-pd-0': member(0) },
        peerMembers: {
          'other-pd-0': { name: 'other-pd-0', id: pdMemberView('other-pd-0').id, clientURL: 'http://other-pd-0.other-pd-peer.demo.svc:2379', health: true, lastTransitionTime: NOW },
        },
      },
    },
    {
      // Changed by design (TiDB Operator keeps every member's last health while PD cannot be read).
      name: 'PD unreachable: synced false, a member whose pod is Ready keeps its health',
      tc: tidbCluster(withStatusPd({ synced: true, members: { 'basic-pd-0': member(0, true, EARLIER) } })),
      changes: [withPd(undefined, 'connect ECONNREFUSED'), withOwned('Pod', ...pods(0))],
      expected: { synced: false, phase: 'Normal', members: { 'basic-pd-0': member(0, true, EARLIER) } },
    },
  ])('$name', ({ tc, changes, expected }) => {
    // Act
    const pd = statusOf(tc, ...changes);
    // Assess
    expect(pd).toMatchObject(expected);
    if ('unjoinedMembers' in expected && expected.unjoinedMembers === undefined) expect(pd?.unjoinedMembers).toBeUndefined();
  });
});

describe('PD that cannot be read: only what is observed is reported (never stale health)', () => {
  const three = { 'basic-pd-0': member(0, true, EARLIER), 'basic-pd-1': member(1, true, EARLIER), 'basic-pd-2': member(2, false, EARLIER) };
  const peer = { name: 'other-pd-0', id: '9', clientURL: 'http://other-pd-0.other-pd-peer.demo.svc:2379', health: true, lastTransitionTime: EARLIER };
  const before = withStatusPd({ synced: true, members: three, peerMembers: { 'other-pd-0': peer }, leader: member(1, true, EARLIER) });
  const noLeader: Change<Snapshot> = withPdErrorKind('noLeader');
  const notReady = (i: number) => testPod(`basic-pd-${i}`, { revision: 'rev-1', ready: false });
  it.each<{ name: string; changes: Change<Snapshot>[]; expected: Partial<NonNullable<TidbClusterStatus['pd']>>; noLeaderRecorded?: boolean }>([
    {
      name: 'unreachable: pod Ready keeps its health, pod not Ready or gone is unhealthy from now, the leader record follows its member',
      changes: [withPd(undefined, 'HTTP 503: no endpoints available'), withOwned('Pod', ...pods(0), notReady(1))],
      expected: {
        synced: false,
        members: { 'basic-pd-0': member(0, true, EARLIER), 'basic-pd-1': member(1, false, NOW), 'basic-pd-2': member(2, false, EARLIER) },
        peerMembers: { 'other-pd-0': peer },
        leader: member(1, false, NOW),
      },
    },
    {
      name: 'no leader: no member is healthy, peers included, and there is no leader',
      changes: [withPd(undefined, 'HTTP 503: no leader'), noLeader, withOwned('Pod', ...pods(0, 1, 2))],
      expected: {
        synced: false,
        members: { 'basic-pd-0': member(0, false, NOW), 'basic-pd-1': member(1, false, NOW), 'basic-pd-2': member(2, false, EARLIER) },
        peerMembers: { 'other-pd-0': { ...peer, health: false, lastTransitionTime: NOW } },
      },
      noLeaderRecorded: true,
    },
  ])('$name', ({ changes, expected, noLeaderRecorded }) => {
    // Act
    const pd = statusOf(tidbCluster(before), ...changes);
    // Assess
    expect(pd).toMatchObject(expected);
    if (noLeaderRecorded === true) expect(pd?.leader).toBeUndefined();
  });
});

describe('PD status asks to be looked at again while PD converges, never at rest', () => {
  const healthy = withStatusPd({});
  const view = withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0'));
  const readyFor = (ms: number, ...ordinals: number[]) =>
    withOwned('Pod', ...ordinals.map((i) => testPod(`basic-pd-${i}`, { revision: 'rev-1', readySinceMs: T0 - ms })));
  const starting = (i: number) => testPod(`basic-pd-${i}`, { revision: 'rev-1', ready: false });
  it.each<{ name: string; changes: Change<Snapshot>[]; afterMs?: number }>([
    { name: 'at rest (every Ready pod has a healthy member): no wake-up', changes: [view, readyFor(3_600_000, 0, 1, 2)] },
    { name: 'PD not read and no pod Ready yet: the first Ready pod is an event, no timer', changes: [withPd(undefined, 'refused'), withOwned('Pod', starting(0))] },
    { name: 'PD not read, pods Ready for 8 s (members still joining): look again in 1 s', changes: [withPd(undefined, 'refused'), readyFor(8_000, 0, 1, 2)], afterMs: 1_000 },
    { name: 'PD not read, pods Ready for 30 s: look again in 5 s', changes: [withPd(undefined, 'refused'), readyFor(30_000, 0, 1, 2)], afterMs: 5_000 },
    { name: 'a pod Ready for 2 s whose member has not joined: look again in 1 s', changes: [withPd(pdViewOf([pdMemberView('basic-pd-0')], 'basic-pd-0')), readyFor(2_000, 0, 1)], afterMs: 1_000 },
    {
      name: 'a pod Ready for 20 s whose member is not healthy yet: look again in 2.5 s',
      changes: [withPd(pdViewOf([pdMemberView('basic-pd-0'), pdMemberView('basic-pd-1', { health: false })], 'basic-pd-0')), readyFor(20_000, 0, 1)],
      afterMs: 2_500,
    },
    { name: 'a long outage with Ready pods: at most every 30 s', changes: [withPd(undefined, 'no leader'), readyFor(3_600_000, 0, 1, 2)], afterMs: 30_000 },
  ])('$name', ({ changes, afterMs }) => {
    // Prepare
    const tc = tidbCluster(healthy);
    const s = snapshot(withCluster(tc), withOwned('StatefulSet', pdSetOf(tc)), ...changes);
    // Act
    const decision = planPdStatus(ruleInputOf(s));
    // Assess: a wake-up time (not a retry outcome), so an act rule's failure backoff cannot delay it.
    expect(decision.outcome.kind).toBe('complete');
    expect(decision.wakeAtMs === undefined ? undefined : decision.wakeAtMs - T0).toBe(afterMs);
  });
});

describe('PD status sync: steady state', () => {
  it('records the StatefulSet status, the image and the cluster id', () => {
    const tc = tidbCluster();
    const s = snapshot(withCluster(tc), withOwned('StatefulSet', pdSetOf(tc)), withPd(pdViewOf([pdMemberView('basic-pd-0')], 'basic-pd-0', '42')));
    const status = planPdStatus(ruleInputOf(s)).status;
    expect(status?.clusterID).toBe('42');
    expect(status?.pd?.image).toBe('pingcap/pd:v8.5.0');
    expect(status?.pd?.statefulSet).toEqual({ replicas: 3, readyReplicas: 3, currentRevision: 'rev-1', updateRevision: 'rev-1', observedGeneration: 1 });
  });

  it('a steady cluster computes the status it already has (so nothing is written)', () => {
    const tc0 = tidbCluster();
    const changes = [withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-1')), withOwned('Pod', ...pods(0, 1, 2))];
    const first = statusOf(tc0, ...changes);
    const tc1 = tidbCluster(withStatusPd(first ?? {}));
    const s = snapshot(withCluster(tc1), withOwned('StatefulSet', pdSetOf(tc1)), ...changes, (x) => ({ ...x, nowMs: T0 + 60_000 }));
    expect(planPdStatus(ruleInputOf(s)).status?.pd).toEqual(first);
  });
});

describe('PD phase (§1.6: Scale takes precedence over Upgrade, else Normal)', () => {
  const view = withPd(pdViewOf([pdMemberView('basic-pd-0')], 'basic-pd-0'));
  it.each<{ name: string; tc: TidbCluster; set: Parameters<typeof pdSetOf>[1]; podRevisions: string[]; phase: string }>([
    { name: 'replicas as desired, one revision: Normal', tc: tidbCluster(), set: {}, podRevisions: ['rev-1', 'rev-1', 'rev-1'], phase: 'Normal' },
    { name: 'StatefulSet between revisions: Upgrade', tc: tidbCluster(), set: { currentRevision: 'rev-1', updateRevision: 'rev-2' }, podRevisions: ['rev-1', 'rev-1', 'rev-2'], phase: 'Upgrade' },
    { name: 'a pod on an old revision: Upgrade', tc: tidbCluster(), set: { updateRevision: 'rev-2', currentRevision: 'rev-2' }, podRevisions: ['rev-1', 'rev-2', 'rev-2'], phase: 'Upgrade' },
    { name: 'a pod without a revision label: not upgrading', tc: tidbCluster(), set: { updateRevision: 'rev-2', currentRevision: 'rev-2' }, podRevisions: ['rev-1', ''], phase: 'Normal' },
    {
      name: 'spec replicas 5 while upgrading: Scale wins',
      tc: tidbCluster(changeSpec((spec) => ({ ...spec, pd: { ...spec.pd, replicas: 5 } }))),
      set: { replicas: 3, currentRevision: 'rev-1', updateRevision: 'rev-2' },
      podRevisions: ['rev-1'],
      phase: 'Scale',
    },
    {
      name: 'a deleted failure member raises the desired replicas: Scale',
      tc: tidbCluster(withStatusPd({ failureMembers: { 'basic-pd-1': { podName: 'basic-pd-1', memberDeleted: true } } })),
      set: {},
      podRevisions: [],
      phase: 'Scale',
    },
  ])('$name', ({ tc, set, podRevisions, phase }) => {
    // Prepare
    const podList = podRevisions.map((r, i) => testPod(`basic-pd-${i}`, r === '' ? {} : { revision: r }));
    const s = snapshot(withCluster(tc), withOwned('StatefulSet', pdSetOf(tc, set)), withOwned('Pod', ...podList), view);
    // Act / Assess
    expect(planPdStatus(ruleInputOf(s)).status?.pd?.phase).toBe(phase);
  });
});

describe('PD status: gating', () => {
  it('no status change before the StatefulSet exists, nor without spec.pd', () => {
    const view = withPd(pdViewOf([pdMemberView('basic-pd-0')], 'basic-pd-0'));
    expect(planPdStatus(ruleInputOf(snapshot(view))).status).toBeUndefined();
    const noPd = tidbCluster(changeSpec((spec) => ({ ...spec, pd: undefined })));
    expect(planPdStatus(ruleInputOf(snapshot(withCluster(noPd), view))).status).toBeUndefined();
  });

  it('tells own members from other clusters by client URL (cluster domain included)', () => {
    const input = ruleInputOf(snapshot());
    expect(isOwnPdMemberUrl(input, 'http://basic-pd-0.basic-pd-peer.demo.svc:2379')).toBe(true);
    expect(isOwnPdMemberUrl(input, 'https://basic-pd-12.basic-pd-peer.demo.svc:2379')).toBe(true);
    expect(isOwnPdMemberUrl(input, 'http://basic-pd-0.basic-pd-peer.other.svc:2379')).toBe(false);
    const withDomain = ruleInputOf(snapshot(withCluster(tidbCluster(changeSpec((spec) => ({ ...spec, clusterDomain: 'c1.local' }))))));
    expect(isOwnPdMemberUrl(withDomain, 'http://basic-pd-0.basic-pd-peer.demo.svc.c1.local:2379')).toBe(true);
  });
});
