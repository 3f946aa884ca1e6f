import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { complete, fail, retry } from '../../../../../lib/reconcile/engine/outcome.js';
import { pdRestartQuorum } from '../../../../../lib/reconcile/components/pd/quorum.js';
import { choosePdToTransferFromMembers } from '../../../../../lib/reconcile/components/pd/upgrade.js';
import { pdInputOf, planPdUpgrade } from '../../../../support/pd-rules.js';
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
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  type Change,
} from '../../../../support/fixtures.js';

type PdStatus = NonNullable<TidbClusterStatus['pd']>;

const statusMember = (i: number, health = true) => ({
  name: `basic-pd-${i}`,
  id: pdMemberView(`basic-pd-${i}`).id,
  clientURL: `http://basic-pd-${i}.basic-pd-peer.demo.svc:2379`,
  health,
});

/** Fixture C's status: members 0..2 (healthy unless listed), synced, sts between revisions "1" → "2". */
function fixtureC(o: { phase?: string; synced?: boolean; unhealthy?: number[]; updateRevision?: string } = {}): Change<TidbCluster> {
  const members = Object.fromEntries([0, 1, 2].map((i) => [`basic-pd-${i}`, statusMember(i, !(o.unhealthy ?? []).includes(i))]));
  const pd: PdStatus = {
    phase: o.phase ?? 'Upgrade',
    synced: o.synced ?? true,
    members,
    statefulSet: { replicas: 3, readyReplicas: 3, currentRevision: '1', updateRevision: o.updateRevision ?? '2' },
  };
  return changeStatus((s) => ({ ...s, pd }));
}
const annotate = (annotations: Record<string, string>): Change<TidbCluster> => (tc) => ({ ...tc, metadata: { ...tc.metadata, annotations } });
const oldVersion: Change<TidbCluster> = changeSpec((spec) => ({ ...spec, version: 'v8.1.0' }));
const pods = (revisions: string[], ready = true, readySinceMs?: number) =>
  withOwned('Pod', ...revisions.map((r, i) => testPod(`basic-pd-${i}`, { revision: r, ready, ...(readySinceMs === undefined ? {} : { readySinceMs }) })));
