/**
 * A step honours its EKS cluster's API budget (lib/step/api-budget.ts, docs/adr/0028): one that would
 * exceed it is sent again, delayed to its reservation's start and carrying it, and steps then without
 * reserving again — never dropped, never retried against the budget.
 */
import { describe, expect, it } from '@jest/globals';

import { MemoryApiBudget } from '../../lib/budget/memory.js';
import type { ApiBudget } from '../../lib/budget/port.js';
import { TransientError } from '../../lib/platform/errors.js';
import { runStep, type RunStepInput } from '../../lib/step/run-step.js';
import type { Trigger } from '../../lib/step/ports.js';
import { KEY, T0 } from '../support/fixtures.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { ENGINE_RULES, TEST_STEP_CONFIG, stepHarness, takeQueued, type StepHarness } from '../support/step-fakes.js';

const BUDGET = { requestsPerSecond: 50, burstRequests: 50, stepRequests: 25 };
const CONFIG = { ...TEST_STEP_CONFIG, apiBudget: BUDGET };
let owners = 0;

/** A budget that counts its reservations (and can fail). */
class CountingBudget implements ApiBudget {
  reserved = 0;
  fails = false;
  private readonly inner = new MemoryApiBudget();
  async reserve(k8sCluster: string, requests: number, nowMs: number, rate: Parameters<ApiBudget['reserve']>[3]): Promise<number> {
    this.reserved++;
    if (this.fails) throw new TransientError('budget store down');
    return this.inner.reserve(k8sCluster, requests, nowMs, rate);
  }
}

function harness(): { h: StepHarness; budget: CountingBudget } {
  const h = stepHarness(new MemoryStateStore());
  const budget = new CountingBudget();
  return { h: { ...h, ports: { ...h.ports, apiBudget: budget } }, budget };
}

function step(h: StepHarness, trigger: Trigger, over: Partial<RunStepInput> = {}) {
  return runStep({ key: KEY, trigger, owner: `owner-${++owners}`, ports: h.ports, config: CONFIG, budgetMs: 60_000, rules: ENGINE_RULES, ...over });
}

/** Spends `requests` of the key's EKS cluster budget now. */
async function spend(h: StepHarness, budget: ApiBudget, requests: number): Promise<void> {
  await budget.reserve(KEY.split('/')[0] ?? '', requests, h.clock.nowMs(), BUDGET);
}

describe('a step over its API budget is deferred, not dropped', () => {
  it.each([
    { name: 'a watch event', trigger: { reason: 'watch' } as Trigger, carried: {} },
    { name: "a timer's wake-up keeps its due time", trigger: { reason: 'timer:wake', dueAtMs: T0 - 1_000 } as Trigger, carried: { dueAtMs: T0 - 1_000 } },
    { name: 'a TiDB Operator re-check keeps its flag', trigger: { reason: 'sweep', checkTidbOperator: true } as Trigger, carried: { checkTidbOperator: true } },
  ])('$name: sent again to its reservation, unclaimed', async ({ trigger, carried }) => {
    // Prepare: 100 requests owed, twice the burst: a step's 25 start 1.5 s from now.
    const { h, budget } = harness();
    await spend(h, budget, 100);
    // Act
    const result = await step(h, { ...trigger, enqueuedAtMs: T0 });
    // Assess
    expect(result.disposition).toBe('deferred');
    expect(result.redeliver).toBe(false);
    expect(await h.ports.state.get(KEY)).toBeUndefined();
    expect(h.observer.requests).toHaveLength(0);
    await h.clock.advance(1_000);
    expect(await takeQueued(h.queue)).toEqual([]);
    await h.clock.advance(1_000);
    expect(await takeQueued(h.queue)).toEqual([{ key: KEY, reason: trigger.reason, enqueuedAtMs: T0, budgetAtMs: T0 + 1_500, ...carried }]);
  });

  it('the deferred message steps without reserving again', async () => {
    // Prepare
    const { h, budget } = harness();
    await spend(h, budget, 100);
    await step(h, { reason: 'watch' });
    await h.clock.advance(2_000);
    const [body] = await takeQueued(h.queue);
    const reservations = budget.reserved;
    // Act
    const result = await step(h, { reason: body?.reason ?? '', ...(body?.budgetAtMs === undefined ? {} : { budgetAtMs: body.budgetAtMs }) });
    // Assess
    expect(result.disposition).toBe('stepped');
    expect(budget.reserved).toBe(reservations);
  });

  it('30 steps at once: the burst runs, the rest wait their turn once each, spaced at the rate, and every one steps', async () => {
    // Prepare
    const { h, budget } = harness();
    // Act: 30 triggers in the same millisecond (one after another: each releases before the next).
    const first: string[] = [];
    for (let i = 0; i < 30; i++) first.push((await step(h, { reason: 'watch' })).disposition);
    const deferred: number[] = [];
    const later: string[] = [];
    for (let s = 0; s <= 16; s++) {
      for (const body of await takeQueued(h.queue)) {
        deferred.push(h.clock.nowMs() - T0);
        later.push((await step(h, { reason: body.reason, ...(body.budgetAtMs === undefined ? {} : { budgetAtMs: body.budgetAtMs }) })).disposition);
      }
      await h.clock.advance(1_000);
    }
    // Assess: 2 fit the burst (50 requests); 28 come back at 2 a second (50 requests a second).
    expect(first.filter((d) => d === 'stepped')).toHaveLength(2);
    expect(first.filter((d) => d === 'deferred')).toHaveLength(28);
    expect(later).toEqual(new Array(28).fill('stepped'));
    expect(budget.reserved).toBe(30);
    const perSecond = new Map<number, number>();
    deferred.forEach((ms) => perSecond.set(ms, (perSecond.get(ms) ?? 0) + 1));
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(2);
    expect(Math.max(...deferred)).toBe(14_000);
  });
});

describe('what the budget leaves alone', () => {
  it.each([
    { name: 'a health check', trigger: { reason: 'health', dueAtMs: T0 } as Trigger },
    { name: "an operator's request", trigger: { reason: 'admin:step' } as Trigger },
  ])('$name is neither charged nor deferred', async ({ trigger }) => {
    const { h, budget } = harness();
    await spend(h, budget, 1_000);
    const reservations = budget.reserved;
    const result = await step(h, trigger);
    expect(result.disposition).not.toBe('deferred');
    expect(budget.reserved).toBe(reservations);
  });

  it('a rate of 0 turns the budget off', async () => {
    const { h, budget } = harness();
    await spend(h, budget, 1_000);
    const result = await step(h, { reason: 'watch' }, { config: { ...CONFIG, apiBudget: { ...BUDGET, requestsPerSecond: 0 } } });
    expect(result.disposition).toBe('stepped');
  });

  it('a budget store that fails does not stop the step: it runs, and says so', async () => {
    const { h, budget } = harness();
    budget.fails = true;
    const result = await step(h, { reason: 'watch' });
    expect(result.disposition).toBe('stepped');
    expect(h.logger.lines.some((e) => e.message.startsWith('the API budget could not be reserved'))).toBe(true);
  });

  it('a deferral that cannot be sent is left for redelivery', async () => {
    const { h, budget } = harness();
    await spend(h, budget, 100);
    const failing = { ...h, ports: { ...h.ports, queue: { ...h.ports.queue, send: async () => Promise.reject(new TransientError('queue down')) } } };
    const result = await step(failing, { reason: 'watch' });
    expect(result).toMatchObject({ disposition: 'deferred', redeliver: true, errors: ['defer for the API budget: TransientError: queue down'] });
  });
});
