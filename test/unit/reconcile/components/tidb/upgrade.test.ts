import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../../../../lib/model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { tidbRules } from '../../../../../lib/reconcile/components/tidb/recipe.js';
import { SMOOTH_UPGRADE, planSmoothUpgradeFinish } from '../../../../../lib/reconcile/components/tidb/smooth-upgrade.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { planMemberUpgrade } from '../../../../../lib/reconcile/member/upgrade.js';
import { T0, changeSpec, changeStatus, ruleInputOf, snapshot, tidbCluster, withCluster, withOwned, type Change } from '../../../../support/fixtures.js';
import { tidbPod, tidbRule, tidbSetOf } from '../../../../support/tidb-rules.js';

type Status = TidbClusterStatus;
const upgradeRule = tidbRule(planMemberUpgrade);
const finishRule = tidbRule(planSmoothUpgradeFinish);

/** Fixture J's status: TiDB StatefulSet between revisions "1" → "2" (`updateRevision`), members healthy unless listed; PD and TiKV Normal. */
function fixtureJ(o: { tidbPhase?: string; updateRevision?: string; unhealthy?: number[]; others?: Partial<Record<'pd' | 'tikv' | 'tiflash' | 'pump', string>> } = {}): Change<TidbCluster> {
  const members = Object.fromEntries([0, 1].map((i) => [`basic-tidb-${i}`, { name: `basic-tidb-${i}`, health: !(o.unhealthy ?? []).includes(i) }]));
  return changeStatus((s): Status => ({
    ...s,
    pd: { phase: o.others?.pd ?? 'Normal', synced: true },
    // TiKV available (one store Up, a Ready replica), so TiDB's block gets past its dependency gate.
    tikv: { phase: o.others?.tikv ?? 'Normal', synced: true, stores: { '1': { id: '1', ip: '', podName: 'basic-tikv-0', leaderCount: 1, state: 'Up' } }, statefulSet: { replicas: 3, readyReplicas: 3 } },
    ...(o.others?.tiflash === undefined ? {} : { tiflash: { phase: o.others.tiflash } }),
    ...(o.others?.pump === undefined ? {} : { pump: { phase: o.others.pump } }),
    tidb: {
      phase: o.tidbPhase ?? 'Upgrade',
      members,
      statefulSet: { replicas: 2, currentReplicas: 1, updatedReplicas: 1, currentRevision: '1', updateRevision: o.updateRevision ?? '2' },
    },
  }));
}
const annotate = (annotations: Record<string, string>): Change<TidbCluster> => (tc) => ({ ...tc, metadata: { ...tc.metadata, annotations: { ...tc.metadata.annotations, ...annotations } } });
const version = (v: string): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, version: v }));

/** Fixture J's world: the live set (partition 1, last-applied of `setOf`), pods tidb-0 on "1" and tidb-1 on "2". */
function world(tc: TidbCluster, o: { setOf?: TidbCluster; ready?: boolean; readySinceMs?: number; live?: (s: IStatefulSet) => IStatefulSet } = {}): Change<Snapshot>[] {
  const base = tidbSetOf(tc, { partition: 1, currentRevision: '1', updateRevision: tc.status?.tidb?.statefulSet?.updateRevision ?? '2', updatedReplicas: 1, templateOf: o.setOf ?? tc });
  const set = o.live ? o.live(base) : base;
  const pod = (ordinal: number, revision: string) =>
    tidbPod(ordinal, { revision, ready: o.ready ?? true, ...(o.readySinceMs === undefined ? {} : { readySinceMs: o.readySinceMs }) });
  return [withCluster(tc), withOwned('StatefulSet', set), withOwned('Pod', pod(0, '1'), pod(1, '2'))];
}

