/**
 * The engine's lease rules (issue 8): a trigger that finds the lease held arms one lease-expiry
 * wake-up; the wake-up steps a dead step's key and is a no-op for a released lease; a step never runs
 * past its lease; a call no Kubernetes precondition protects is preceded by a lease check.
 */

import { describe, expect, it } from '@jest/globals';

import type { Action } from '../../lib/model/action.js';
import { TransientError } from '../../lib/platform/errors.js';
import { complete } from '../../lib/reconcile/engine/outcome.js';
import { actRule, type Rule } from '../../lib/reconcile/engine/rule.js';
import { needsLeaseCheck } from '../../lib/step/act.js';
import { leaseWakeFence } from '../../lib/step/lease-wake.js';
import { runStep, type RunStepInput } from '../../lib/step/run-step.js';
import { KEY, T0 } from '../support/fixtures.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { ENGINE_RULES, TEST_STEP_CONFIG, queuedWithin, stepHarness, takeQueued, type StepHarness } from '../support/step-fakes.js';

const LEASE = TEST_STEP_CONFIG.leaseForMs;
let owners = 0;

function step(h: StepHarness, over: Partial<RunStepInput> = {}) {
  return runStep({ key: KEY, trigger: { reason: 'watch' }, owner: `owner-${++owners}`, ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: ENGINE_RULES, ...over });
}

const emitting = (...actions: Action[]): Rule => actRule('Emit', () => ({ actions, outcome: complete() }));
const event: Action = { kind: 'event', type: 'Normal', reason: 'R', message: 'm', object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } };

describe('a trigger that finds the lease held', () => {
  it('the first arms one wake-up at the lease end; later ones only mark the key dirty', async () => {
    // Prepare: a (dead) step holds the lease from T0
    const h = stepHarness(new MemoryStateStore());
    await h.ports.state.claim(KEY, 'dead', T0, LEASE);
    // Act: three triggers arrive during its lease
    const results = [];
    for (const at of [10_000, 20_000, 30_000]) {
      await h.clock.advance(at - (h.clock.nowMs() - T0));
      results.push(await step(h));
    }
    // Assess
    expect(results.map((r) => [r.disposition, r.armedWakeAtMs, r.redeliver])).toEqual([
      ['skipped', T0 + LEASE, false],
      ['skipped', undefined, false],
      ['skipped', undefined, false],
    ]);
    expect(await queuedWithin(h, LEASE)).toEqual([{ reason: 'lease:1', atMs: LEASE }]);
    expect((await h.ports.state.get(KEY))?.dirty).toBe(true);
  });

  it('a TiDB Operator re-check asked while the lease is held comes back at the lease end, still asked (docs/adr/0024)', async () => {
    // Prepare: a step holds the lease from T0; an earlier trigger already armed the wake-up
    const h = stepHarness(new MemoryStateStore());
    await h.ports.state.claim(KEY, 'holder', T0, LEASE);
    await h.clock.advance(5_000);
    await step(h);
    await h.clock.advance(5_000);
    // Act
    const result = await step(h, { trigger: { reason: 'TiDB Operator Deployment tidb-admin/tidb-controller-manager added', checkTidbOperator: true } });
    // Assess
    expect([result.disposition, result.redeliver]).toEqual(['skipped', false]);
    const queued = await takeQueued(h.queue);
    expect(queued).toEqual([]);
    await h.clock.advance(LEASE - 10_000);
    expect((await takeQueued(h.queue)).filter((m) => m.checkTidbOperator === true).map((m) => m.key)).toEqual([KEY]);
  });

  it('a wake-up that cannot be sent leaves the trigger for redelivery', async () => {
    const h = stepHarness(new MemoryStateStore());
    await h.ports.state.claim(KEY, 'dead', T0, LEASE);
    const queue = { send: async () => Promise.reject(new TransientError('SQS down')), changeVisibility: h.queue.changeVisibility.bind(h.queue) };
    const ports = { ...h.ports, queue };
    const result = await step(h, { ports });
    expect(result).toMatchObject({ disposition: 'skipped', redeliver: true, armedWakeAtMs: undefined });
    expect(result.errors).toEqual(['arm lease-expiry wake-up: TransientError: SQS down']);
  });
});

