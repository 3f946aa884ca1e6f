/**
 * The workqueue contract (docs/ARCHITECTURE.md, Queue semantics: client-go's workqueue and kube-rs's scheduler) on the real engine: SQS-style queue, DynamoDB
 * state (dynalite), timers, virtual clock. Observer and Executor are fakes. Test names are the rules.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { TerminalError, TransientError } from '../../lib/platform/errors.js';
import { complete, retry } from '../../lib/reconcile/engine/outcome.js';
import { actRule } from '../../lib/reconcile/engine/rule.js';
import type { Observer } from '../../lib/step/ports.js';
import { runStep } from '../../lib/step/run-step.js';
import { T0, healthy, observationOf, tidbCluster } from '../support/fixtures.js';
import { startDynalite, type LocalDynamo } from '../support/dynamo.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { CountingStateStore, TEST_STEP_CONFIG, ENGINE_RULES } from '../support/step-fakes.js';
import { prepareTable, stepWorld } from '../support/step-world.js';

let dynamo: LocalDynamo;

/** An Observer that takes 5 ms of real time, so steps started together overlap. */
const slowObserver = (): Observer => ({
  observe: async () => new Promise((resolve) => setTimeout(() => resolve(observationOf(tidbCluster(healthy()))), 5)),
});

beforeAll(async () => {
  dynamo = await startDynalite();
  await prepareTable(dynamo);
});

afterAll(async () => {
  await dynamo?.stop();
});

describe('collapsing triggers', () => {
  it('N triggers while a step runs collapse into one extra step', async () => {
    // Prepare: a step holds the lease, stuck in observe
    const w = stepWorld(dynamo);
    const gate = w.observer.blockNext();
    await w.trigger();
    const first = w.poller.pollOnce();
    await gate.entered;
    // Act: five triggers arrive, one batch each, while it runs
    for (let i = 0; i < 5; i++) {
      await w.trigger();
      await w.drain();
    }
    gate.open();
    await first;
    const after = await w.drain();
    // Assess
    expect(w.steps.map((s) => s.disposition)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'stepped', 'stepped']);
    expect(w.steps[5]?.reEnqueued).toBe(true);
    expect(after.map((s) => s.trigger.reason)).toEqual(['dirty']);
    expect(w.observer.calls).toBe(2);
    // The first skipped trigger armed one lease-expiry wake-up; the holder released, so it is a no-op.
    const woken = await w.runFor(TEST_STEP_CONFIG.leaseForMs);
    expect(woken.map((s) => [s.disposition, s.trigger.reason])).toEqual([['superseded', 'lease:1']]);
    expect(w.observer.calls).toBe(2);
    expect(w.queue.stats()).toMatchObject({ visible: 0, delayed: 0, inFlight: 0 });
  });

  it('N triggers queued together collapse into one step', async () => {
    const w = stepWorld(dynamo);
    await w.queue.send(Array.from({ length: 10 }, () => ({ message: { key: w.key, reason: 'watch', enqueuedAtMs: T0 } })));
    const steps = await w.drain();
    expect(steps.map((s) => s.disposition)).toEqual(['stepped']);
    expect(w.observer.calls).toBe(1);
  });

  it('a trigger during a step re-runs it once, after the step', async () => {
    const w = stepWorld(dynamo);
    const order: string[] = [];
    const gate = w.observer.blockNext();
    await w.trigger();
    const first = w.poller.pollOnce().then(() => order.push('first step done'));
    await gate.entered;
    await w.trigger('pod-changed');
    await w.drain();
    gate.open();
    await first;
    const inner = w.observer.observe.bind(w.observer);
    w.observer.observe = async (req) => (order.push('second step observes'), inner(req));
    const after = await w.drain();
    expect(order).toEqual(['first step done', 'second step observes']);
    expect(after.map((s) => [s.disposition, s.trigger.reason, s.fence])).toEqual([['stepped', 'dirty', 2]]);
    expect(await w.drain()).toEqual([]);
  });
});