const stsWrites = (actions: readonly Action[]) => actions.filter((a) => a.kind === 'update' && a.ref.kind === 'StatefulSet');
const partitionOfWrite = (actions: readonly Action[]): number | undefined => {
  const write = stsWrites(actions)[0];
  if (write?.kind !== 'update') return undefined;
  return (write.object.spec as IStatefulSet['spec'])?.updateStrategy?.rollingUpdate?.partition;
};

describe('TiDB upgrader (Fixture J)', () => {
  it.each([
    { name: 'S130 PD and TiKV Normal: partition moves to 0', changes: [], world: {}, outcome: 'retry', partition: 0 },
    { name: 'S131 no pod Ready: requeue, partition stays 1', changes: [], world: { ready: false }, outcome: 'retry', partition: undefined },
    { name: 'S134 updateRevision "1": tidb-1 is next, partition stays 1', changes: [fixtureJ({ updateRevision: '1' })], world: {}, outcome: 'retry', partition: undefined },
    { name: 'S136 member tidb-1 unhealthy: requeue, partition stays 1', changes: [fixtureJ({ unhealthy: [1] })], world: {}, outcome: 'retry', partition: undefined },
    {
      name: 'S137 tidb-min-ready-seconds 300 and tidb-1 Ready since now: not available, partition stays 1',
      changes: [annotate({ 'tidb.pingcap.com/tidb-min-ready-seconds': '300' })],
      world: { readySinceMs: T0 },
      outcome: 'retry',
      partition: undefined,
    },
  ])('$name', ({ changes, world: w, outcome, partition }) => {
    // Prepare
    const tc = tidbCluster(fixtureJ(), ...changes);
    // Act
    const decision = upgradeRule(ruleInputOf(snapshot(...world(tc, w))));
    // Assess
    expect(decision.outcome.kind).toBe(outcome);
    expect(decision.status?.tidb?.phase).toBe('Upgrade');
    expect(partitionOfWrite(decision.actions)).toBe(partition);
  });

  it('S132 the live strategy OnDelete is kept: the StatefulSet controller rolls the pods', () => {
    const tc = tidbCluster(fixtureJ());
    const onDelete = (s: IStatefulSet): IStatefulSet => ({ ...s, spec: { ...s.spec, selector: s.spec?.selector ?? {}, template: s.spec?.template ?? {}, updateStrategy: { type: 'OnDelete' } } });
    const decision = upgradeRule(ruleInputOf(snapshot(...world(tc, { live: onDelete }))));
    expect(decision.outcome.kind).toBe('complete');
    expect(decision.status?.tidb?.phase).toBe('Upgrade');
    expect(stsWrites(decision.actions)).toEqual([]);
  });

  it.each([
    { name: 'S133 PD upgrading', others: { pd: 'Upgrade' } },
    { name: 'S133 TiKV upgrading', others: { tikv: 'Upgrade' } },
    { name: 'S133 TiFlash upgrading', others: { tiflash: 'Upgrade' } },
    { name: 'S133 Pump upgrading', others: { pump: 'Upgrade' } },
    { name: 'TiKV scaling', others: { tikv: 'Scale' } },
    { name: 'PD scaling', others: { pd: 'Scale' } },
  ])('$name: the upgrade waits with partition and template frozen (P16)', ({ others }) => {
    // Prepare: TiDB's own phase is Normal, as its status sync says while another component upgrades.
    const tc = tidbCluster(fixtureJ({ tidbPhase: 'Normal', others }));
    // Act: the whole TiDB block, so the StatefulSet write at its end is seen too.
    const plan = planStep(snapshot(...world(tc)), tidbRules);
    // Assess: the block ran to its end, and wrote nothing to the StatefulSet — partition 1 and the applied template stay.
    expect(plan.outcome.kind).not.toBe('wait');
    expect(stsWrites(plan.actions)).toEqual([]);
  });

  it('P16 a new pod spec while TiKV upgrades is not written, and the rollout in progress keeps its partition', () => {
    // Prepare: the live set runs v8.5.0 mid-rollout (partition 1); the spec now asks v8.5.1.
    const applied = tidbCluster(fixtureJ({ tidbPhase: 'Normal', others: { tikv: 'Upgrade' } }));
    const tc = tidbCluster(fixtureJ({ tidbPhase: 'Normal', others: { tikv: 'Upgrade' } }), version('v8.5.1'));
    // Act
    const plan = planStep(snapshot(...world(tc, { setOf: applied })), tidbRules);
    // Assess
    expect(plan.outcome.kind).not.toBe('wait');
    expect(stsWrites(plan.actions)).toEqual([]);
  });

  it('S135 TiKV upgrading and no readable last-applied record: the live template and partition are kept', () => {
    // Beyond v1 (which errors): the freeze writes the live template and partition back with a record.
    const tc = tidbCluster(fixtureJ({ tidbPhase: 'Normal', others: { tikv: 'Upgrade' } }));
    const broken = (s: IStatefulSet): IStatefulSet => ({ ...s, metadata: { ...s.metadata, annotations: { 'pingcap.com/last-applied-configuration': '{not json' } } });
    const plan = planStep(snapshot(...world(tc, { live: broken })), tidbRules);
    const writes = stsWrites(plan.actions);
    expect(writes).toHaveLength(1);
    expect(partitionOfWrite(writes)).toBe(1);
    const written = writes[0]?.kind === 'update' ? (writes[0].object.spec as IStatefulSet['spec']) : undefined;
    expect(written?.template).toEqual(tidbSetOf(tc).spec?.template);
  });
});

