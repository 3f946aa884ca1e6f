import { describe, expect, it } from '@jest/globals';

import { TerminalError, TransientError } from '../../lib/platform/errors.js';
import { runBatches, toBatchEntries, type BatchEntry, type BatchFailure } from '../../lib/queue/batch.js';
import { chunk, normaliseDelaySeconds } from '../../lib/queue/port.js';

/** A batch request that records what it was asked and fails the ids listed for each attempt number. */
function recordingRequest(failPlan: Record<string, number>) {
  const requests: string[][] = [];
  const attempts = new Map<string, number>();
  const request = async (batch: readonly BatchEntry<string>[]): Promise<BatchFailure[]> => {
    requests.push(batch.map((e) => e.id));
    const failures: BatchFailure[] = [];
    for (const e of batch) {
      const n = (attempts.get(e.id) ?? 0) + 1;
      attempts.set(e.id, n);
      if (n <= (failPlan[e.id] ?? 0)) failures.push({ id: e.id, code: 'InternalError', senderFault: false });
    }
    return failures;
  };
  return { request, requests };
}

describe('batched SQS requests', () => {
  it('a send of 25 entries goes out as 3 requests of 10, 10 and 5', async () => {
    // Prepare
    const entries = toBatchEntries(Array.from({ length: 25 }, (_, i) => `k${i}`), (k) => k);
    const { request, requests } = recordingRequest({});
    // Act
    await runBatches('SendMessageBatch', entries, request);
    // Assess
    expect(requests.map((r) => r.length)).toEqual([10, 10, 5]);
    expect(new Set(requests.flat()).size).toBe(25);
  });

  it('an entry that fails once is retried once, alone, and the send succeeds', async () => {
    const entries = toBatchEntries(['a', 'b', 'c'], (k) => k);
    const { request, requests } = recordingRequest({ m1: 1 });
    await runBatches('SendMessageBatch', entries, request);
    expect(requests).toEqual([['m0', 'm1', 'm2'], ['m1']]);
  });

  it('entries failing twice surface as one TransientError naming each id and key, after all batches', async () => {
    const entries = toBatchEntries(Array.from({ length: 12 }, (_, i) => `cluster/ns/tc${i}`), (k) => k);
    const { request, requests } = recordingRequest({ m2: 2, m11: 5 });
    const sent = runBatches('SendMessageBatch', entries, request);
    await expect(sent).rejects.toBeInstanceOf(TransientError);
    await expect(sent).rejects.toThrow(/2 entries failed after one retry: m2 \(cluster\/ns\/tc2: InternalError\), m11/);
    expect(requests).toEqual([entries.slice(0, 10).map((e) => e.id), ['m2'], ['m10', 'm11'], ['m11']]);
  });

  it('a request that throws stops the send with that error', async () => {
    const entries = toBatchEntries(['a'], (k) => k);
    const boom = new TransientError('connection reset');
    await expect(runBatches('SendMessageBatch', entries, async () => Promise.reject(boom))).rejects.toBe(boom);
  });
});

describe('message delay', () => {
  it.each([
    { name: 'a missing delay is 0', delay: undefined, expected: 0 },
    { name: 'a negative delay is 0', delay: -5, expected: 0 },
    { name: 'a fraction rounds up, so a wake-up is never early', delay: 0.2, expected: 1 },
    { name: '900 s is the longest delay SQS takes', delay: 900, expected: 900 },
  ])('$name', ({ delay, expected }) => {
    expect(normaliseDelaySeconds(delay)).toBe(expected);
  });

  it.each([
    { name: '901 s', delay: 901 },
    { name: '900.5 s (rounds up past the limit)', delay: 900.5 },
    { name: 'a day', delay: 86_400 },
  ])('a delay above 900 s is a TerminalError pointing at the scheduler: $name', ({ delay }) => {
    expect(() => normaliseDelaySeconds(delay)).toThrow(TerminalError);
    expect(() => normaliseDelaySeconds(delay)).toThrow(/exceeds the SQS maximum of 900; use a scheduler timer/);
  });

  it('chunks keep order and never exceed the size', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