describe('one step per key at a time', () => {
  it('never two steps for one key at once: overlapping steps take turns through the lease', async () => {
    // Prepare: an observer slow enough (real time) that concurrent steps overlap
    const w = stepWorld(dynamo);
    const ports = { ...w.ports, observer: slowObserver() };
    for (let round = 0; round < 5; round++) {
      // Act
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => runStep({ key: w.key, trigger: { reason: 'watch' }, owner: `r${round}-s${i}`, ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: ENGINE_RULES })),
      );
      await w.drain();
      // Assess: each step either held the lease alone or found it held (and marked the key dirty)
      const stepped = results.filter((r) => r.disposition === 'stepped');
      expect(stepped.length + results.filter((r) => r.disposition === 'skipped').length).toBe(8);
      expect(new Set(stepped.map((r) => r.fence)).size).toBe(stepped.length);
    }
    expect(w.state.overlaps).toBe(0);
    // Every lease was released: the expiry wake-ups its skipped triggers armed all find nothing to do.
    const woken = await w.runFor(TEST_STEP_CONFIG.leaseForMs);
    expect(woken.length).toBeGreaterThan(0);
    expect(woken.filter((s) => s.disposition !== 'superseded')).toEqual([]);
    expect(w.queue.stats()).toMatchObject({ visible: 0, delayed: 0, inFlight: 0 });
  });

  it('the overlap detector does see two steps holding one key (a store that always grants the lease)', async () => {
    const w = stepWorld(dynamo);
    let fence = 0;
    const granting = new MemoryStateStore();
    granting.claim = async (key) => ({ claimed: true, fence: ++fence, state: { key, fence, lease: undefined, dirty: false, failures: 0, nextWakeAtMs: undefined, lastStep: undefined }, deadlines: [], storeIds: [] });
    granting.release = async () => ({ wasDirty: false });
    const state = new CountingStateStore(granting);
    const ports = { ...w.ports, state, observer: slowObserver() };
    await Promise.all([0, 1].map((i) => runStep({ key: w.key, trigger: { reason: 'watch' }, owner: `o${i}`, ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: ENGINE_RULES })));
    expect(state.overlaps).toBe(1);
  });
});

describe('wake-ups', () => {
  it('a wake-up moves earlier, never later', async () => {
    // Prepare: each step asks to come back after `afterMs`
    let afterMs = 600_000;
    const w = stepWorld(dynamo, { rules: [actRule('Poll', () => ({ actions: [], outcome: retry(afterMs, 'poll') }))] });
    const wakeAt = async () => ((await w.state.get(w.key))?.nextWakeAtMs ?? 0) - T0;
    // Act + Assess: 10 min, then 1 min (earlier: moves), then 5 min (later: stays)
    await w.trigger();
    await w.drain();
    expect(await wakeAt()).toBe(600_000);
    await w.clock.advance(10_000);
    afterMs = 60_000;
    await w.trigger();
    await w.drain();
    expect(await wakeAt()).toBe(70_000);
    await w.clock.advance(10_000);
    afterMs = 300_000;
    await w.trigger();
    await w.drain();
    expect(await wakeAt()).toBe(70_000);
    expect(w.queue.stats().delayed).toBe(2);
    // The 70 s wake-up arrives and, its timer consumed, arms the later wish.
    const woken = await w.runFor(50_000);
    expect(woken.map((s) => [s.trigger.reason, s.startedAtMs - T0])).toEqual([['timer:wake', 70_000]]);
    expect(await wakeAt()).toBe(370_000);
  });

  it('a wake-up a later one replaced is dropped without a step: one chain of wake-ups per key', async () => {
    // Prepare: a rule that polls every second; its first step arms a wake-up for +1 s
    const rules = [actRule('Poll', () => ({ actions: [], outcome: retry(1_000, 'poll') }))];
    const w = stepWorld(dynamo, { rules });
    await w.trigger();
    await w.drain();
    // An event steps the key once that wake-up is due but before it is delivered: it arms +2 s.
    await w.clock.advance(1_000);
    await runStep({ key: w.key, trigger: { reason: 'watch' }, owner: 'event', ports: w.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules });
    // Act
    const replaced = await w.drain();
    const later = await w.runFor(5_000);
    // Assess: the replaced wake-up reads the state only; then one timer step a second, not two.
    expect(replaced.map((s) => [s.disposition, s.trigger.reason])).toEqual([['superseded', 'timer:wake']]);
    expect(later.map((s) => [s.disposition, s.startedAtMs - T0])).toEqual([1, 2, 3, 4, 5].map((n) => ['stepped', 1_000 + n * 1_000]));
  });

  it('a long wake-up is a schedule that only moves earlier', async () => {
    let afterMs = 2 * 3_600_000;
    const w = stepWorld(dynamo, { rules: [actRule('Poll', () => ({ actions: [], outcome: retry(afterMs, 'poll') }))] });
    await w.trigger();
    await w.drain();
    afterMs = 3_600_000;
    await w.trigger();
    await w.drain();
    afterMs = 3 * 3_600_000;
    await w.trigger();
    await w.drain();
    const schedules = w.scheduler.list();
    expect(schedules).toHaveLength(1);
    expect(schedules[0]?.expression).toBe('at(2026-01-01T01:00:00)');
    expect(((await w.state.get(w.key))?.nextWakeAtMs ?? 0) - T0).toBe(3_600_000);
  });
});

