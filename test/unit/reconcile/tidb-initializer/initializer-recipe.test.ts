/**
 * The TidbInitializer recipe: v1's phases from the Job, the ConfigMap and Job created once, and
 * where this controller is stricter or safer than v1 — validation naming the field, Pending (with a
 * reason) instead of a pod stuck on a missing Secret or ConfigMap, a Completed initializer never run
 * again, an earlier initializer's Job waited out instead of adopted.
 */
import { describe, expect, it } from '@jest/globals';
import type { Action, CreateAction, EventAction, UpdateAction } from '../../../../lib/model/action.js';
import { PENDING_RECHECK_MS, planTidbInitializer } from '../../../../lib/reconcile/tidb-initializer/recipe.js';
import { T0, withSpec } from '../../../support/fixtures.js';
import { cluster, configMap, initializer, job, snap } from './fixtures.js';

const updates = (actions: readonly Action[]): UpdateAction[] => actions.filter((a): a is UpdateAction => a.kind === 'update');
const creates = (actions: readonly Action[]): string[] => actions.filter((a): a is CreateAction => a.kind === 'create').map((a) => `${a.ref.kind}/${a.ref.name}`);
const events = (actions: readonly Action[]): EventAction[] => actions.filter((a): a is EventAction => a.kind === 'event');
const phaseWritten = (actions: readonly Action[]): unknown => (updates(actions)[0]?.object.status as { phase?: string } | undefined)?.phase;

describe('TidbInitializer validation', () => {
  it.each([
    { name: 'no image', spec: { image: '' }, field: 'spec.image must be set' },
    { name: 'no cluster name', spec: { cluster: { name: '' } }, field: 'spec.cluster.name must be set' },
    { name: 'a cluster in another namespace', spec: { cluster: { name: 'basic', namespace: 'prod' } }, field: "spec.cluster.namespace prod is not the TidbInitializer's namespace demo" },
    { name: 'a permitHost that would break the script', spec: { permitHost: "10.0.0.1'; drop" }, field: 'spec.permitHost "10.0.0.1\'; drop" is not a MySQL host pattern' },
    { name: 'an empty passwordSecret', spec: { passwordSecret: '' }, field: 'spec.passwordSecret must name a Secret' },
    { name: 'nothing to do', spec: { passwordSecret: undefined, initSql: undefined }, field: 'nothing to initialise: set spec.passwordSecret, spec.initSql or spec.initSqlConfigMap' },
  ])('$name: Failed, terminal, with a Warning naming the field', ({ spec, field }) => {
    const plan = planTidbInitializer(snap(initializer(spec)));
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
    expect(phaseWritten(plan.actions)).toBe('Failed');
    expect(creates(plan.actions)).toEqual([]);
    expect(events(plan.actions).map((e) => [e.type, e.reason])).toEqual([['Warning', 'InvalidSpec']]);
    expect(events(plan.actions)[0]?.message).toContain(field);
  });

  it('the same invalid spec a second time writes nothing and records no second Event', () => {
    const plan = planTidbInitializer(snap(initializer({ image: '' }, { phase: 'Failed' })));
    expect(plan.actions).toEqual([]);
  });
});

describe('TidbInitializer prerequisites: Pending with the reason, looked at again in 30 s', () => {
  it.each([
    { name: 'the TidbCluster is missing', over: { tc: undefined }, reason: 'spec.cluster.name: TidbCluster demo/basic not found' },
    { name: 'the TidbCluster has no TiDB', over: { tc: cluster(withSpec({ tidb: undefined })) }, reason: 'has no spec.tidb' },
    { name: 'the password Secret is missing (v1: pod stuck in ContainerCreating)', over: { sources: { secretKeys: undefined, sqlConfigMapKeys: undefined } }, reason: 'spec.passwordSecret: Secret demo/tidb-secret not found' },
    { name: 'the password Secret is empty', over: { sources: { secretKeys: [], sqlConfigMapKeys: undefined } }, reason: 'has no keys' },
    { name: 'a Secret key is no MySQL user name', over: { sources: { secretKeys: ['root', 'a-user-name-much-longer-than-thirty-two'], sqlConfigMapKeys: undefined } }, reason: 'is not a MySQL user name' },
  ])('$name', ({ over, reason }) => {
    const plan = planTidbInitializer(snap(initializer(), over));
    expect(plan.outcome.kind).toBe('wait');
    expect(creates(plan.actions)).toEqual([]);
    expect(phaseWritten(plan.actions)).toBe('Pending');
    expect(events(plan.actions)[0]?.message).toContain(reason);
    expect(plan.nextWakeAtMs).toBe(T0 + PENDING_RECHECK_MS);
  });

  it.each([
    { name: 'missing', keys: undefined, reason: 'spec.initSqlConfigMap: ConfigMap demo/init-sql not found' },
    { name: 'without its init-sql key', keys: ['sql'], reason: 'spec.initSqlConfigMap: ConfigMap demo/init-sql has no key init-sql' },
  ])('the initSqlConfigMap $name', ({ keys, reason }) => {
    const plan = planTidbInitializer(snap(initializer({ initSqlConfigMap: 'init-sql' }), { sources: { secretKeys: ['root'], sqlConfigMapKeys: keys } }));
    expect(phaseWritten(plan.actions)).toBe('Pending');
    expect(events(plan.actions)[0]?.message).toBe(reason);
  });
});

