import { describe, expect, it } from '@jest/globals';

import { runBatch, type BatchRecord } from '../../lib/step/batch.js';
import type { StepResult } from '../../lib/step/result.js';
import type { RunStepInput } from '../../lib/step/run-step.js';
import { isDueSoon } from '../../lib/step/sweep.js';
import { T0 } from '../support/fixtures.js';
import { MemoryStateStore } from '../support/memory-state.js';
import { TEST_STEP_CONFIG, stepHarness } from '../support/step-fakes.js';

const record = (messageId: string, body: unknown, sentAtMs = T0): BatchRecord => ({
  messageId,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  attributes: { SentTimestamp: String(sentAtMs) },
});

/** Runs a batch with a fake step that records its inputs and asks for redelivery of `redeliver` keys. */
async function batch(records: BatchRecord[], redeliver: string[] = []) {
  const h = stepHarness(new MemoryStateStore());
  const inputs: RunStepInput[] = [];
  const step = async (input: RunStepInput) => {
    inputs.push(input);
    return { redeliver: redeliver.includes(input.key) } as StepResult;
  };
  const result = await runBatch(records, { ports: h.ports, config: TEST_STEP_CONFIG, invocationId: 'inv', remainingMs: () => 42_000, step });
  return { inputs, result, logger: h.logger };
}

