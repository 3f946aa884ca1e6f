import { describe, expect, it } from '@jest/globals';

import type { Action, EventAction, PatchAction } from '../../lib/model/action.js';
import { ConflictError, TerminalError, TransientError } from '../../lib/platform/errors.js';
import { METRIC } from '../../lib/platform/metrics.js';
import { complete, fail, retry } from '../../lib/reconcile/engine/outcome.js';
import { actRule, type Rule } from '../../lib/reconcile/engine/rule.js';
import type { StateStore } from '../../lib/state/port.js';
import type { Executor } from '../../lib/step/ports.js';
import { STEP_LOG_MESSAGE } from '../../lib/step/result.js';
import { runStep, type RunStepInput } from '../../lib/step/run-step.js';
import { KEY, T0, healthy, tidbCluster } from '../support/fixtures.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { TEST_STEP_CONFIG, queuedWithin, stepHarness, type StepHarness, ENGINE_RULES } from '../support/step-fakes.js';

let owners = 0;

function setup(state: StateStore = new MemoryStateStore()): StepHarness {
  return stepHarness(state);
}

function step(h: StepHarness, over: Partial<RunStepInput> = {}) {
  return runStep({ key: KEY, trigger: { reason: 'watch' }, owner: `owner-${++owners}`, ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: ENGINE_RULES, ...over });
}

const event = (reason: string): Action => ({ kind: 'event', type: 'Normal', reason, message: reason, object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } });
const emitting = (...actions: Action[]): Rule => actRule('Emit', () => ({ actions, outcome: complete() }));

