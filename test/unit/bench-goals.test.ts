import { describe, expect, it } from '@jest/globals';
import { type Goal, goalsSection } from '../../bench/goals.js';

const goal = (met: boolean, name = 'requests per hour ≤ 20'): Goal => ({ section: 'at-rest-load', goal: name, before: '276.0', after: met ? '17.8' : '21.0', met });

describe('the closing goals section', () => {
  it('is empty when no section recorded a goal (so a run without one adds nothing)', () => {
    expect(goalsSection([], 'npm run bench')).toBe('');
  });

  it.each([
    { goals: [goal(true)], count: 'Met: 1 of 1.', verdict: '| 17.8 | met |' },
    { goals: [goal(true), goal(false, 'peak ≤ 100')], count: 'Met: 1 of 2.', verdict: '| 21.0 | **not met** |' },
  ])('names the command, counts what is met and shows each verdict ($count)', ({ goals, count, verdict }) => {
    const text = goalsSection(goals, 'npm run bench -- --only at-rest-load');
    expect(text.split('\n')[0]).toBe('### Goals, this run');
    expect(text).toContain('(`npm run bench -- --only at-rest-load`)');
    expect(text).toContain(count);
    expect(text).toContain(verdict);
    expect(text.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| goal') && !l.startsWith('| ---'))).toHaveLength(goals.length);
  });
});
