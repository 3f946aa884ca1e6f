import { describe, expect, it } from '@jest/globals';

import type { Action } from '../../../../lib/model/action.js';
import type { TidbClusterStatus } from '../../../../lib/model/kube.js';
import type { Outcome } from '../../../../lib/model/outcome.js';
import { complete, fail, retry, wait } from '../../../../lib/reconcile/engine/outcome.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { actRule, ruleNames, statusRule, type Rule } from '../../../../lib/reconcile/engine/rule.js';
import { planClusterStatus } from '../../../../lib/reconcile/cluster/cluster-status.js';
import { planPaused } from '../../../../lib/reconcile/cluster/paused.js';
import { T0, changeSpec, convergedPd, healthy, paused, snapshot, tidbCluster, withCluster } from '../../../support/fixtures.js';

/** The engine's own rules: pausing and the Ready condition. */
const core: readonly Rule[] = [actRule('Paused', planPaused), statusRule('ClusterStatus', planClusterStatus)];

const event = (reason: string): Action => ({
  kind: 'event',
  type: 'Normal',
  reason,
  message: reason,
  object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
});

/** An act rule that emits an event named after itself and the given outcome. */
const acting = (name: string, outcome: Outcome = complete(), extra: { stop?: boolean; wakeAtMs?: number } = {}): Rule =>
  actRule(name, () => ({ actions: [event(name)], outcome, ...extra }));

/** A status rule that appends its name to `status.clusterID` (a free-form string field), so order is visible. */
const stamping = (name: string): Rule =>
  statusRule(name, ({ status }) => ({ status: { ...status, clusterID: `${status.clusterID ?? ''}${name};` }, outcome: complete() }));

describe('planning a step: rules in order, later rules see earlier status', () => {
  it('every rule runs in order and the plan lists their outcomes', () => {
    // Prepare
    const rules = [acting('A'), stamping('S'), acting('B', retry(5_000, 'poll'))];
    // Act
    const plan = planStep(snapshot(), rules);
    // Assess
    expect(plan.actions).toEqual([event('A'), event('B')]);
    expect(plan.ruleResults).toEqual([
      { rule: 'A', outcome: complete() },
      { rule: 'S', outcome: complete() },
      { rule: 'B', outcome: retry(5_000, 'poll') },
    ]);
    expect(plan.outcome).toEqual(retry(5_000, 'poll'));
  });

  it.each([
    { name: 'a halting act rule ends the step: neither act nor status rules after it run', halt: true, want: ['S1', 'Halt'] },
    { name: 'a stopping one ends the act rules only', halt: false, want: ['S1', 'Halt', 'S2'] },
  ])('$name', ({ halt, want }) => {
    const rules = [stamping('S1'), actRule('Halt', () => ({ actions: [event('Halt')], outcome: wait('another controller'), stop: true, ...(halt ? { halt } : {}) })), acting('C'), stamping('S2')];
    const plan = planStep(snapshot(), rules);
    expect(plan.ruleResults.map((r) => r.rule)).toEqual(want);
    expect(plan.actions).toEqual([event('Halt')]);
    expect(plan.status?.clusterID).toBe(halt ? 'S1;' : 'S1;S2;');
  });

  it('a later rule sees the status as an earlier rule left it', () => {
    const seen: (string | undefined)[] = [];
    const spy = statusRule('Spy', ({ status }) => {
      seen.push(status.clusterID);
      return { outcome: complete() };
    });
    planStep(snapshot(), [stamping('X'), stamping('Y'), spy]);
    expect(seen).toEqual(['X;Y;']);
  });

  it('a failing act rule stops the act rules after it; status rules still run and the status is kept', () => {
    const rules = [acting('A'), acting('Broken', fail('PD unreachable')), acting('C'), stamping('Status')];
    const plan = planStep(snapshot(), rules);
    expect(plan.actions).toEqual([event('A'), event('Broken')]);
    expect(plan.ruleResults.map((r) => r.rule)).toEqual(['A', 'Broken', 'Status']);
    expect(plan.status?.clusterID).toBe('Status;');
    expect(plan.outcome).toEqual(fail('PD unreachable'));
  });

  it('a rule may stop the sequence without failing (IfBreak)', () => {
    const plan = planStep(snapshot(), [acting('Gate', wait('blocked'), { stop: true }), acting('After'), stamping('S')]);
    expect(plan.ruleResults.map((r) => r.rule)).toEqual(['Gate', 'S']);
    expect(plan.outcome).toEqual(wait('blocked'));
  });

  it.each([
    { name: 'no rule asks: none', wakes: [], expected: undefined },
    { name: 'the earliest wake-up asked for wins', wakes: [T0 + 300_000, T0 + 60_000, T0 + 90_000], expected: T0 + 60_000 },
  ])('nextWakeAtMs: $name', ({ wakes, expected }) => {
    const rules = wakes.map((at, i) => acting(`R${i}`, wait('deadline'), { wakeAtMs: at }));
    expect(planStep(snapshot(), rules).nextWakeAtMs).toBe(expected);
  });

  it('an unchanged status plans no status write', () => {
    const cluster = tidbCluster(healthy());
    const rewrite = statusRule('Rewrite', ({ status }) => ({ status: JSON.parse(JSON.stringify(status)) as TidbClusterStatus, outcome: complete() }));
    expect(planStep(snapshot(withCluster(cluster)), [rewrite]).status).toBeUndefined();
  });

  it('a TidbCluster that no longer exists plans nothing', () => {
    const plan = planStep(snapshot(withCluster(undefined)), [acting('A')]);
    expect(plan).toEqual({ actions: [], status: undefined, outcome: complete('TidbCluster not found'), ruleResults: [] });
  });
});