describe('runStep: claim → observe → decide → act → commit', () => {
  it('a new cluster gets its Ready condition written as updateStatus under the observed resourceVersion', async () => {
    // Prepare
    const h = setup();
    // Act
    const result = await step(h);
    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', outcome: complete(), fence: 1, statusWritten: true, release: 'released', redeliver: false });
    expect(h.executor.executed).toHaveLength(1);
    const write = h.executor.executed[0];
    expect(write).toMatchObject({ kind: 'updateStatus', ref: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' }, resourceVersion: '100' });
    expect(write?.kind === 'updateStatus' && write.object['status']).toMatchObject({ conditions: [{ type: 'Ready', status: 'False', reason: 'PDUnhealthy' }] });
    expect(await h.ports.state.get(KEY)).toMatchObject({ fence: 1, lease: undefined, failures: 0, nextWakeAtMs: undefined, lastStep: { outcome: 'complete', reconcileId: 'r-1' } });
  });

  it('writes one log line with key, reconcile id, rules and their outcomes, actions and duration', async () => {
    const h = setup();
    await step(h);
    const lines = h.logger.withMessage(STEP_LOG_MESSAGE);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({
      key: KEY,
      reconcileId: 'r-1',
      trigger: 'watch',
      disposition: 'stepped',
      outcome: 'complete',
      rules: [{ rule: 'Paused', outcome: 'complete' }, { rule: 'ClusterStatus', outcome: 'complete' }],
      actions: [{ action: 'updateStatus TidbCluster demo/basic', result: 'ok' }],
      durationMs: 0,
    });
    expect(h.metrics.total(METRIC.steps)).toBe(1);
    expect(h.metrics.total(METRIC.stepsComplete)).toBe(1);
  });

  it('a rule that holds says why in the step\'s log line: its message beside its outcome', async () => {
    const h = setup();
    const holding = actRule('Hold', () => ({ actions: [], outcome: retry(5_000, 'waiting for store 2 to be Up') }));
    const refusing = actRule('Refuse', () => ({ actions: [], outcome: fail('spec.tikv.replicas is invalid', true) }));
    await step(h, { rules: [...ENGINE_RULES, holding, refusing] });
    const rules = h.logger.withMessage(STEP_LOG_MESSAGE)[0]?.fields['rules'];
    expect(rules).toEqual([
      { rule: 'Paused', outcome: 'complete' },
      { rule: 'ClusterStatus', outcome: 'complete' },
      { rule: 'Hold', outcome: 'retry', message: 'waiting for store 2 to be Up' },
      { rule: 'Refuse', outcome: 'fail', message: 'spec.tikv.replicas is invalid' },
    ]);
  });

  it('a step that finds the lease held marks the key dirty and is skipped', async () => {
    const h = setup();
    await h.ports.state.claim(KEY, 'someone-else', T0, 90_000);
    const result = await step(h);
    expect(result).toMatchObject({ disposition: 'skipped', outcome: undefined, redeliver: false });
    expect(h.observer.calls).toBe(0);
    expect((await h.ports.state.get(KEY))?.dirty).toBe(true);
    expect(h.metrics.total(METRIC.leaseContention)).toBe(1);
  });

  it('an observe failure still releases the lease, counts a failure and arms the 1 s backoff', async () => {
    const h = setup();
    h.observer.failNext(new TransientError('API server timed out'));
    const result = await step(h);
    expect(result).toMatchObject({ outcome: fail('observe: TransientError: API server timed out'), failures: 1, nextWakeAtMs: T0 + 1_000, release: 'released' });
    expect(h.executor.executed).toEqual([]);
    expect(await queuedWithin(h, 2_000)).toEqual([{ reason: 'timer:wake', atMs: 1_000 }]);
  });

  it('a terminal error arms nothing and keeps the failure counter', async () => {
    const h = setup();
    h.observer.failNext(new TerminalError('spec.pd.replicas must be positive'));
    const result = await step(h);
    expect(result).toMatchObject({ outcome: { kind: 'fail', terminal: true }, failures: 0, nextWakeAtMs: undefined });
    expect(h.queue.stats()).toMatchObject({ visible: 0, delayed: 0 });
    expect(h.metrics.total(METRIC.stepsTerminal)).toBe(1);
  });

  it('actions run in order and stop at the first failure; the status is still written', async () => {
    const h = setup();
    h.executor.failOn('pd.deleteMember', new TransientError('PD 503'));
    const rules = [emitting(event('First'), { kind: 'pd.deleteMember', id: '4' }, event('Never')), ...ENGINE_RULES];
    const result = await step(h, { rules });
    expect(result.actions.map((a) => [a.description, a.result])).toEqual([
      ['event Normal First on TidbCluster demo/basic', 'ok'],
      ['pd.deleteMember id=4', 'error'],
      ['event Normal Never on TidbCluster demo/basic', 'not-run'],
      ['updateStatus TidbCluster demo/basic', 'ok'],
    ]);
    expect(result.outcome).toEqual(fail('pd.deleteMember id=4: TransientError: PD 503'));
    expect(result.failures).toBe(1);
  });

  it('an action that names an Event for its failure records that Event with the error and the step goes on', async () => {
    // Prepare
    const h = setup();
    h.executor.failOn('pd.setStoreLabels', new TransientError('PD 500'));
    const warning: EventAction = { kind: 'event', type: 'Warning', reason: 'FailedSetStoreLabels', object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' }, message: 'failed to set labels map[zone:a] for store (id: 4, pod: demo/basic-tikv-0): ' };
    const rules = [emitting({ kind: 'pd.setStoreLabels', storeId: '4', labels: { zone: 'a' }, onError: warning }, event('Next')), ...ENGINE_RULES];

    // Act
    const result = await step(h, { rules });

    // Assess
    expect(result.actions.map((a) => [a.description, a.result])).toEqual([
      ['pd.setStoreLabels store=4 zone=a', 'error'],
      ['event Warning FailedSetStoreLabels on TidbCluster demo/basic', 'ok'],
      ['event Normal Next on TidbCluster demo/basic', 'ok'],
      ['updateStatus TidbCluster demo/basic', 'ok'],
    ]);
    const recorded = h.executor.executed.find((a) => a.kind === 'event' && a.reason === 'FailedSetStoreLabels');
    expect(recorded?.kind === 'event' ? recorded.message : undefined).toBe('failed to set labels map[zone:a] for store (id: 4, pod: demo/basic-tikv-0): TransientError: PD 500');
    expect(result.outcome).toEqual(complete());
    expect(result.failures).toBe(0);
  });

  it.each([
    {
      name: 'an accepted server-labels post is followed by its onSuccess write, then the next action',
      fails: false,
      expected: [
        ['tidb.setLabels pod=basic-tidb-0', 'ok'],
        ['patch Pod demo/basic-tidb-0', 'ok'],
        ['event Normal Next on TidbCluster demo/basic', 'ok'],
        ['updateStatus TidbCluster demo/basic', 'ok'],
      ],
    },
    {
      name: 'a refused server-labels post records its Warning, skips its onSuccess write, and the step goes on',
      fails: true,
      expected: [
        ['tidb.setLabels pod=basic-tidb-0', 'error'],
        ['event Warning FailedSetServerLabels on TidbCluster demo/basic', 'ok'],
        ['event Normal Next on TidbCluster demo/basic', 'ok'],
        ['updateStatus TidbCluster demo/basic', 'ok'],
      ],
    },
  ])('$name', async ({ fails, expected }) => {
    // Prepare
    const h = setup();
    if (fails) h.executor.failOn('tidb.setLabels', new TransientError('TiDB 400'));
    const object = { kind: 'TidbCluster' as const, namespace: 'demo', name: 'basic' };
    const remember: PatchAction = { kind: 'patch', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tidb-0' }, patchType: 'merge', patch: { metadata: { annotations: { a: 'b' } } }, resourceVersion: '7' };
    const post: Action = {
      kind: 'tidb.setLabels',
      pod: 'basic-tidb-0',
      labels: { zone: 'a' },
      onError: { kind: 'event', type: 'Warning', reason: 'FailedSetServerLabels', object, message: 'failed: ' },
      onSuccess: remember,
    };

    // Act
    const result = await step(h, { rules: [emitting(post, event('Next')), ...ENGINE_RULES] });

    // Assess
    expect(result.actions.map((a) => [a.description, a.result])).toEqual(expected);
    expect(h.executor.executed.some((a) => a.kind === 'patch')).toBe(!fails);
    expect(result.outcome).toEqual(complete());
  });

  it('a status write that loses to a newer resourceVersion (409) fails the step, retryably', async () => {
    const h = setup();
    h.executor.failOn('updateStatus', new ConflictError('the object has been modified'));
    const result = await step(h);
    expect(result).toMatchObject({ outcome: { kind: 'fail', terminal: false }, statusWritten: false, failures: 1 });
  });

  it('deadline actions are written to the state store under the step fence', async () => {
    const h = setup();
    const deadline = { component: 'tikv', member: 'basic-tikv-2', kind: 'failover', sinceMs: T0, deadlineAtMs: T0 + 300_000 };
    const rules = [actRule('Failover', () => ({ actions: [{ kind: 'state.putDeadline', deadline }], outcome: complete(), wakeAtMs: deadline.deadlineAtMs }))];
    const result = await step(h, { rules });
    expect(await h.ports.state.listDeadlines(KEY)).toEqual([{ ...deadline, fence: 1 }]);
    expect(h.executor.executed).toEqual([]);
    expect(result).toMatchObject({ nextWakeAtMs: T0 + 300_000, armedWakeAtMs: T0 + 300_000 });
  });

  it('a rule that throws fails the step (retryable) and writes nothing', async () => {
    const h = setup();
    const rules = [actRule('Buggy', () => { throw new TypeError('cannot read replicas'); })];
    const result = await step(h, { rules });
    expect(result).toMatchObject({ outcome: fail('decide: TypeError: cannot read replicas'), actions: [], failures: 1 });
  });

  it('when the time budget runs low the rest is not attempted and the step comes back soon', async () => {
    // Prepare: every action takes 30 s of the 60 s budget (5 s safety margin)
    const h = setup();
    const slow: Executor = { execute: async () => h.clock.advance(30_000) };
    const ports = { ...h.ports, executor: slow };
    const rules = [emitting(event('A'), event('B'), event('C'))];
    // Act
    const result = await step(h, { ports, rules });
    // Assess
    expect(result.actions.map((a) => a.result)).toEqual(['ok', 'ok', 'not-run']);
    expect(result.outcome).toEqual(retry(1_000, 'time budget exhausted after 2 of 3 actions'));
    expect(result).toMatchObject({ failures: 0, nextWakeAtMs: T0 + 61_000, release: 'released' });
  });

  it('a stale step that lost its lease commits nothing and re-enqueues nothing', async () => {
    const h = setup();
    const gate = h.observer.blockNext();
    const running = step(h);
    await gate.entered;
    await h.clock.advance(TEST_STEP_CONFIG.leaseForMs);
    await h.ports.state.claim(KEY, 'newer', h.clock.nowMs(), 90_000);
    gate.open();
    const result = await running;
    expect(result).toMatchObject({ release: 'lost-lease', reEnqueued: false, redeliver: false });
    expect((await h.ports.state.get(KEY))?.lease?.owner).toBe('newer');
  });

  it('a claim that cannot reach the store leaves the trigger for redelivery', async () => {
    const broken = new MemoryStateStore();
    broken.claim = async () => Promise.reject(new TransientError('DynamoDB throttled'));
    const h = setup(broken);
    const result = await step(h);
    expect(result).toMatchObject({ disposition: 'claim-failed', redeliver: true, errors: ['claim: TransientError: DynamoDB throttled'] });
    expect(h.metrics.total(METRIC.stepErrors)).toBe(1);
  });

  it('a claim that keeps losing the lease to other steps is contention: skipped, not redelivered', async () => {
    const contended = new MemoryStateStore();
    contended.claim = async () => Promise.reject(new ConflictError('the lease changed hands 3 times during the claim'));
    const h = setup(contended);
    const result = await step(h);
    expect(result).toMatchObject({ disposition: 'skipped', redeliver: false });
    expect(h.metrics.total(METRIC.leaseContention)).toBe(1);
  });

  it('a wake-up that cannot be armed is not recorded and the trigger is left for redelivery', async () => {
    const h = setup();
    const ports = { ...h.ports, timers: { wakeAt: async () => Promise.reject(new TransientError('SQS down')), cancel: async () => undefined } };
    h.observer.failNext(new TransientError('boom'));
    const result = await step(h, { ports });
    expect(result).toMatchObject({ redeliver: true, nextWakeAtMs: undefined, armedWakeAtMs: undefined, release: 'released' });
  });

  it('a step started with less than the safety margin left does not claim and leaves the trigger for redelivery', async () => {
    const h = setup();
    const result = await step(h, { budgetMs: TEST_STEP_CONFIG.safetyMarginMs });
    expect(result).toMatchObject({ disposition: 'claim-failed', redeliver: true });
    expect(h.state.count('claim')).toBe(0);
  });

  it('a malformed key is rejected without touching the store', async () => {
    const h = setup();
    const result = await step(h, { key: 'not-a-key' });
    expect(result).toMatchObject({ disposition: 'rejected', redeliver: false });
    expect(h.state.count('claim')).toBe(0);
  });

  it('a healthy, unchanged cluster writes nothing but its lease (claim and release)', async () => {
    // Prepare: one step records the converged state
    const h = setup();
    h.observer.cluster = () => tidbCluster(healthy());
    await step(h);
    h.state.reset();
    h.executor.executed.length = 0;
    // Act
    const result = await step(h, { trigger: { reason: 'sweep' } });
    // Assess
    expect(result).toMatchObject({ outcome: complete(), historyWritten: false, statusWritten: false });
    expect(h.executor.executed).toEqual([]);
    expect(h.state.writes()).toEqual({ claim: 1, release: 1 });
    expect(h.queue.stats()).toMatchObject({ visible: 0, delayed: 0 });
  });
});

describe('runStep: reading at rest', () => {
  // What a full observation verified, with when it was made (the sweep's cheap check reads that).
  const VERIFIED = { uid: 'uid-basic', generation: 1, fullAtMs: expect.any(Number) as unknown as number };

  it('a completed step keeps the TidbCluster it verified, and the next step may read at rest against it', async () => {
    // Prepare
    const h = setup();
    await step(h);
    // Act
    await step(h);
    // Assess
    expect((await h.ports.state.get(KEY))?.lastStep?.verified).toEqual(VERIFIED);
    expect(h.observer.requests.map((r) => r.verified)).toEqual([undefined, VERIFIED]);
  });

  it("the sweep's step reads everything", async () => {
    // Prepare
    const h = setup();
    await step(h);
    // Act
    await step(h, { trigger: { reason: 'sweep' } });
    // Assess
    expect(h.observer.requests[1]?.verified).toBeUndefined();
  });

  it('a step that does not complete keeps no verification, so the next step reads everything', async () => {
    // Prepare
    const h = setup();
    await step(h);
    await step(h, { rules: [actRule('Waiting', () => ({ actions: [], outcome: retry(1_000, 'later') }))] });
    // Act
    await step(h);
    // Assess
    expect(h.observer.requests.map((r) => r.verified)).toEqual([undefined, VERIFIED, undefined]);
  });

  it('a step at rest that completes keeps the verification it relied on', async () => {
    // Prepare
    const h = setup();
    await step(h);
    h.observer.restNext();
    // Act
    await step(h);
    await step(h);
    // Assess
    expect((await h.ports.state.get(KEY))?.lastStep?.verified).toEqual(VERIFIED);
    expect(h.observer.requests.map((r) => r.verified)).toEqual([undefined, VERIFIED, VERIFIED]);
  });
});