describe('TidbInitializer Job', () => {
  it('creates the ConfigMap and the Job, both <cluster>-tidb-initializer, and writes Running', () => {
    const plan = planTidbInitializer(snap(initializer()));
    expect(creates(plan.actions)).toEqual(['ConfigMap/basic-tidb-initializer', 'Job/basic-tidb-initializer']);
    expect(phaseWritten(plan.actions)).toBe('Running');
    expect(events(plan.actions).map((e) => [e.type, e.reason])).toEqual([['Normal', 'SuccessfulCreate']]);
    expect(updates(plan.actions)[0]?.resourceVersion).toBe('7');
  });

  it('keeps an existing ConfigMap of its own (v1 never updates it) and creates only the Job', () => {
    const plan = planTidbInitializer(snap(initializer(), { configMap: configMap() }));
    expect(creates(plan.actions)).toEqual(['Job/basic-tidb-initializer']);
  });

  it.each([
    { name: 'no conditions', conditions: [], phase: 'Running', outcome: 'wait' },
    { name: 'Complete', conditions: [{ type: 'Complete', status: 'True' }], phase: 'Completed', outcome: 'complete' },
    { name: 'Failed', conditions: [{ type: 'Failed', status: 'True' }], phase: 'Failed', outcome: 'complete' },
  ])('a Job with $name: phase $phase and the Job status copied inline, as v1', ({ conditions, phase, outcome }) => {
    const plan = planTidbInitializer(snap(initializer({}, { phase: 'Running' }), { job: job(conditions, undefined, { active: 1, startTime: '2026-01-01T00:00:01Z' }) }));
    expect(plan.outcome.kind).toBe(outcome);
    expect(creates(plan.actions)).toEqual([]);
    const status = updates(plan.actions)[0]?.object.status as Record<string, unknown>;
    expect(status).toEqual({ conditions, active: 1, startTime: '2026-01-01T00:00:01Z', phase });
  });

  it('a failed Job gives a Warning that says how to run it again', () => {
    const plan = planTidbInitializer(snap(initializer({}, { phase: 'Running' }), { job: job([{ type: 'Failed', status: 'True' }]) }));
    expect(events(plan.actions).map((e) => [e.type, e.reason, e.message])).toEqual([['Warning', 'InitializeFailed', 'Job demo/basic-tidb-initializer failed: delete it to run the initialization again']]);
  });

  it('better than v1: a Completed initializer whose Job was deleted is not run again', () => {
    const plan = planTidbInitializer(snap(initializer({}, { phase: 'Completed' }), { job: undefined }));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome.kind).toBe('complete');
  });

  it('as v1: a Failed initializer whose Job was deleted runs again, from a clean status', () => {
    const plan = planTidbInitializer(snap(initializer({}, { phase: 'Failed', failed: 1, conditions: [{ type: 'Failed', status: 'True' }] })));
    expect(creates(plan.actions)).toEqual(['ConfigMap/basic-tidb-initializer', 'Job/basic-tidb-initializer']);
    expect(updates(plan.actions)[0]?.object.status).toEqual({ phase: 'Running' });
  });

  it.each([
    { name: "another initializer's Job", owner: { name: 'other', uid: 'uid-other' }, says: 'belongs to TidbInitializer other' },
    { name: 'an earlier initializer of the same name, not yet garbage-collected', owner: { name: 'ti', uid: 'uid-old' }, says: 'belongs to TidbInitializer ti (uid uid-old, an earlier one)' },
  ])('better than v1: $name is waited out, not taken as its own', ({ owner, says }) => {
    const plan = planTidbInitializer(snap(initializer(), { job: job([{ type: 'Complete', status: 'True' }], owner) }));
    expect(phaseWritten(plan.actions)).toBe('Pending');
    expect(events(plan.actions)[0]?.message).toContain(says);
    expect(creates(plan.actions)).toEqual([]);
  });

  it("an earlier initializer's ConfigMap is waited out: garbage-collected, it would take the new pod's scripts", () => {
    const plan = planTidbInitializer(snap(initializer(), { configMap: configMap({ name: 'old', uid: 'uid-old' }) }));
    expect(creates(plan.actions)).toEqual([]);
    expect(phaseWritten(plan.actions)).toBe('Pending');
  });

  it.each([
    { name: 'gone', ti: undefined },
    { name: 'being deleted', ti: { ...initializer(), metadata: { ...initializer().metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } } },
  ])('an initializer $name: nothing to do', ({ ti }) => {
    const plan = planTidbInitializer(snap(ti));
    expect(plan.actions).toEqual([]);
    expect(plan.outcome.kind).toBe('complete');
  });
});
