/**
 * Recovery rules of the workqueue contract (docs/ARCHITECTURE.md, Queue semantics) on the real engine, DynamoDB state (dynalite),
 * the in-process SQS queue with visibility timeout and DLQ, and a virtual clock: crashed steps, poison
 * messages and the sweep, and what a step on a converged cluster writes.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { TransientError } from '../../lib/platform/errors.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { MemoryMetrics } from '../../lib/platform/metrics.js';
import type { SqsBatchHandler } from '../../lib/queue/poller.js';
import type { OutgoingMessage, ReconcileQueue } from '../../lib/queue/port.js';
import { complete } from '../../lib/reconcile/engine/outcome.js';
import { actRule, type Rule } from '../../lib/reconcile/engine/rule.js';
import { runSweep, type ClusterLister } from '../../lib/step/sweep.js';
import { T0 } from '../support/fixtures.js';
import { startDynalite, type LocalDynamo } from '../support/dynamo.js';
import { TEST_STEP_CONFIG, ENGINE_RULES } from '../support/step-fakes.js';
import { prepareTable, stepWorld, type StepWorld } from '../support/step-world.js';

let dynamo: LocalDynamo;

beforeAll(async () => {
  dynamo = await startDynalite();
  await prepareTable(dynamo);
});

afterAll(async () => {
  await dynamo?.stop();
});

/** The registry plus a first rule that records an Event on every step (the step dies in it once). */
const announcing = [
  actRule('Announce', () => ({
    actions: [{ kind: 'event', type: 'Normal', reason: 'Reconciling', message: 'step', object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } }],
    outcome: complete(),
  })),
  ...ENGINE_RULES,
] satisfies Rule[];

const lister = (keys: string[]): ClusterLister => ({ listClusterKeys: async () => keys });

function sweepPorts(w: StepWorld, keys: string[], queue: Pick<ReconcileQueue, 'send'> = w.queue) {
  return { lister: lister(keys), state: w.state, queue, clock: w.clock, logger: new MemoryLogger(), metrics: new MemoryMetrics() };
}

