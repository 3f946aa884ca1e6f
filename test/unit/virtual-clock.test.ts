import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the virtual clock fires timers in time order, ties in the order they were set', () => {
  it.each([
    { name: 'later timers set first still fire last', delays: [30, 10, 20], want: ['t1@10', 't2@20', 't0@30'] },
    { name: 'equal times fire in the order they were set', delays: [5, 5, 0, 5], want: ['t2@0', 't0@5', 't1@5', 't3@5'] },
    { name: 'a negative delay fires now', delays: [-10, 0], want: ['t0@0', 't1@0'] },
  ])('$name', async ({ delays, want }) => {
    // Prepare
    const clock = new VirtualClock(T0);
    const fired: string[] = [];
    delays.forEach((d, i) => clock.setTimer(() => fired.push(`t${i}@${clock.nowMs() - T0}`), d));

    // Act
    await clock.advance(100);

    // Assess
    expect(fired).toEqual(want);
  });

  it('a cleared timer never fires and no longer counts as the next one', async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    const fired: number[] = [];
    const first = clock.setTimer(() => fired.push(1), 10);
    clock.setTimer(() => fired.push(2), 20);

    // Act
    clock.clearTimer(first);

    // Assess
    expect(clock.nextTimerAtMs()).toBe(T0 + 20);
    await clock.advance(100);
    expect(fired).toEqual([2]);
    expect(clock.nextTimerAtMs()).toBeUndefined();
  });

  it('many cleared timers are dropped without changing which fire, or when', async () => {
    // Prepare: 5 000 timers, four in five cleared (enough to rebuild the queue several times)
    const clock = new VirtualClock(T0);
    const fired: number[] = [];
    const handles = Array.from({ length: 5000 }, (_, i) => clock.setTimer(() => fired.push(i), (i * 7919) % 1000));

    // Act
    handles.forEach((h, i) => i % 5 !== 0 && clock.clearTimer(h));
    await clock.advance(1000);

    // Assess
    const kept = Array.from({ length: 1000 }, (_, k) => k * 5).sort((a, b) => (a * 7919) % 1000 - (b * 7919) % 1000 || a - b);
    expect(fired).toEqual(kept);
  });

  it('a timer set by a firing timer for now fires in the same advance', async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    const fired: string[] = [];
    clock.setTimer(() => (fired.push('a'), clock.setTimer(() => fired.push('b'), 0)), 10);

    // Act
    await clock.advance(10);

    // Assess
    expect(fired).toEqual(['a', 'b']);
    expect(clock.nowMs()).toBe(T0 + 10);
  });
});
