import { describe, expect, it } from '@jest/globals';

import { TransientError } from '../../lib/platform/errors.js';
import { complete, retry } from '../../lib/reconcile/engine/outcome.js';
import { actRule, type Rule } from '../../lib/reconcile/engine/rule.js';
import type { StateStore } from '../../lib/state/port.js';
import { runStep, type RunStepInput } from '../../lib/step/run-step.js';
import { KEY, T0, tidbCluster } from '../support/fixtures.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { ENGINE_RULES, TEST_STEP_CONFIG, stepHarness, takeQueued, type StepHarness } from '../support/step-fakes.js';

let owners = 0;
const HOUR_MS = 3_600_000;
const EXPIRES = Math.floor(T0 / 1000) + TEST_STEP_CONFIG.historyTtlSeconds;

function step(h: StepHarness, over: Partial<RunStepInput> = {}) {
  return runStep({ key: KEY, trigger: { reason: 'watch' }, owner: `owner-${++owners}`, ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: ENGINE_RULES, ...over });
}

/** A rule that asks to come back in an hour: the engine arms a long (Scheduler) wake-up. */
const comeBackInAnHour: Rule = actRule('Later', () => ({ actions: [], outcome: retry(HOUR_MS, 'later') }));

/** A key with a live cluster stepped once (long wake-up armed) and a failover deadline recorded. */
async function liveKey(state: StateStore = new MemoryStateStore(() => T0)): Promise<StepHarness> {
  const h = stepHarness(state);
  await step(h, { rules: [...ENGINE_RULES, comeBackInAnHour] });
  const claim = await h.ports.state.claim(KEY, 'failover-step', T0, 60_000);
  if (!claim.claimed) throw new Error('test setup: the key is held');
  await h.ports.state.putDeadline(KEY, { component: 'tikv', member: 'basic-tikv-1', kind: 'failover', sinceMs: T0, deadlineAtMs: T0 + HOUR_MS }, claim.fence);
  await h.ports.state.release(KEY, 'failover-step', claim.fence, { failures: 2, nextWakeAtMs: T0 + HOUR_MS, lastStep: { atMs: T0, outcome: 'retry' } });
  await takeQueued(h.queue);
  h.observer.cluster = () => undefined;
  return h;
}

describe('a step that finds its TidbCluster gone leaves no state behind', () => {
  it('forgets the key: deadlines deleted, long wake-up cancelled, state item TTL-ed with no wake-up and no failures', async () => {
    // Prepare
    const h = await liveKey();
    expect(h.scheduler.list()).toHaveLength(1);

    // Act
    const result = await step(h);

    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', outcome: complete('TidbCluster not found'), release: 'released', redeliver: false, nextWakeAtMs: undefined, errors: [] });
    expect(await h.ports.state.listDeadlines(KEY)).toEqual([]);
    expect(h.scheduler.list()).toEqual([]);
    expect(await h.ports.state.get(KEY)).toMatchObject({ lease: undefined, failures: 0, nextWakeAtMs: undefined, expiresAtSeconds: EXPIRES });
    expect(await takeQueued(h.queue)).toEqual([]);
  });

  it("a timer's wake-up for a forgotten key is ignored: no claim, no observe, the TTL stays", async () => {
    // Prepare
    const h = await liveKey();
    await step(h);
    const observed = h.observer.calls;
    const claims = h.state.count('claim');

    // Act
    const result = await step(h, { trigger: { reason: 'timer:wake' } });

    // Assess
    expect(result).toMatchObject({ disposition: 'ignored', redeliver: false, fence: undefined });
    expect(h.observer.calls).toBe(observed);
    expect(h.state.count('claim')).toBe(claims);
    expect((await h.ports.state.get(KEY))?.expiresAtSeconds).toBe(EXPIRES);
  });

  it('any other trigger for a forgotten key still steps, and a cluster created again makes the state permanent', async () => {
    // Prepare
    const h = await liveKey();
    await step(h);
    const { fence: forgottenFence = 0 } = (await h.ports.state.get(KEY)) ?? {};
    h.observer.cluster = () => tidbCluster();

    // Act
    const result = await step(h, { trigger: { reason: 'watch' } });

    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', fence: forgottenFence + 1 });
    expect((await h.ports.state.get(KEY))?.expiresAtSeconds).toBeUndefined();
  });

  it('a message for a key that never existed leaves only an expiring item', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore(() => T0));
    h.observer.cluster = () => undefined;

    // Act
    const result = await step(h, { key: 'eks-test/demo/never-was' });

    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', redeliver: false });
    expect(await h.ports.state.get('eks-test/demo/never-was')).toMatchObject({ fence: 1, lease: undefined, expiresAtSeconds: EXPIRES });
  });

  it('a forget the store could not write leaves the trigger for redelivery', async () => {
    // Prepare
    const h = await liveKey();
    h.state.forget = async () => Promise.reject(new TransientError('DynamoDB throttled'));

    // Act
    const result = await step(h);

    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', release: 'released', redeliver: true });
    expect(result.errors).toEqual([expect.stringContaining('forget: ')]);
  });

  it('a step whose observation failed forgets nothing', async () => {
    // Prepare
    const h = await liveKey();
    h.observer.failNext(new TransientError('API server unreachable'));

    // Act
    const result = await step(h);

    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', redeliver: false });
    expect(await h.ports.state.listDeadlines(KEY)).toHaveLength(1);
    expect((await h.ports.state.get(KEY))?.expiresAtSeconds).toBeUndefined();
    expect(h.state.count('forget')).toBe(0);
  });
});