describe('a crashed step', () => {
  it('a step that crashes with no other trigger is stepped again when its lease expires, not after the visibility timeout', async () => {
    // Prepare: lease 90 s, the deployed visibility timeout 370 s, function timeout 60 s
    const w = stepWorld(dynamo, { visibilityTimeoutSeconds: 370, rules: announcing });
    expect(TEST_STEP_CONFIG.leaseForMs).toBe(90_000);
    const dying = w.executor.hangNext('event');
    await w.trigger();
    // Act: the invocation claims, then hangs until Lambda's timeout kills it; nothing else arrives
    const invocation = w.poller.pollOnce();
    await dying;
    await w.clock.advance(60_000);
    const killed = await invocation;
    // Assess: nothing is retried while the dead step's lease lasts …
    expect(killed).toMatchObject({ received: 1, deleted: 0, failedWholeBatch: true });
    expect((await w.state.get(w.key))?.lease).toMatchObject({ untilMs: T0 + 90_000 });
    expect(await w.runFor(31_000)).toEqual([]);
    // … then the same message comes back (held for the lease plus a 2 s margin), finds the lease expired, and the step runs.
    const retried = await w.runFor(1_000);
    expect(retried.map((s) => [s.disposition, s.trigger.reason, s.fence, s.startedAtMs - T0])).toEqual([['stepped', 'watch', 2, 92_000]]);
    expect((await w.state.get(w.key))?.lease).toBeUndefined();
    expect(w.queue.stats()).toMatchObject({ visible: 0, delayed: 0, inFlight: 0 });
    expect(await w.runFor(370_000, 10_000)).toEqual([]);
  });

  it('a step whose records cannot be held falls back to the visibility timeout', async () => {
    // Prepare: ChangeMessageVisibility fails (e.g. throttled)
    const w = stepWorld(dynamo, { visibilityTimeoutSeconds: 120, rules: announcing });
    w.queue.changeVisibility = async () => Promise.reject(new TransientError('ChangeMessageVisibility: throttled'));
    const dying = w.executor.hangNext('event');
    await w.trigger();
    // Act
    const invocation = w.poller.pollOnce();
    await dying;
    await w.clock.advance(60_000);
    await invocation;
    // Assess: the step went on (it reached its action); the warning is logged; redelivery at 120 s
    expect(w.logger.lines.filter((l) => l.level === 'warn' && l.message !== 'reconcile step').map((l) => l.message)).toEqual([
      'record not held for the lease: it comes back after the visibility timeout',
    ]);
    expect(await w.runFor(59_000)).toEqual([]);
    const retried = await w.runFor(1_000);
    expect(retried.map((s) => [s.disposition, s.trigger.reason, s.fence, s.startedAtMs - T0])).toEqual([['stepped', 'watch', 2, 120_000]]);
  });

  it('a trigger that finds a dead step\'s lease is stepped when the lease expires', async () => {
    const w = stepWorld(dynamo, { visibilityTimeoutSeconds: 120, rules: announcing });
    const dying = w.executor.hangNext('event');
    await w.trigger();
    const invocation = w.poller.pollOnce();
    await dying;
    await w.clock.advance(60_000);
    await invocation;
    // A watch event at 70 s finds the lease held: it marks the key dirty and arms the lease's expiry.
    await w.clock.advance(10_000);
    await w.trigger('pod-changed');
    const skipped = await w.drain();
    expect(skipped.map((s) => [s.disposition, s.armedWakeAtMs === undefined ? undefined : s.armedWakeAtMs - T0])).toEqual([['skipped', 90_000]]);
    // At 90 s, when the lease ends (not at the 120 s redelivery), a step observes the world after that event.
    const woken = await w.runFor(20_000);
    expect(woken.map((s) => [s.disposition, s.trigger.reason, s.fence, s.startedAtMs - T0])).toEqual([['stepped', 'lease:1', 2, 90_000]]);
    expect(w.observer.calls).toBe(2);
    expect(w.executor.executed.map((a) => a.kind)).toEqual(['event', 'event']);
    // The dead invocation's own message comes back when its hold ends (lease + 2 s); the lease is free, so it steps once.
    const redelivered = await w.runFor(40_000);
    expect(redelivered.map((s) => [s.disposition, s.trigger.reason, s.startedAtMs - T0])).toEqual([['stepped', 'watch', 92_000]]);
    expect(w.queue.stats()).toMatchObject({ visible: 0, delayed: 0, inFlight: 0 });
  });

  it('a trigger that finds a live step\'s lease costs one extra step, not two', async () => {
    // Prepare: a step holds the lease for 30 s (slow observe), three triggers arrive meanwhile
    const w = stepWorld(dynamo, { visibilityTimeoutSeconds: 120 });
    const gate = w.observer.blockNext();
    await w.trigger();
    const first = w.poller.pollOnce();
    await gate.entered;
    for (let i = 0; i < 3; i++) {
      await w.clock.advance(10_000);
      await w.trigger('pod-changed');
      await w.drain();
    }
    gate.open();
    await first;
    // Act: run past the lease's end
    const later = await w.runFor(120_000);
    // Assess: the dirty re-enqueue steps once; the armed expiry wake-up finds the lease released
    expect(later.map((s) => [s.disposition, s.trigger.reason])).toEqual([['stepped', 'dirty'], ['superseded', 'lease:1']]);
    expect(w.observer.calls).toBe(2);
    expect(w.queue.stats()).toMatchObject({ visible: 0, delayed: 0, inFlight: 0 });
  });
});

describe('a step that lost its lease does nothing more', () => {
  it("a stale step's PD call is refused and never sent; the newer step's deadline survives it", async () => {
    // Prepare: a step that would delete a PD member and write a deadline is stuck in observe …
    const deadline = { component: 'pd', member: 'basic-pd-3', kind: 'failover', sinceMs: T0, deadlineAtMs: T0 + 1 };
    const w = stepWorld(dynamo, {
      rules: [actRule('Remove', () => ({ actions: [{ kind: 'pd.deleteMember', name: 'basic-pd-3' }, { kind: 'state.putDeadline', deadline }], outcome: complete() }))],
    });
    const gate = w.observer.blockNext();
    await w.trigger();
    const stale = w.poller.pollOnce();
    await gate.entered;
    // … while a step whose clock runs a lease ahead takes the lease over and writes the deadline.
    const newer = await w.state.claim(w.key, 'newer', T0 + TEST_STEP_CONFIG.leaseForMs, TEST_STEP_CONFIG.leaseForMs);
    if (!newer.claimed) throw new Error('the takeover must claim');
    const newerDeadline = { ...deadline, deadlineAtMs: T0 + 2 };
    await w.state.putDeadline(w.key, newerDeadline, newer.fence);
    // Act
    gate.open();
    await stale;
    // Assess
    const [step] = w.steps;
    expect(step?.actions.map((a) => [a.description.split(' ')[0], a.result])).toEqual([['pd.deleteMember', 'error'], ['state.putDeadline', 'not-run']]);
    expect(step?.release).toBe('lost-lease');
    expect(w.executor.executed.filter((a) => a.kind === 'pd.deleteMember')).toEqual([]);
    expect(await w.state.listDeadlines(w.key)).toEqual([{ ...newerDeadline, fence: newer.fence }]);
  });
});

