/**
 * The goals a run's sections measured, gathered so `npm run bench` can end with one table of every
 * goal beside its before, all from that one run. A section records each goal as it computes it
 * (`recordGoal`); bench/run.ts renders what was recorded (`goalsSection`) after the last section.
 */
import { table } from './stats.js';

/** One goal as a section measured it: what is asked, the before and after values, and the verdict. */
export type Goal = {
  /** The section's id (bench/run.ts), where the numbers and how they were taken are described. */
  readonly section: string;
  /** What is asked, with its bound, e.g. "API-server requests per cluster-hour at rest ≤ 20". */
  readonly goal: string;
  readonly before: string;
  readonly after: string;
  readonly met: boolean;
};

const recorded: Goal[] = [];

/** Records a goal measured in this run (see the module comment). */
export function recordGoal(goal: Goal): void {
  recorded.push(goal);
}

/** The goals recorded so far in this process, in the order the sections ran. */
export function recordedGoals(): readonly Goal[] {
  return recorded;
}

/**
 * The closing section: every recorded goal, before and after, and whether it is met; empty when no
 * section ran that records one. `command` is how the run was started.
 */
export function goalsSection(goals: readonly Goal[], command: string): string {
  if (goals.length === 0) return '';
  const met = goals.filter((g) => g.met).length;
  return [
    '### Goals, this run',
    '',
    `Every goal the sections above measured, from this one run (\`${command}\`); each row's section says how it was measured. Met: ${met} of ${goals.length}.`,
    '',
    table(['goal', 'before', 'after', 'met', 'section'], goals.map((g) => [g.goal, g.before, g.after, g.met ? 'met' : '**not met**', g.section])),
  ].join('\n');
}