describe('one SQS batch → one step per distinct key', () => {
  it('records of one key collapse into one step; keys run with the remaining time as budget', async () => {
    // Act
    const { inputs, result } = await batch([
      record('m1', { key: 'c/ns/a', reason: 'watch', enqueuedAtMs: T0 + 5 }),
      record('m2', { key: 'c/ns/b', reason: 'sweep', enqueuedAtMs: T0 }),
      record('m3', { key: 'c/ns/a', reason: 'watch', enqueuedAtMs: T0 + 1 }),
    ]);
    // Assess
    expect(inputs.map((i) => [i.key, i.trigger, i.owner, i.budgetMs])).toEqual([
      ['c/ns/a', { reason: 'watch', messageId: 'm1', enqueuedAtMs: T0 + 1 }, 'inv/m1', 42_000],
      ['c/ns/b', { reason: 'sweep', messageId: 'm2', enqueuedAtMs: T0 }, 'inv/m2', 42_000],
    ]);
    expect(result.response).toEqual({ batchItemFailures: [] });
  });

  it("a timer record makes the step a timer's step (its wake-up is consumed)", async () => {
    const { inputs } = await batch([
      record('m1', { key: 'c/ns/a', reason: 'watch', enqueuedAtMs: T0 }),
      record('m2', { key: 'c/ns/a', reason: 'timer:wake', enqueuedAtMs: T0 + 9 }),
    ]);
    expect(inputs.map((i) => i.trigger.reason)).toEqual(['timer:wake']);
  });

  it.each([
    { name: 'alone, it keeps its due time', due: [T0 + 1_000], want: T0 + 1_000 },
    { name: 'two stand for the later one (the step consumes both)', due: [T0 + 2_000, T0 + 1_000], want: T0 + 2_000 },
    { name: 'one that does not say makes the merged one not say', due: [T0 + 1_000, undefined], want: undefined },
  ])("a timer's due time rides on its trigger: $name", async ({ due, want }) => {
    // Prepare: the timers' records of one key, and a watch's (which carries no due time)
    const timers = due.map((dueAtMs, i) => record(`t${i}`, { key: 'c/ns/a', reason: 'timer:wake', enqueuedAtMs: T0, ...(dueAtMs === undefined ? {} : { dueAtMs }) }));
    // Act
    const { inputs } = await batch([record('w', { key: 'c/ns/a', reason: 'watch', enqueuedAtMs: T0 }), ...timers]);
    // Assess
    expect(inputs.map((i) => [i.trigger.reason, i.trigger.dueAtMs])).toEqual([['timer:wake', want]]);
  });

  it.each([
    { name: 'a wake-up first, then a watch', reasons: ['lease:3', 'watch'], chosen: 'watch' },
    { name: 'a watch first, then a wake-up', reasons: ['watch', 'lease:3'], chosen: 'watch' },
    { name: 'a wake-up and a timer', reasons: ['lease:3', 'timer:wake'], chosen: 'timer:wake' },
    { name: 'two wake-ups', reasons: ['lease:3', 'lease:4'], chosen: 'lease:3' },
  ])('a lease-expiry wake-up never stands in for a real trigger of the same key: $name', async ({ reasons, chosen }) => {
    const { inputs } = await batch(reasons.map((reason, i) => record(`m${i}`, { key: 'c/ns/a', reason, enqueuedAtMs: T0 })));
    expect(inputs.map((i) => i.trigger.reason)).toEqual([chosen]);
  });

  it.each([
    { name: 'a health check first, then a watch', reasons: ['health', 'watch'], chosen: 'watch' },
    { name: 'a watch first, then a health check', reasons: ['watch', 'health'], chosen: 'watch' },
    { name: 'a health check and a lease-expiry wake-up', reasons: ['health', 'lease:3'], chosen: 'lease:3' },
    { name: 'a health check and a timer', reasons: ['health', 'timer:wake'], chosen: 'timer:wake' },
  ])('a health check gives way to any other trigger of the same key (docs/adr/0024): $name', async ({ reasons, chosen }) => {
    const { inputs } = await batch(reasons.map((reason, i) => record(`m${i}`, { key: 'c/ns/a', reason, enqueuedAtMs: T0, dueAtMs: T0 })));
    expect(inputs.map((i) => i.trigger.reason)).toEqual([chosen]);
  });

  it.each([
    { name: 'asked by the first', asks: [true, false] },
    { name: 'asked by the second', asks: [false, true] },
  ])('a TiDB Operator re-check asked by any record of a key is asked by its trigger (docs/adr/0024): $name', async ({ asks }) => {
    const { inputs } = await batch(asks.map((ask, i) => record(`m${i}`, { key: 'c/ns/a', reason: i === 0 ? 'timer:wake' : 'watch', enqueuedAtMs: T0, ...(ask ? { checkTidbOperator: true } : {}) })));
    expect(inputs.map((i) => i.trigger.checkTidbOperator)).toEqual([true]);
  });

  it.each([
    { name: 'held by one record', held: [undefined, T0 + 2_000], want: T0 + 2_000 },
    { name: 'held by both: the earlier', held: [T0 + 3_000, T0 + 2_000], want: T0 + 2_000 },
    { name: 'held by none', held: [undefined, undefined], want: undefined },
  ])('a reservation of the API budget held by any record of a key rides on its trigger (docs/adr/0028): $name', async ({ held, want }) => {
    const { inputs } = await batch(held.map((at, i) => record(`m${i}`, { key: 'c/ns/a', reason: 'watch', enqueuedAtMs: T0, ...(at === undefined ? {} : { budgetAtMs: at }) })));
    expect(inputs.map((i) => i.trigger.budgetAtMs)).toEqual([want]);
  });

  it("a health check's due time rides on its trigger", async () => {
    const { inputs } = await batch([record('m1', { key: 'c/ns/a', reason: 'health', enqueuedAtMs: T0, dueAtMs: T0 + 30_000 })]);
    expect(inputs.map((i) => [i.trigger.reason, i.trigger.dueAtMs])).toEqual([['health', T0 + 30_000]]);
  });

  it("every record's receipt handle rides on its key's trigger, so the step can hold them all for its lease", async () => {
    // Prepare
    const withHandle = (r: BatchRecord, receiptHandle: string): BatchRecord => ({ ...r, receiptHandle });
    // Act
    const { inputs } = await batch([
      withHandle(record('m1', { key: 'c/ns/a', reason: 'lease:3', enqueuedAtMs: T0 }), 'h1'),
      withHandle(record('m2', { key: 'c/ns/b', reason: 'watch', enqueuedAtMs: T0 }), 'h2'),
      withHandle(record('m3', { key: 'c/ns/a', reason: 'watch', enqueuedAtMs: T0 }), 'h3'),
      record('m4', { key: 'c/ns/a', reason: 'watch', enqueuedAtMs: T0 }),
    ]);
    // Assess
    expect(inputs.map((i) => [i.key, i.trigger.reason, i.trigger.receiptHandles])).toEqual([
      ['c/ns/a', 'watch', ['h1', 'h3']],
      ['c/ns/b', 'watch', ['h2']],
    ]);
  });

  it.each([
    { name: 'not JSON', body: '{oops' },
    { name: 'no key', body: { reason: 'watch' } },
    { name: 'a malformed key', body: { key: 'only/two', reason: 'watch' } },
  ])('a malformed record is a batch item failure (for the DLQ) and runs nothing: $name', async ({ body }) => {
    const { inputs, result, logger } = await batch([record('bad', body), record('ok', { key: 'c/ns/a', reason: 'watch' })]);
    expect(inputs.map((i) => i.key)).toEqual(['c/ns/a']);
    expect(result.response).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(logger.withMessage('malformed reconcile message')).toHaveLength(1);
  });

  it('every record of a key whose step asks for redelivery is a batch item failure', async () => {
    const { result } = await batch(
      [record('m1', { key: 'c/ns/a', reason: 'watch' }), record('m2', { key: 'c/ns/b', reason: 'watch' }), record('m3', { key: 'c/ns/a', reason: 'x' })],
      ['c/ns/a'],
    );
    expect(result.response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }, { itemIdentifier: 'm3' }]);
  });

  it('a step that throws is redelivered, not lost', async () => {
    const h = stepHarness(new MemoryStateStore());
    const step = async (input: RunStepInput): Promise<StepResult> => {
      if (input.key === 'c/ns/a') throw new Error('wrapper bug');
      return { redeliver: false } as StepResult;
    };
    const records = [record('m1', { key: 'c/ns/a', reason: 'watch' }), record('m2', { key: 'c/ns/b', reason: 'watch' })];
    const deps = { ports: h.ports, config: TEST_STEP_CONFIG, invocationId: 'inv', remainingMs: () => 1_000, step };
    const result = await runBatch(records, deps);
    expect(result.response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
  });

  it('without an enqueue time in the body, SQS SentTimestamp is the queue-lag start', async () => {
    const { inputs } = await batch([record('m1', { key: 'c/ns/a', reason: 'watch' }, T0 - 700)]);
    expect(inputs[0]?.trigger.enqueuedAtMs).toBe(T0 - 700);
  });
});

describe('the sweep leaves keys whose wake-up is due soon', () => {
  it.each([
    { name: 'no wake-up: sweep it', nextWakeAtMs: undefined, due: false },
    { name: 'a wake-up within the window: leave it', nextWakeAtMs: T0 + 30_000, due: true },
    { name: 'a wake-up at the window edge: leave it', nextWakeAtMs: T0 + 60_000, due: true },
    { name: 'a wake-up beyond the window: sweep it', nextWakeAtMs: T0 + 60_001, due: false },
    { name: 'a wake-up in the past (maybe lost): sweep it', nextWakeAtMs: T0 - 1, due: false },
  ])('$name', ({ nextWakeAtMs, due }) => {
    expect(isDueSoon({ nextWakeAtMs }, T0, 60_000)).toBe(due);
  });

  it('a key never stepped: sweep it', () => {
    expect(isDueSoon(undefined, T0, 60_000)).toBe(false);
  });
});