describe('poison messages and the sweep', () => {
  it('a poison message lands in the DLQ and the sweep still reconciles its cluster', async () => {
    // Prepare: a handler that crashes on one particular message (a bug tied to its content)
    const crashOnPoison = (handler: SqsBatchHandler): SqsBatchHandler => async (event, context) => {
      if (event.Records.some((r) => r.body.includes('"poison"'))) throw new Error('handler crashed');
      return handler(event, context);
    };
    const poisoned = stepWorld(dynamo, { visibilityTimeoutSeconds: 120, maxReceiveCount: 3, wrap: crashOnPoison });
    await poisoned.trigger('poison');
    // Act: three deliveries fail, then SQS redrives it
    await poisoned.runFor(480_000, 60_000);
    // Assess
    expect(poisoned.queue.deadLetters().map((d) => [JSON.parse(d.body).key, d.receiveCount])).toEqual([[poisoned.key, 3]]);
    expect(poisoned.steps).toEqual([]);
    // The sweep lists the cluster and enqueues it; the step runs.
    const other = `${poisoned.key}-other`;
    const swept = await runSweep(sweepPorts(poisoned, [poisoned.key, other]), { dueWithinMs: 60_000 });
    expect(swept.enqueued).toEqual([poisoned.key, other]);
    const steps = await poisoned.drain();
    expect(steps.filter((s) => s.key === poisoned.key).map((s) => [s.disposition, s.trigger.reason, s.outcome?.kind])).toEqual([['stepped', 'sweep', 'complete']]);
  });

  it('the sweep enqueues in batches of 10 and leaves keys whose wake-up is due soon', async () => {
    // Prepare: 23 clusters; one wakes in 30 s, one had a wake-up in the past (possibly lost)
    const w = stepWorld(dynamo);
    const keys = Array.from({ length: 23 }, (_, i) => `${w.key}-${String(i).padStart(2, '0')}`);
    const [soon, lost] = [keys[3] ?? '', keys[4] ?? ''];
    await w.state.setNextWake(soon, T0 + 30_000);
    await w.state.setNextWake(lost, T0 - 60_000);
    const sends: number[] = [];
    const counting = { send: async (m: readonly OutgoingMessage[]) => (sends.push(m.length), w.queue.send(m)) };
    // Act
    const result = await runSweep(sweepPorts(w, keys, counting), { dueWithinMs: 60_000 });
    // Assess
    expect(result.listed).toBe(23);
    expect(result.dueSoon).toEqual([{ key: soon, nextWakeAtMs: T0 + 30_000 }]);
    expect(result.enqueued).toHaveLength(22);
    expect(result.enqueued).toContain(lost);
    expect(sends).toEqual([9, 10, 3]);
  });
});

describe('a converged cluster', () => {
  it('a step on a healthy, unchanged cluster writes nothing to Kubernetes or PD and only its lease to DynamoDB', async () => {
    // Prepare: a first step records the converged state
    const w = stepWorld(dynamo);
    await w.trigger();
    await w.drain();
    w.state.reset();
    // Act: the periodic sweep steps it again
    await runSweep(sweepPorts(w, [w.key]), { dueWithinMs: 60_000 });
    const steps = await w.drain();
    // Assess
    expect(steps.map((s) => [s.disposition, s.outcome?.kind, s.actions.length])).toEqual([['stepped', 'complete', 0]]);
    expect(w.executor.executed).toEqual([]);
    expect(w.state.writes()).toEqual({ claim: 1, release: 1 });
    expect(w.queue.stats()).toMatchObject({ visible: 0, delayed: 0, inFlight: 0 });
    expect(w.scheduler.list()).toEqual([]);
  });
});
