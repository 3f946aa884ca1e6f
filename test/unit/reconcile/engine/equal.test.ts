/**
 * `jsonEqual`: two values are equal when they serialise to the same JSON value, whatever the order
 * of their keys; a property set to `undefined` equals a missing one.
 */
import { describe, expect, it } from '@jest/globals';

import { jsonEqual } from '../../../../lib/reconcile/engine/equal.js';

describe('jsonEqual', () => {
  it.each<{ name: string; a: unknown; b: unknown }>([
    { name: 'the same scalars', a: 3, b: 3 },
    { name: 'objects with keys in another order', a: { x: 1, y: { z: [1, 'two'] } }, b: { y: { z: [1, 'two'] }, x: 1 } },
    { name: 'an undefined property and a missing one', a: { x: 1, gone: undefined }, b: { x: 1 } },
    { name: 'a missing property and an undefined one', a: { x: 1 }, b: { x: 1, gone: undefined } },
    { name: 'empty arrays and objects', a: { list: [], map: {} }, b: { map: {}, list: [] } },
    { name: 'an undefined property named like a prototype member and a missing one', a: { toString: undefined }, b: {} },
  ])('$name are equal', ({ a, b }) => {
    // Act
    const equal = jsonEqual(a, b);

    // Assess
    expect(equal).toBe(true);
  });

  it.each<{ name: string; a: unknown; b: unknown }>([
    { name: 'different scalars', a: 'a', b: 'b' },
    { name: 'a number and its text', a: 1, b: '1' },
    { name: 'null and an empty object', a: null, b: {} },
    { name: 'an array and an object', a: [], b: {} },
    { name: 'arrays in another order', a: [1, 2], b: [2, 1] },
    { name: 'arrays of different lengths', a: [1], b: [1, undefined] },
    { name: 'a missing property and a set one', a: { x: 1 }, b: { x: 1, y: 0 } },
    { name: 'a set property and a missing one', a: { x: 1, y: null }, b: { x: 1 } },
    { name: 'a nested difference', a: { s: { c: [{ t: 'Ready', v: 'True' }] } }, b: { s: { c: [{ t: 'Ready', v: 'False' }] } } },
    { name: 'a property named like a prototype member and a missing one', a: { constructor: 'x' }, b: {} },
    { name: 'a missing property and one named like a prototype member', a: {}, b: { constructor: 'x' } },
  ])('$name are not equal', ({ a, b }) => {
    // Act
    const forth = jsonEqual(a, b);
    const back = jsonEqual(b, a);

    // Assess
    expect([forth, back]).toEqual([false, false]);
  });
});
