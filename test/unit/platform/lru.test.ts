/**
 * `LruMap`: at most `max` keys, the least recently used going first; `get` and `set` count as use,
 * `peek` does not.
 */
import { describe, expect, it } from '@jest/globals';

import { LruMap } from '../../../lib/platform/lru.js';

const keys = (map: LruMap<string, number>, all: readonly string[]) => all.filter((k) => map.peek(k) !== undefined);

describe('LruMap', () => {
  it('beyond max, the least recently set key goes first; setting a key again moves it to the end', () => {
    // Prepare
    const map = new LruMap<string, number>(2);

    // Act
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 3);
    map.set('c', 4);

    // Assess
    expect(keys(map, ['a', 'b', 'c'])).toEqual(['a', 'c']);
    expect(map.peek('a')).toBe(3);
    expect(map.size).toBe(2);
  });

  it('get counts as use and peek does not', () => {
    // Prepare
    const byGet = new LruMap<string, number>(2);
    const byPeek = new LruMap<string, number>(2);
    for (const map of [byGet, byPeek]) {
      map.set('a', 1);
      map.set('b', 2);
    }

    // Act
    byGet.get('a');
    byPeek.peek('a');
    byGet.set('c', 3);
    byPeek.set('c', 3);

    // Assess
    expect(keys(byGet, ['a', 'b', 'c'])).toEqual(['a', 'c']);
    expect(keys(byPeek, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  it('a max of 0 keeps nothing, and a deleted key is gone', () => {
    // Prepare
    const none = new LruMap<string, number>(0);
    const some = new LruMap<string, number>(2);
    some.set('a', 1);

    // Act
    none.set('a', 1);
    some.delete('a');

    // Assess
    expect([none.size, none.get('a'), some.size, some.get('a')]).toEqual([0, undefined, 0, undefined]);
  });
});