describe('the registry', () => {
  it('runs Coexistence first, then Admission, Paused before anything writes, the PD microservices (tso, scheduling), PD and TiProxy recipes, then the TiFlash, TiKV, Pump, TiDB and TiCDC recipes, the volumes, and ClusterStatus last', () => {
    expect(ruleNames(clusterRules)).toEqual([
      'act:Coexistence',
      'act:Admission',
      'act:Paused',
      'act:Unmanaged',
      'act:MetaInfo',
      'act:PodLabels',
      'act:OrphanPods',
      'act:Discovery',
      'act:PdmsRemoved',
      'act:PdTsoGate',
      'status:PdTsoStatus',
      'act:PdTsoSuspend',
      'act:PdTsoDependencies',
      'act:PdTsoServices',
      'act:PdTsoConfigMap',
      'act:PdTsoScale',
      'act:PdTsoFailover',
      'act:PdTsoUpgrade',
      'act:PdTsoStatefulSet',
      'act:PdSchedulingGate',
      'status:PdSchedulingStatus',
      'act:PdSchedulingSuspend',
      'act:PdSchedulingDependencies',
      'act:PdSchedulingServices',
      'act:PdSchedulingConfigMap',
      'act:PdSchedulingScale',
      'act:PdSchedulingFailover',
      'act:PdSchedulingUpgrade',
      'act:PdSchedulingStatefulSet',
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
      'act:TiproxyGate',
      'status:TiproxyStatus',
      'act:TiproxySuspend',
      'act:TiproxyDependencies',
      'act:TiproxyAcrossK8s',
      'act:TiproxyServices',
      'act:TiproxyConfigMap',
      'act:TiproxyLabels',
      'act:TiproxyScale',
      'act:TiproxyFailover',
      'act:TiproxyUpgrade',
      'act:TiproxyStatefulSet',
      'act:TiflashGate',
      'status:TiflashStatus',
      'act:TiflashSuspend',
      'act:TiflashDependencies',
      'act:TiflashPlacementRules',
      'act:TiflashOldSet',
      'act:TiflashServices',
      'act:TiflashConfigMap',
      'act:TiflashStoreIds',
      'act:TiflashFailoverRecovery',
      'act:TiflashScale',
      'act:TiflashFailover',
      'act:TiflashUpgrade',
      'act:TiflashStatefulSet',
      'act:TikvGate',
      'status:TikvStatus',
      'act:TikvSuspend',
      'act:TikvDependencies',
      'act:TikvServices',
      'act:TikvConfigMap',
      'act:TikvFailoverRecovery',
      'act:TikvStoreIds',
      'act:TikvStoreLabels',
      'act:TikvEvictLeaderCleanup',
      'act:TikvScale',
      'act:TikvFailover',
      'act:TikvUpgrade',
      'act:TikvStatefulSet',
      'act:PumpGate',
      'status:PumpStatus',
      'act:PumpSuspend',
      'act:PumpDependencies',
      'act:PumpServices',
      'act:PumpConfigMap',
      'act:PumpScale',
      'act:PumpFailover',
      'act:PumpUpgrade',
      'act:PumpStatefulSet',
      'act:TidbGate',
      'status:TidbStatus',
      'act:TidbSuspend',
      'act:TidbDependencies',
      'act:TidbServices',
      'act:TidbConfigMap',
      'act:TidbSmoothUpgradeFinish',
      'act:TidbServerLabels',
      'act:TidbScale',
      'act:TidbFailover',
      'act:TidbUpgrade',
      'act:TidbStatefulSet',
      'act:TicdcGate',
      'status:TicdcStatus',
      'act:TicdcSuspend',
      'act:TicdcDependencies',
      'act:TicdcServices',
      'act:TicdcConfigMap',
      'act:TicdcDrainDeadlines',
      'act:TicdcScale',
      'act:TicdcFailover',
      'act:TicdcUpgrade',
      'act:TicdcStatefulSet',
      'status:VolumeStatus',
      'act:PvcCleaner',
      'act:VolumeModifier',
      'status:ClusterStatus',
      'status:ReferencedPd',
    ]);
  });

  it('a converged PD cluster plans nothing once its status is written', () => {
    // Prepare: every object the rules want, PD healthy, and the status the first step computes.
    const tc = tidbCluster(changeSpec((spec) => ({ ...spec, tikv: undefined, tidb: undefined })));
    const first = planStep(snapshot(...convergedPd(tc)), clusterRules);
    const synced = { ...tc, status: first.status ?? tc.status };
    // Act
    const plan = planStep(snapshot(...convergedPd(synced)), clusterRules);
    // Assess
    expect(first.actions).toEqual([]);
    expect(plan.actions).toEqual([]);
    expect(plan.status).toBeUndefined();
    expect(plan.outcome).toEqual(complete());
    expect(synced.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('the engine rules alone report a new cluster not ready (PDUnhealthy), and the condition is the only change', () => {
    const plan = planStep(snapshot(), core);
    expect(plan.actions).toEqual([]);
    expect(plan.outcome).toEqual(complete());
    expect(plan.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([['Ready', 'False', 'PDUnhealthy']]);
  });

  it('the engine rules alone plan nothing for a healthy, unchanged cluster', () => {
    const plan = planStep(snapshot(withCluster(tidbCluster(healthy()))), core);
    expect(plan).toEqual({
      actions: [],
      status: undefined,
      outcome: complete(),
      ruleResults: [
        { rule: 'Paused', outcome: complete() },
        { rule: 'ClusterStatus', outcome: complete() },
      ],
    });
  });
});

describe('a paused cluster (TiDB Operator §1.7): status keeps syncing, nothing else is written', () => {
  it('the act rules after Paused do not run, and the outcome waits for an event', () => {
    const rules = [...core.slice(0, 1), acting('ScaleOut'), ...core.slice(1)];
    const plan = planStep(snapshot(withCluster(tidbCluster(paused()))), rules);
    expect(plan.actions).toEqual([]);
    expect(plan.ruleResults.map((r) => r.rule)).toEqual(['Paused', 'ClusterStatus']);
    expect(plan.outcome).toEqual(wait('cluster is paused: status only'));
  });

  it('its status is still computed', () => {
    const plan = planStep(snapshot(withCluster(tidbCluster(paused()))), core);
    expect(plan.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'PDUnhealthy' });
  });

  it('unpausing lets the act rules run again', () => {
    const rules = [...core.slice(0, 1), acting('ScaleOut'), ...core.slice(1)];
    const plan = planStep(snapshot(withCluster(tidbCluster(paused(false)))), rules);
    expect(plan.actions).toEqual([event('ScaleOut')]);
  });
});