describe('TiDB smooth upgrade (Fixture J S138, P20)', () => {
  const from = tidbCluster(fixtureJ({ tidbPhase: 'Normal', updateRevision: '1' }), version('v7.4.0'));
  const marker = { [SMOOTH_UPGRADE.ddlPaused]: 'true', [SMOOTH_UPGRADE.sourceVersion]: 'v7.4.0', [SMOOTH_UPGRADE.targetVersion]: 'v7.5.0' };

  function step(...changes: Change<TidbCluster>[]) {
    const tc = tidbCluster(fixtureJ({ tidbPhase: 'Normal', updateRevision: '1' }), version('v7.5.0'), ...changes);
    return upgradeRule(ruleInputOf(snapshot(...world(tc, { setOf: from }))));
  }

  it.each([
    {
      name: 'S138 v7.4.0 → v7.5.0, no marker: the marker is persisted first, nothing else',
      changes: [],
      actions: [expect.objectContaining({ kind: 'patch', ref: expect.objectContaining({ kind: 'TidbCluster' }), patch: { metadata: { annotations: marker } } })],
    },
    {
      name: 'S138 marker persisted: /upgrade/start on ordinal 0, then started-at recorded',
      changes: [annotate(marker)],
      actions: [
        { kind: 'tidb.startUpgrade', pod: 'basic-tidb-0' },
        expect.objectContaining({ kind: 'patch', patch: { metadata: { annotations: { [SMOOTH_UPGRADE.startedAt]: '2026-01-01T00:00:00Z' } } } }),
      ],
    },
    {
      name: 'a marker of another version pair is finished and cleared first',
      changes: [annotate({ ...marker, [SMOOTH_UPGRADE.sourceVersion]: 'v7.1.2', [SMOOTH_UPGRADE.startedAt]: '2025-12-31T00:00:00Z' })],
      actions: [{ kind: 'tidb.finishUpgrade', pod: 'basic-tidb-0' }, expect.objectContaining({ kind: 'patch' })],
    },
  ])('$name', ({ changes, actions }) => {
    const decision = step(...changes);
    expect(decision.actions).toEqual(actions);
    expect(decision.outcome.kind).toBe('retry');
  });

  it.each([
    { name: 'persisting the marker', changes: [] },
    { name: 'the /upgrade/start call', changes: [annotate(marker)] },
    { name: 'finishing a stale marker', changes: [annotate({ ...marker, [SMOOTH_UPGRADE.sourceVersion]: 'v7.1.2' })] },
  ])('as TiDB Operator, TiDB is in phase Upgrade from the smooth upgrade\'s first step on ($name), so TiCDC behind it waits', ({ changes }) => {
    // Act: a step that only does the smooth upgrade's work (no pod spec written yet)
    const decision = step(...changes);
    // Assess
    expect(stsWrites(decision.actions)).toEqual([]);
    expect(decision.status?.tidb?.phase).toBe('Upgrade');
  });

  it('S138 once started, the new pod spec is written with partition = replicas', () => {
    const decision = step(annotate({ ...marker, [SMOOTH_UPGRADE.startedAt]: '2026-01-01T00:00:00Z' }));
    expect(partitionOfWrite(decision.actions)).toBe(2);
    expect(decision.status?.tidb?.phase).toBe('Upgrade');
  });

  it('a pair that needs no DDL pause (v8.5.0 → v8.5.1 is switch-controlled, v6.5.0 → v7.5.0 is not) goes straight to the pod spec', () => {
    const old = tidbCluster(fixtureJ({ tidbPhase: 'Normal', updateRevision: '1' }), version('v6.5.0'));
    const tc = tidbCluster(fixtureJ({ tidbPhase: 'Normal', updateRevision: '1' }), version('v7.5.0'));
    const decision = upgradeRule(ruleInputOf(snapshot(...world(tc, { setOf: old }))));
    expect(decision.actions.map((a) => a.kind)).toEqual(['update']);
  });

  it.each([
    { name: 'rollout done, members healthy: finish, then clear the marker', updated: 2, phase: 'Normal', unhealthy: [] as number[], expected: ['tidb.finishUpgrade', 'patch'] },
    { name: 'rollout not done: nothing yet', updated: 1, phase: 'Normal', unhealthy: [], expected: [] },
    { name: 'still upgrading: nothing yet', updated: 2, phase: 'Upgrade', unhealthy: [], expected: [] },
    { name: 'a member unhealthy: nothing yet', updated: 2, phase: 'Normal', unhealthy: [1], expected: [] },
  ])('finish: $name', ({ updated, phase, unhealthy, expected }) => {
    const tc = tidbCluster(
      annotate({ ...marker, [SMOOTH_UPGRADE.startedAt]: '2026-01-01T00:00:00Z' }),
      fixtureJ({ tidbPhase: phase, unhealthy }),
      changeStatus((s) => ({ ...s, tidb: { ...s.tidb, statefulSet: { replicas: 2, updatedReplicas: updated } } })),
    );
    const decision = finishRule(ruleInputOf(snapshot(...world(tc))));
    expect(decision.actions.map((a) => a.kind)).toEqual(expected);
  });
});

describe('TiDB smooth upgrade finish waits for the new pod spec', () => {
  it('marker persisted but the pod spec not written yet: the old rollout looks done, and nothing is finished', () => {
    // Prepare: the live set is at rest on v7.4.0; the spec asks v7.5.0; the marker is on.
    const from = tidbCluster(fixtureJ({ tidbPhase: 'Normal', updateRevision: '1' }), version('v7.4.0'));
    const tc = tidbCluster(
      annotate({ [SMOOTH_UPGRADE.ddlPaused]: 'true', [SMOOTH_UPGRADE.sourceVersion]: 'v7.4.0', [SMOOTH_UPGRADE.targetVersion]: 'v7.5.0' }),
      fixtureJ({ tidbPhase: 'Normal' }),
      changeStatus((s) => ({ ...s, tidb: { ...s.tidb, statefulSet: { replicas: 2, updatedReplicas: 2 } } })),
      version('v7.5.0'),
    );
    // Act
    const decision = tidbRule(planSmoothUpgradeFinish)(ruleInputOf(snapshot(...world(tc, { setOf: from }))));
    // Assess
    expect(decision.actions).toEqual([]);
  });
});