describe('a lease-expiry wake-up', () => {
  it.each([
    { name: 'the holder died: its lease is still recorded, so the key is stepped', release: false, takeover: false, newerDied: false, disposition: 'stepped', claims: 2 },
    { name: 'the holder released: nothing to do, no claim', release: true, takeover: false, newerDied: false, disposition: 'superseded', claims: 1 },
    { name: 'a newer step claimed: nothing to do, no claim', release: false, takeover: true, newerDied: false, disposition: 'superseded', claims: 2 },
    { name: 'a newer step claimed and died too (its lease expired unreleased), so the key is stepped', release: false, takeover: true, newerDied: true, disposition: 'stepped', claims: 3 },
  ])('$name', async ({ release, takeover, newerDied, disposition, claims }) => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    await h.ports.state.claim(KEY, 'holder', T0, LEASE);
    if (release) await h.ports.state.release(KEY, 'holder', 1, { failures: 0, nextWakeAtMs: undefined, lastStep: { atMs: T0, outcome: 'complete' } });
    await h.clock.advance(LEASE);
    if (takeover) await h.ports.state.claim(KEY, 'newer', h.clock.nowMs(), LEASE);
    if (newerDied) await h.clock.advance(LEASE);
    // Act
    const result = await step(h, { trigger: { reason: 'lease:1' } });
    // Assess
    expect(result.disposition).toBe(disposition);
    expect(h.state.count('claim')).toBe(claims);
    expect(h.observer.calls).toBe(disposition === 'stepped' ? 1 : 0);
  });

  it('a lease longer than the longest SQS delay is woken early and re-arms for the rest', async () => {
    const config = { ...TEST_STEP_CONFIG, leaseForMs: 1_200_000 };
    const h = stepHarness(new MemoryStateStore());
    await h.ports.state.claim(KEY, 'dead', T0, config.leaseForMs);
    expect((await step(h, { config })).armedWakeAtMs).toBe(T0 + 900_000);
    await h.clock.advance(900_000);
    const early = await step(h, { config, trigger: { reason: 'lease:1' } });
    expect(early).toMatchObject({ disposition: 'skipped', armedWakeAtMs: T0 + 1_200_000 });
  });

  it.each([
    { reason: 'lease:7', fence: 7 },
    { reason: 'lease:0', fence: undefined },
    { reason: 'lease:x', fence: undefined },
    { reason: 'watch', fence: undefined },
  ])('reason $reason watches fence $fence', ({ reason, fence }) => {
    expect(leaseWakeFence({ reason })).toBe(fence);
  });
});

describe('a step never acts past its lease', () => {
  it('a budget longer than the lease is cut to the lease less the safety margin', async () => {
    // Prepare: a 1000 s budget, a 90 s lease, observe stuck until 85 s
    const h = stepHarness(new MemoryStateStore());
    const gate = h.observer.blockNext();
    const running = step(h, { budgetMs: 1_000_000, rules: [emitting(event), ...ENGINE_RULES] });
    await gate.entered;
    await h.clock.advance(LEASE - TEST_STEP_CONFIG.safetyMarginMs);
    gate.open();
    // Act
    const result = await running;
    // Assess: the event was not attempted; the step comes back soon instead
    expect(result.actions[0]).toMatchObject({ action: event, result: 'not-run' });
    expect(result.outcome?.kind).toBe('retry');
    expect(h.executor.executed.filter((a) => a.kind === 'event')).toEqual([]);
  });

  it('a stale step’s PD call is refused by the lease check and never sent', async () => {
    // Prepare: while the step observes, a step on a clock a lease ahead takes the lease over
    const h = stepHarness(new MemoryStateStore());
    const gate = h.observer.blockNext();
    const running = step(h, { rules: [emitting({ kind: 'pd.deleteMember', name: 'basic-pd-3' })] });
    await gate.entered;
    await h.clock.advance(10_000);
    await h.ports.state.claim(KEY, 'newer', T0 + LEASE, LEASE);
    gate.open();
    // Act
    const result = await running;
    // Assess
    expect(result.actions[0]).toMatchObject({ result: 'error' });
    expect(result.actions[0]?.error).toContain('ConflictError');
    expect(h.executor.executed.filter((a) => a.kind === 'pd.deleteMember')).toEqual([]);
    expect(result.release).toBe('lost-lease');
  });

  it('a live step’s PD call passes the lease check first', async () => {
    const h = stepHarness(new MemoryStateStore());
    const result = await step(h, { rules: [emitting({ kind: 'pd.deleteMember', name: 'basic-pd-3' })] });
    expect(result.actions.map((a) => a.result)).toEqual(['ok']);
    expect(h.state.count('assertLease')).toBe(1);
  });

  it.each([
    { kind: 'pd.deleteMember', action: { kind: 'pd.deleteMember', name: 'm' }, checked: true },
    { kind: 'ticdc.resignOwner', action: { kind: 'ticdc.resignOwner', capture: 'c' }, checked: true },
    { kind: 'pump.offline', action: { kind: 'pump.offline', nodeId: 'n' }, checked: true },
    { kind: 'delete', action: { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'p' }, uid: 'u' }, checked: true },
    { kind: 'event', action: event, checked: false },
    { kind: 'create', action: { kind: 'create', ref: { kind: 'Service', namespace: 'demo', name: 's' }, object: {} }, checked: false },
  ] as { kind: string; action: Action; checked: boolean }[])('$kind is lease-checked: $checked', ({ action, checked }) => {
    expect(needsLeaseCheck(action)).toBe(checked);
  });
});
