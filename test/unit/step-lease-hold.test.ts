/**
 * Holding a claimed step's records for its lease (issue 8): the visibility a held record gets, what
 * a claimed step holds and what other dispositions leave alone, and a visibility change that fails.
 */

import { describe, expect, it } from '@jest/globals';

import { TransientError } from '../../lib/platform/errors.js';
import { MAX_VISIBILITY_SECONDS } from '../../lib/queue/port.js';
import { HOLD_MARGIN_SECONDS, holdRecordsForLease, holdVisibilitySeconds } from '../../lib/step/lease-hold.js';
import { runStep, type RunStepInput } from '../../lib/step/run-step.js';
import { KEY, T0 } from '../support/fixtures.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { ENGINE_RULES, TEST_STEP_CONFIG, stepHarness, type StepHarness } from '../support/step-fakes.js';

const LEASE = TEST_STEP_CONFIG.leaseForMs;
let owners = 0;

/** Sends one message per reason and receives them all: the records a batch would hand over. */
async function delivered(h: StepHarness, reasons: string[]) {
  await h.queue.send(reasons.map((reason) => ({ message: { key: KEY, reason, enqueuedAtMs: h.clock.nowMs() } })));
  return h.queue.receive(10, 0);
}

function step(h: StepHarness, handles: string[], over: Partial<RunStepInput> = {}) {
  const trigger = { reason: 'watch', receiptHandles: handles };
  return runStep({ key: KEY, trigger, owner: `owner-${++owners}`, ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: ENGINE_RULES, ...over });
}

describe('the visibility a held record gets', () => {
  it.each([
    { name: 'a whole lease left', leaseUntilMs: T0 + 120_000, nowMs: T0, seconds: 120 + HOLD_MARGIN_SECONDS },
    { name: 'a fraction of a second rounds up', leaseUntilMs: T0 + 90_001, nowMs: T0, seconds: 91 + HOLD_MARGIN_SECONDS },
    { name: 'a lease already over', leaseUntilMs: T0, nowMs: T0 + 5_000, seconds: HOLD_MARGIN_SECONDS },
    { name: 'a lease beyond SQS’s 12 h', leaseUntilMs: T0 + 50_000_000, nowMs: T0, seconds: MAX_VISIBILITY_SECONDS },
  ])('$name', ({ leaseUntilMs, nowMs, seconds }) => {
    expect(holdVisibilitySeconds(leaseUntilMs, nowMs)).toBe(seconds);
  });
});

describe('holding records for the lease', () => {
  it('every record of the trigger reappears just after the lease ends, none before', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore(), { visibilityTimeoutSeconds: 370 });
    const records = await delivered(h, ['watch', 'watch']);
    // Act
    const held = await holdRecordsForLease(h.ports, KEY, { reason: 'watch', receiptHandles: records.map((r) => r.receiptHandle) }, T0 + LEASE);
    // Assess
    expect(held).toEqual({ held: 2, untilMs: T0 + LEASE + HOLD_MARGIN_SECONDS * 1000 });
    expect(h.queue.nextVisibleAtMs()).toBe(T0 + LEASE + HOLD_MARGIN_SECONDS * 1000);
    await h.clock.advance(LEASE + HOLD_MARGIN_SECONDS * 1000 - 1);
    expect(await h.queue.receive(10, 0)).toEqual([]);
    await h.clock.advance(1);
    expect((await h.queue.receive(10, 0)).map((r) => r.messageId).sort()).toEqual(records.map((r) => r.messageId).sort());
  });

  it('a trigger without records (an admin step) holds nothing and calls nothing', async () => {
    const h = stepHarness(new MemoryStateStore());
    h.queue.changeVisibility = async () => Promise.reject(new Error('must not be called'));
    expect(await holdRecordsForLease(h.ports, KEY, { reason: 'admin' }, T0 + LEASE)).toEqual({ held: 0 });
  });

  it('a change that fails is logged and returned; the other records are still held', async () => {
    // Prepare: one handle is stale (as SQS's ReceiptHandleIsInvalid)
    const h = stepHarness(new MemoryStateStore(), { visibilityTimeoutSeconds: 370 });
    const [record] = await delivered(h, ['watch']);
    // Act
    const held = await holdRecordsForLease(h.ports, KEY, { reason: 'watch', receiptHandles: [record?.receiptHandle ?? '', 'stale'] }, T0 + LEASE);
    // Assess
    expect(held).toMatchObject({ held: 1, errors: ['hold record for the lease: NotFoundError: message for handle stale is not in flight'] });
    expect(h.logger.withMessage('record not held for the lease: it comes back after the visibility timeout')).toHaveLength(1);
    expect(h.queue.nextVisibleAtMs()).toBe(T0 + LEASE + HOLD_MARGIN_SECONDS * 1000);
  });
});

describe('which steps hold their records', () => {
  it('a step that claims holds its records for its lease, and still steps when the change fails', async () => {
    // Prepare
    const h = stepHarness(new MemoryStateStore(), { visibilityTimeoutSeconds: 370 });
    const records = await delivered(h, ['watch']);
    const seconds: number[] = [];
    const changeVisibility = h.queue.changeVisibility.bind(h.queue);
    h.queue.changeVisibility = async (handle, s) => (seconds.push(s), changeVisibility(handle, s));
    // Act
    const result = await step(h, records.map((r) => r.receiptHandle));
    // Assess
    expect(result).toMatchObject({ disposition: 'stepped', redeliver: false, errors: [] });
    expect(seconds).toEqual([LEASE / 1000 + HOLD_MARGIN_SECONDS]);
    h.queue.changeVisibility = async () => Promise.reject(new TransientError('ChangeMessageVisibility: throttled'));
    const next = await step(h, ['any'], { owner: 'next' });
    expect(next).toMatchObject({ disposition: 'stepped', outcome: { kind: 'complete' }, redeliver: false });
    expect(h.logger.withMessage('record not held for the lease: it comes back after the visibility timeout')).toHaveLength(1);
  });

  it.each([
    { name: 'a trigger that finds the lease held', prepare: (s: MemoryStateStore) => s.claim(KEY, 'live', T0, LEASE), disposition: 'skipped' },
    { name: 'a wake-up whose lease was released', prepare: async () => undefined, disposition: 'superseded', reason: 'lease:1' },
  ])('$name changes no visibility', async ({ prepare, disposition, reason }) => {
    const state = new MemoryStateStore();
    await prepare(state);
    const h = stepHarness(state, { visibilityTimeoutSeconds: 370 });
    const records = await delivered(h, ['watch']);
    const calls: string[] = [];
    h.queue.changeVisibility = async (handle) => void calls.push(handle);
    const result = await step(h, records.map((r) => r.receiptHandle), { trigger: { reason: reason ?? 'watch', receiptHandles: records.map((r) => r.receiptHandle) } });
    expect(result.disposition).toBe(disposition);
    expect(calls).toEqual([]);
  });
});
