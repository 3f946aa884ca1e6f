/**
 * Health checks (docs/adr/0024): a step that completes on a cluster it may read at rest leaves one
 * health check pending `healthIntervalMs` ahead (a delayed `health` message, its due time in the
 * state item); the health step observes with `health: true` and arms the next; any other health
 * message is dropped before claiming; a step that does not complete leaves none pending.
 */
import { describe, expect, it } from '@jest/globals';

import { complete, retry } from '../../lib/reconcile/engine/outcome.js';
import { actRule, statusRule } from '../../lib/reconcile/engine/rule.js';
import { runStep, type RunStepInput } from '../../lib/step/run-step.js';
import { KEY, T0 } from '../support/fixtures.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { ENGINE_RULES, TEST_STEP_CONFIG, queuedWithin, stepHarness, takeQueued, type StepHarness } from '../support/step-fakes.js';

const CONFIG = { ...TEST_STEP_CONFIG, healthIntervalMs: 30_000 };
let owners = 0;

function step(h: StepHarness, over: Partial<RunStepInput> = {}) {
  return runStep({ key: KEY, trigger: { reason: 'watch' }, owner: `owner-${++owners}`, ports: h.ports, config: CONFIG, budgetMs: 60_000, rules: ENGINE_RULES, ...over });
}

async function healthAt(h: StepHarness): Promise<number | undefined> {
  return (await h.ports.state.get(KEY))?.lastStep?.healthAtMs;
}

describe('health checks', () => {
  it('a completed step arms one health check 30 s ahead, and a second step leaves it pending', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    // Act
    await step(h);
    await h.clock.advance(5_000);
    await step(h);
    // Assess
    expect(await healthAt(h)).toBe(T0 + 30_000);
    const queued = (await queuedWithin(h, 40_000)).filter((m) => m.reason === 'health');
    expect(queued).toEqual([{ reason: 'health', atMs: 30_000 }]);
  });

  it('the pending health step observes for health, at rest, and arms the next', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    await step(h);
    await takeQueued(h.queue);
    await h.clock.advance(30_000);
    // Act
    const result = await step(h, { trigger: { reason: 'health', dueAtMs: T0 + 30_000 } });
    // Assess
    expect(result.disposition).toBe('stepped');
    expect(h.observer.requests[1]).toMatchObject({ health: true, verified: { uid: 'uid-basic', generation: 1 } });
    expect(await healthAt(h)).toBe(T0 + 60_000);
  });

  it('a completed step records the kept read its observation is, and the health step after it is told of it (docs/adr/0024)', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    h.observer.keptRead = 1;
    // A step that writes no status (the status it plans is the one read).
    await step(h, { rules: [statusRule('Same', () => ({ outcome: complete() }))] });
    await takeQueued(h.queue);
    await h.clock.advance(30_000);
    // Act
    await step(h, { trigger: { reason: 'health', dueAtMs: T0 + 30_000 } });
    // Assess
    expect(h.observer.requests[1]).toMatchObject({ health: true, persistedRead: 1 });
  });

  it("a step that writes the TidbCluster's status records no kept read to stand on: the write changed what was read", async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    h.observer.keptRead = 1;
    // Act
    await step(h, { rules: [statusRule('Writes', (input) => ({ status: { ...input.status, observedGeneration: 99 }, outcome: complete() }))] });
    // Assess
    const lastStep = (await h.ports.state.get(KEY))?.lastStep;
    expect(lastStep?.outcome).toBe('complete');
    expect(lastStep?.verified).toBeDefined();
    expect(lastStep?.persistedRead).toBeUndefined();
  });

  it('a step that does not complete records no kept read to stand on', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    h.observer.keptRead = 1;
    // Act
    await step(h, { rules: [actRule('Fails', () => ({ actions: [], outcome: retry(1_000, 'not yet') }))] });
    // Assess
    expect((await h.ports.state.get(KEY))?.lastStep?.persistedRead).toBeUndefined();
  });

  it.each([
    { name: 'another due time', dueAtMs: T0 + 29_000 },
    { name: 'no due time while one is pending', dueAtMs: undefined },
  ])('a health message that is not the pending one is dropped before claiming: $name', async ({ dueAtMs }) => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    await step(h);
    const fence = (await h.ports.state.get(KEY))?.fence;
    // Act
    const result = await step(h, { trigger: { reason: 'health', ...(dueAtMs === undefined ? {} : { dueAtMs }) } });
    // Assess
    expect(result.disposition).toBe('superseded');
    expect(h.observer.calls).toBe(1);
    expect((await h.ports.state.get(KEY))?.fence).toBe(fence);
  });

  it('a step that does not complete leaves no health check pending, and one after it that completes arms one', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    await step(h);
    // Act
    await step(h, { rules: [actRule('Waiting', () => ({ actions: [], outcome: retry(1_000, 'later') }))] });
    const afterRetry = await healthAt(h);
    await step(h);
    // Assess
    expect(afterRetry).toBeUndefined();
    // The full read after the retry verifies anew; its health check is the one pending now.
    expect(await healthAt(h)).toBe(T0 + 30_000);
  });

  it('off (no interval): no health check is armed', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    // Act
    await step(h, { config: TEST_STEP_CONFIG });
    // Assess
    expect(await healthAt(h)).toBeUndefined();
    expect((await queuedWithin(h, 40_000)).filter((m) => m.reason === 'health')).toEqual([]);
  });
});
