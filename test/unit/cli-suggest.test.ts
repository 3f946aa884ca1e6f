import { describe, expect, it } from '@jest/globals';
import { didYouMean, editDistance, nearest, parseArgsWithHints } from '../../lib/cli/suggest.js';

describe('suggestions for a mistyped word', () => {
  it.each([
    { name: 'two neighbours swapped', a: 'regoin', b: 'region', distance: 1 },
    { name: 'one letter replaced', a: 'plam', b: 'plan', distance: 1 },
    { name: 'one letter missing', a: 'histry', b: 'history', distance: 1 },
    { name: 'unrelated', a: 'frob', b: 'plan', distance: 4 },
    { name: 'the same word', a: 'start', b: 'start', distance: 0 },
  ])('edit distance: $name', ({ a, b, distance }) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it.each([
    { name: 'a transposition', word: 'simualte', want: 'simulate' },
    { name: 'a missing letter', word: 'histroy', want: 'history' },
    { name: 'the start of one word', word: 'force', want: 'force-upgrade' },
    { name: 'nothing near', word: 'frobnicate', want: undefined },
    { name: 'a short word two edits away is not near', word: 'ab', want: undefined },
  ])('nearest: $name', ({ word, want }) => {
    expect(nearest(word, ['start', 'simulate', 'plan', 'admin', 'history', 'status', 'force-upgrade'])).toBe(want);
  });

  it('didYouMean reads as a hint, or says nothing', () => {
    expect(didYouMean('pasue', ['pause', 'resume'])).toBe(' (did you mean "pause"?)');
    expect(didYouMean('zzz', ['pause', 'resume'])).toBe('');
  });

  it.each([
    { name: 'a long flag', args: ['--timout', '5s'], error: "Unknown option '--timout' (did you mean --timeout?)" },
    { name: 'nothing near', args: ['--zzzzzz'], error: "Unknown option '--zzzzzz'" },
  ])('an unknown flag is refused with the nearest known flag: $name', ({ args, error }) => {
    const parse = () => parseArgsWithHints({ args, strict: true, options: { timeout: { type: 'string' }, once: { type: 'boolean' } } });
    expect(parse).toThrow(error);
  });

  it('a known flag parses as parseArgs does', () => {
    expect(parseArgsWithHints({ args: ['--once'], strict: true, options: { once: { type: 'boolean' } } }).values).toEqual({ once: true });
  });
});
