import { describe, expect, it } from '@jest/globals';

import type { Outcome } from '../../../../lib/model/outcome.js';
import { combineOutcomes, complete, describeOutcome, fail, retry, wait } from '../../../../lib/reconcile/engine/outcome.js';

describe('combining outcomes: fail > retry > wait > complete, earliest retry wins', () => {
  it.each<{ name: string; outcomes: Outcome[]; expected: Outcome }>([
    { name: 'no outcome is complete', outcomes: [], expected: complete() },
    { name: 'complete and complete stay complete', outcomes: [complete(), complete()], expected: complete() },
    { name: 'wait beats complete', outcomes: [complete(), wait('pods starting')], expected: wait('pods starting') },
    { name: 'retry beats wait', outcomes: [wait('x'), retry(5_000, 'poll')], expected: retry(5_000, 'poll') },
    { name: 'fail beats retry', outcomes: [retry(5_000, 'poll'), fail('boom')], expected: fail('boom') },
    { name: 'fail beats everything in any order', outcomes: [fail('boom'), wait('x'), retry(1, 'y'), complete()], expected: fail('boom') },
    { name: 'the earliest retry wins', outcomes: [retry(60_000, 'slow'), retry(5_000, 'fast'), retry(30_000, 'mid')], expected: retry(5_000, 'fast') },
    { name: 'equal retries keep the first', outcomes: [retry(5_000, 'first'), retry(5_000, 'second')], expected: retry(5_000, 'first') },
    { name: 'two waits keep the first reason', outcomes: [wait('first'), wait('second')], expected: wait('first') },
    { name: 'two failures list both errors', outcomes: [fail('a'), fail('b')], expected: fail('a; b') },
    { name: 'a retryable failure keeps a terminal one retryable', outcomes: [fail('a', true), fail('b', false)], expected: fail('a; b', false) },
    { name: 'two terminal failures stay terminal', outcomes: [fail('a', true), fail('b', true)], expected: fail('a; b', true) },
    { name: 'a complete message survives another complete', outcomes: [complete(), complete('gone')], expected: complete('gone') },
  ])('$name', ({ outcomes, expected }) => {
    // Act
    const combined = combineOutcomes(outcomes);
    // Assess
    expect(combined).toEqual(expected);
  });

  it('a negative retry delay counts as zero', () => {
    expect(retry(-5, 'now')).toEqual({ kind: 'retry', afterMs: 0, message: 'now' });
  });

  it.each([
    { name: 'complete', outcome: complete(), text: 'complete' },
    { name: 'wait', outcome: wait('paused'), text: 'wait: paused' },
    { name: 'retry', outcome: retry(5_000, 'poll'), text: 'retry in 5s: poll' },
    { name: 'a sub-second retry in milliseconds', outcome: retry(500, 'poll'), text: 'retry in 500ms: poll' },
    { name: 'a long retry as kubectl prints a duration', outcome: retry(209_000, 'poll'), text: 'retry in 3m29s: poll' },
    { name: 'terminal fail', outcome: fail('bad spec', true), text: 'fail (terminal): bad spec' },
  ])('describes $name in one line', ({ outcome, text }) => {
    expect(describeOutcome(outcome)).toBe(text);
  });
});