describe('the failure counter', () => {
  it('counts failures at their backoff deadlines and resets on success', async () => {
    // Prepare: observing fails twice, then works
    const w = stepWorld(dynamo);
    w.observer.failNext(new TransientError('API server 503'), 2);
    // Act: the event, then the two timer wake-ups (1 s, then 2 s later)
    await w.trigger();
    const steps = await w.runFor(5_000, 500);
    // Assess
    expect(steps.map((s) => [s.trigger.reason, s.outcome?.kind, s.failures, (s.nextWakeAtMs ?? T0) - T0])).toEqual([
      ['watch', 'fail', 1, 1_000],
      ['timer:wake', 'fail', 2, 3_000],
      ['timer:wake', 'complete', 0, 0],
    ]);
    expect((await w.state.get(w.key))?.failures).toBe(0);
  });

  it('resets on a deliberate retry too (controller-runtime#392)', async () => {
    let outcome: ReturnType<typeof retry> | undefined;
    const w = stepWorld(dynamo, { rules: [actRule('Poll', () => ({ actions: [], outcome: outcome ?? complete() }))] });
    w.observer.failNext(new TransientError('boom'), 3);
    await w.trigger();
    await w.runFor(6_000, 500);
    expect((await w.state.get(w.key))?.failures).toBe(3);
    outcome = retry(30_000, 'waiting for pods');
    const steps = await w.runFor(10_000, 500);
    expect(steps.map((s) => [s.outcome?.kind, s.failures])).toEqual([['retry', 0]]);
  });

  it("event-triggered steps during a backoff window don't inflate it", async () => {
    // Prepare: a key that keeps failing; its first failure arms a wake-up at +1 s
    const w = stepWorld(dynamo);
    w.observer.failNext(new TransientError('PD unreachable'), 10);
    await w.trigger();
    await w.drain();
    // Act: three watch events inside the window, then the wake-up
    for (let i = 0; i < 3; i++) {
      await w.clock.advance(200);
      await w.trigger();
      await w.drain();
    }
    const woken = await w.runFor(1_000, 100);
    // Assess
    expect(w.steps.map((s) => [s.trigger.reason, s.failures, (s.nextWakeAtMs ?? T0) - T0])).toEqual([
      ['watch', 1, 1_000],
      ['watch', 1, 1_000],
      ['watch', 1, 1_000],
      ['watch', 1, 1_000],
      ['timer:wake', 2, 3_000],
    ]);
    expect(woken).toHaveLength(1);
  });

  it('a terminal error does not retry', async () => {
    const w = stepWorld(dynamo);
    w.observer.failNext(new TerminalError('spec.tikv.replicas must not be negative', { field: 'spec.tikv.replicas' }));
    await w.trigger();
    const steps = await w.runFor(3_600_000, 60_000);
    expect(steps.map((s) => [s.outcome?.kind, s.outcome?.kind === 'fail' && s.outcome.terminal, s.nextWakeAtMs])).toEqual([['fail', true, undefined]]);
    expect(w.queue.stats()).toMatchObject({ visible: 0, delayed: 0, inFlight: 0 });
    expect(w.scheduler.list()).toEqual([]);
  });
});