const view = (leader: string, o: { unhealthy?: number[]; notReady?: number[] } = {}) =>
  withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`, { health: !(o.unhealthy ?? []).includes(i), ready: !(o.notReady ?? []).includes(i) })), leader));

function upgrade(tc: TidbCluster, live: IStatefulSet, ...changes: Change<Snapshot>[]) {
  return planPdUpgrade(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', live), ...changes)));
}
const partitionWrite = (partition: number, image = 'pingcap/pd:v8.5.0') =>
  expect.objectContaining({
    kind: 'update',
    resourceVersion: '50',
    object: expect.objectContaining({
      spec: expect.objectContaining({
        replicas: 3,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } },
        template: expect.objectContaining({ spec: expect.objectContaining({ containers: [expect.objectContaining({ image })] }) }),
      }),
    }),
  });
const liveC = (tc: TidbCluster, partition = 2) => pdSetOf(tc, { partition, currentRevision: '1', updateRevision: '2' });
const phaseOf = (d: ReturnType<typeof planPdUpgrade>) => d.status?.pd?.phase;

type Row = { name: string; tc: TidbCluster; live?: IStatefulSet; changes: Change<Snapshot>[]; actions: unknown[]; outcome: unknown; phase: string | undefined };

describe('Fixture C — PD upgrader (partition arithmetic, descending ordinals)', () => {
  const base = [pods(['1', '1', '2']), view('basic-pd-2')];
  it.each<Row>([
    {
      name: 'C S29: pd-2 updated and verified, pd-1 next: partition 1, phase Upgrade',
      tc: tidbCluster(fixtureC()),
      changes: base,
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading PD: partition 1'),
      phase: 'Upgrade',
    },
    {
      name: 'C S30: pods not Ready: wait on pd-2, partition stays 2',
      tc: tidbCluster(fixtureC()),
      changes: [pods(['1', '1', '2'], false), view('basic-pd-2')],
      actions: [],
      outcome: retry(5_000, "tidbcluster: [demo/basic]'s pd upgraded pod: [basic-pd-2] is not ready"),
      phase: 'Upgrade',
    },
    {
      name: 'C S33: the pod template changed: write it with partition 3 (nothing rolls yet)',
      tc: tidbCluster(fixtureC({ phase: 'Normal' })),
      live: liveC(tidbCluster(oldVersion), 3),
      changes: base,
      actions: [partitionWrite(3)],
      outcome: retry(5_000, 'PD pod template changed: upgrade starts'),
      phase: 'Upgrade',
    },
    {
      name: 'C S34: phase Scale and template changed: no write, phase stays Scale',
      tc: tidbCluster(fixtureC({ phase: 'Scale' })),
      live: liveC(tidbCluster(oldVersion), 3),
      changes: base,
      actions: [],
      outcome: complete('PD is scaling: the upgrade waits'),
      phase: undefined,
    },
    {
      name: 'C S35: member pd-2 unhealthy: wait, partition stays 2',
      tc: tidbCluster(fixtureC({ unhealthy: [2] })),
      changes: base,
      actions: [],
      outcome: retry(1_000, "tidbcluster: [demo/basic]'s pd upgraded pod: [basic-pd-2] is not health"),
      phase: 'Upgrade',
    },
    {
      name: 'C S35b: pd-2 not ready by /pd/api/v2/ready: wait, partition stays 2',
      tc: tidbCluster(fixtureC()),
      changes: [pods(['1', '1', '2']), view('basic-pd-2', { notReady: [2] })],
      actions: [],
      outcome: retry(1_000, "tidbcluster: [demo/basic]'s pd upgraded pod: [basic-pd-2] is not ready by /pd/api/v2/ready"),
      phase: 'Upgrade',
    },
    {
      name: 'C S36/S38: leader pd-1 restarts next: transfer to basic-pd-2 first, partition stays 2',
      tc: tidbCluster(fixtureC()),
      changes: [pods(['1', '1', '2']), view('basic-pd-1')],
      actions: [{ kind: 'pd.transferLeader', to: 'basic-pd-2' }],
      outcome: retry(1_000, 'moving PD leadership from basic-pd-1 to basic-pd-2 before it restarts'),
      phase: 'Upgrade',
    },
    {
      name: 'C S37: status not synced: fail, phase stays',
      tc: tidbCluster(fixtureC({ synced: false })),
      changes: base,
      actions: [],
      outcome: fail("tidbcluster: [demo/basic]'s pd status sync failed, can not to be upgraded"),
      phase: undefined,
    },
    {
      name: 'C S39: pd-check-quorum-before-upgrade and PD reports 0 of 1 healthy: fail with the exact message',
      tc: tidbCluster(fixtureC(), annotate({ 'tidb.pingcap.com/pd-check-quorum-before-upgrade': 'true' })),
      live: liveC(tidbCluster(), 3),
      changes: [pods(['1', '1', '1']), withPd(pdViewOf([pdMemberView('basic-pd-1', { health: false })], 'basic-pd-0'))],
      actions: [],
      outcome: fail('Peer PDs is unstable: Only 0 out of 1 PDs are healthy'),
      phase: 'Upgrade',
    },
    {
      name: 'C S40: an unhealthy member without the annotation does not block: partition 1',
      tc: tidbCluster(fixtureC()),
      changes: [pods(['1', '1', '2']), view('basic-pd-2', { unhealthy: [1] })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading PD: partition 1'),
      phase: 'Upgrade',
    },
    {
      name: 'C S41: tidb-min-ready-seconds does not apply to PD: partition 1',
      tc: tidbCluster(fixtureC(), annotate({ 'tidb.pingcap.com/tidb-min-ready-seconds': '300' })),
      changes: [pods(['1', '1', '2'], true, T0), view('basic-pd-2')],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading PD: partition 1'),
      phase: 'Upgrade',
    },
    {
      name: 'C S41b: pd-min-ready-seconds=300, pd-2 Ready for 100 s: come back exactly when it is available',
      tc: tidbCluster(fixtureC(), annotate({ 'tidb.pingcap.com/pd-min-ready-seconds': '300' })),
      changes: [pods(['1', '1', '2'], true, T0 - 100_000), view('basic-pd-2')],
      actions: [],
      outcome: retry(200_000, "tidbcluster: [demo/basic]'s pd upgraded pod: [basic-pd-2] is not available"),
      phase: 'Upgrade',
    },
  ])('$name', ({ tc, live, changes, actions, outcome, phase }) => {
    // Act
    const decision = upgrade(tc, live ?? liveC(tidbCluster()), ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(phaseOf(decision)).toBe(phase);
  });

  it.each<{ name: string; strategy: IStatefulSet['spec'] }>([
    { name: 'C S31: old strategy OnDelete: left to the StatefulSet controller', strategy: { selector: {}, template: {}, updateStrategy: { type: 'OnDelete' } } },
    { name: 'C S32: RollingUpdate without parameters: left to the StatefulSet controller', strategy: { selector: {}, template: {}, updateStrategy: { type: 'RollingUpdate' } } },
  ])('$name', ({ strategy }) => {
    // Prepare
    const live = liveC(tidbCluster());
    const changed = { ...live, spec: { ...(live.spec ?? { selector: {}, template: {} }), updateStrategy: strategy?.updateStrategy } };
    // Act
    const decision = upgrade(tidbCluster(fixtureC()), changed, ...base);
    // Assess
    expect(decision.actions).toEqual([]);
    expect(decision.outcome).toEqual(complete('PD pods are rolled by the StatefulSet update strategy'));
    expect(phaseOf(decision)).toBe('Upgrade');
  });
});

describe('quorum is never broken on purpose: a member restarts only if a majority keeps serving (beyond TiDB Operator)', () => {
  const held = 'restarting basic-pd-1 for the PD upgrade waits: it would leave 1 of 3 PD members serving, not a majority (not serving: basic-pd-0)';
  // Reported once while the restart waits: the executor skips it while a recent Event has it.
  const warning = { kind: 'event', type: 'Warning', reason: 'PDQuorumAtRisk', message: held, object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' }, once: true };
  const peers = (n: number): Change<TidbCluster> =>
    changeStatus((st) => ({
      ...st,
      pd: { ...st.pd, peerMembers: Object.fromEntries(Array.from({ length: n }, (_, i) => [`other-pd-${i}`, { name: `other-pd-${i}`, id: `9${i}`, clientURL: 'x', health: true }])) },
    }));
  it.each<Row>([
    {
      name: 'pd-0 already down, pd-1 next: 1 of 3 would serve, so wait with a Warning; partition stays 2',
      tc: tidbCluster(fixtureC({ unhealthy: [0] })),
      changes: [pods(['1', '1', '2']), view('basic-pd-2', { unhealthy: [0] })],
      actions: [warning],
      outcome: retry(5_000, held),
      phase: 'Upgrade',
    },
    {
      name: 'the leader is not moved while the restart waits for quorum',
      tc: tidbCluster(fixtureC({ unhealthy: [0] })),
      changes: [pods(['1', '1', '2']), view('basic-pd-1', { unhealthy: [0] })],
      actions: [warning],
      outcome: retry(5_000, held),
      phase: 'Upgrade',
    },
    {
      name: 'the member to restart is the one down: the other two keep serving, partition 1',
      tc: tidbCluster(fixtureC({ unhealthy: [1] })),
      changes: [pods(['1', '1', '2']), view('basic-pd-2', { unhealthy: [1] })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading PD: partition 1'),
      phase: 'Upgrade',
    },
    {
      name: 'peer members count: pd-0 down but two healthy peers, 3 of 5 keep serving, partition 1',
      tc: tidbCluster(fixtureC({ unhealthy: [0] }), peers(2)),
      changes: [pods(['1', '1', '2']), view('basic-pd-2', { unhealthy: [0] })],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading PD: partition 1'),
      phase: 'Upgrade',
    },
    {
      name: 'healed: every member healthy again, the upgrade resumes at partition 1',
      tc: tidbCluster(fixtureC()),
      changes: [pods(['1', '1', '2']), view('basic-pd-2')],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading PD: partition 1'),
      phase: 'Upgrade',
    },
  ])('$name', ({ tc, changes, actions, outcome, phase }) => {
    // Act
    const decision = upgrade(tc, liveC(tidbCluster()), ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(phaseOf(decision)).toBe(phase);
  });

  it.each<{ name: string; members: boolean[]; restart: number; keepsQuorum: boolean }>([
    { name: 'a lone PD restarts anyway (no restart could keep its quorum)', members: [true], restart: 0, keepsQuorum: true },
    { name: 'two members, the other healthy: unavoidable, allowed', members: [true, true], restart: 1, keepsQuorum: true },
    { name: 'two members, the other down: not allowed', members: [false, true], restart: 1, keepsQuorum: false },
    { name: 'three healthy: 2 of 3 keep serving', members: [true, true, true], restart: 2, keepsQuorum: true },
    { name: 'three, another one down: 1 of 3', members: [false, true, true], restart: 2, keepsQuorum: false },
    { name: 'five, two others down: 2 of 5', members: [false, false, true, true, true], restart: 4, keepsQuorum: false },
    { name: 'five, one other down: 3 of 5', members: [false, true, true, true, true], restart: 4, keepsQuorum: true },
  ])('pdRestartQuorum: $name', ({ members, restart, keepsQuorum }) => {
    // Prepare
    const status = Object.fromEntries(members.map((health, i) => [`basic-pd-${i}`, statusMember(i, health)]));
    const tc = tidbCluster(changeStatus((st) => ({ ...st, pd: { synced: true, members: status } })));
    // Act / Assess
    expect(pdRestartQuorum(ruleInputOf(snapshot(withCluster(tc))), `basic-pd-${restart}`).keepsQuorum).toBe(keepsQuorum);
  });
});

describe('C S42 — choosePDToTransferFromMembers', () => {
  it.each<{ name: string; ordinal: number; healthy: number[]; target: string }>([
    { name: 'C S42: ordinal 2, all healthy → pd-0', ordinal: 2, healthy: [0, 1, 2], target: 'basic-pd-0' },
    { name: 'C S42: ordinal 2, pd-0 unhealthy → pd-1', ordinal: 2, healthy: [1, 2], target: 'basic-pd-1' },
    { name: 'C S42: ordinal 2, only pd-2 healthy → none', ordinal: 2, healthy: [2], target: '' },
    { name: 'C S42: ordinal 1, all healthy → pd-2', ordinal: 1, healthy: [0, 1, 2], target: 'basic-pd-2' },
    { name: 'C S42: ordinal 1, pd-2 unhealthy → pd-0', ordinal: 1, healthy: [0, 1], target: 'basic-pd-0' },
    { name: 'C S42: ordinal 1, only pd-1 healthy → none', ordinal: 1, healthy: [1], target: '' },
    { name: 'C S42: ordinal 0, all healthy → pd-2', ordinal: 0, healthy: [0, 1, 2], target: 'basic-pd-2' },
    { name: 'C S42: ordinal 0, pd-2 unhealthy → pd-1', ordinal: 0, healthy: [0, 1], target: 'basic-pd-1' },
    { name: 'C S42: ordinal 0, only pd-0 healthy → none', ordinal: 0, healthy: [0], target: '' },
  ])('$name', ({ ordinal, healthy, target }) => {
    // Prepare
    const tc = tidbCluster(fixtureC({ unhealthy: [0, 1, 2].filter((i) => !healthy.includes(i)) }));
    const input = ruleInputOf(snapshot(withCluster(tc)));
    const before = JSON.stringify(input);
    // Act / Assess
    expect(choosePdToTransferFromMembers(pdInputOf(input), ordinal, 3)).toBe(target);
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('Fixture P SQ1 — PD image upgrade, 3 replicas, leader pd-2, step by step', () => {
  const next = tidbCluster(fixtureC({ phase: 'Upgrade', updateRevision: 'rev-2' }));
  const live = (partition: number) => pdSetOf(tidbCluster(), { partition, currentRevision: 'rev-1', updateRevision: 'rev-2' });
  it.each<Row>([
    {
      name: 'P SQ1 R1: the template differs: written with partition 3, no restart',
      tc: tidbCluster(fixtureC({ phase: 'Normal', updateRevision: 'rev-1' })),
      live: pdSetOf(tidbCluster(oldVersion)),
      changes: [pods(['rev-1', 'rev-1', 'rev-1']), view('basic-pd-2')],
      actions: [partitionWrite(3)],
      outcome: retry(5_000, 'PD pod template changed: upgrade starts'),
      phase: 'Upgrade',
    },
    {
      name: 'P SQ1 R2: ordinal 2 is first and leads: transfer to basic-pd-0 (no higher ordinal)',
      tc: next,
      live: live(3),
      changes: [pods(['rev-1', 'rev-1', 'rev-1']), view('basic-pd-2')],
      actions: [{ kind: 'pd.transferLeader', to: 'basic-pd-0' }],
      outcome: retry(1_000, 'moving PD leadership from basic-pd-2 to basic-pd-0 before it restarts'),
      phase: 'Upgrade',
    },
    {
      name: 'P SQ1 R3: leader now pd-0: partition 2',
      tc: next,
      live: live(3),
      changes: [pods(['rev-1', 'rev-1', 'rev-1']), view('basic-pd-0')],
      actions: [partitionWrite(2)],
      outcome: retry(5_000, 'upgrading PD: partition 2'),
      phase: 'Upgrade',
    },
    {
      name: 'P SQ1 R4: pd-2 restarting (old revision, partition 2): wait',
      tc: next,
      live: live(2),
      changes: [pods(['rev-1', 'rev-1', 'rev-1']), view('basic-pd-0')],
      actions: [],
      outcome: retry(5_000, 'waiting for basic-pd-2 to be upgraded'),
      phase: 'Upgrade',
    },
    {
      name: 'P SQ1 R5: pd-2 updated, Ready, healthy, ready: partition 1',
      tc: next,
      live: live(2),
      changes: [pods(['rev-1', 'rev-1', 'rev-2']), view('basic-pd-0')],
      actions: [partitionWrite(1)],
      outcome: retry(5_000, 'upgrading PD: partition 1'),
      phase: 'Upgrade',
    },
    {
      name: 'P SQ1 R6: ordinal 0 leads: transfer to basic-pd-2 (highest healthy above 0)',
      tc: next,
      live: live(1),
      changes: [pods(['rev-1', 'rev-2', 'rev-2']), view('basic-pd-0')],
      actions: [{ kind: 'pd.transferLeader', to: 'basic-pd-2' }],
      outcome: retry(1_000, 'moving PD leadership from basic-pd-0 to basic-pd-2 before it restarts'),
      phase: 'Upgrade',
    },
    {
      name: 'P SQ1 R7: leader moved: partition 0',
      tc: next,
      live: live(1),
      changes: [pods(['rev-1', 'rev-2', 'rev-2']), view('basic-pd-2')],
      actions: [partitionWrite(0)],
      outcome: retry(5_000, 'upgrading PD: partition 0'),
      phase: 'Upgrade',
    },
    {
      name: 'P SQ1 R8: every pod on the update revision: nothing left to roll',
      tc: next,
      live: live(0),
      changes: [pods(['rev-2', 'rev-2', 'rev-2']), view('basic-pd-2')],
      actions: [],
      outcome: complete('every PD pod runs the update revision'),
      phase: 'Upgrade',
    },
  ])('$name', ({ tc, live: sts, changes, actions, outcome, phase }) => {
    // Act
    const decision = upgrade(tc, sts ?? live(3), ...changes);
    // Assess
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome).toEqual(outcome);
    expect(phaseOf(decision)).toBe(phase);
  });
});
