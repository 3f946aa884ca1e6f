/**
 * EventBridge Scheduler's recurring `cron(...)` expressions as Scheduler reads them, for the
 * clock-driven stand-in (`memory-scheduler.ts`): six fields `minutes hours day-of-month month
 * day-of-week year`, day-of-week 1–7 with SUN = 1, exactly one of day-of-month / day-of-week `?`, and
 * each field's own wildcards (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html#cron-based).
 * What Scheduler refuses (`ValidationException`) is a `TerminalError` here; the next fire time in the
 * schedule's time zone is croner's, run in Quartz weekday numbering (SUN = 1), as Scheduler counts.
 */

import { Cron } from 'croner';

import { TerminalError } from '../platform/errors.js';

/** The characters each field may hold besides digits and names, in Scheduler's order of fields. */
const FIELDS: readonly { readonly name: string; readonly allowed: RegExp }[] = [
  { name: 'minutes', allowed: /^[0-9,*/-]+$/ },
  { name: 'hours', allowed: /^[0-9,*/-]+$/ },
  { name: 'day-of-month', allowed: /^([0-9,*/?-]|L|W)+$/ },
  { name: 'month', allowed: /^([0-9,*/-]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)+$/i },
  { name: 'day-of-week', allowed: /^([0-9,*?#-]|L|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i },
  { name: 'year', allowed: /^[0-9,*/-]+$/ },
];

const CRON = /^cron\((.*)\)$/;

/** Whether `expression` is a recurring `cron(...)` expression (rather than `at(...)` or `rate(...)`). */
export function isCronExpression(expression: string): boolean {
  return CRON.test(expression);
}

/**
 * A validated `cron(...)` as a recurring job on croner's clock in `timezone`. Throws `TerminalError`
 * naming `ScheduleExpression` (or `ScheduleExpressionTimezone`) for what Scheduler would refuse.
 */
export function eventBridgeCron(expression: string, timezone: string): Cron {
  const fields = CRON.exec(expression)?.[1]?.trim().split(/\s+/) ?? [];
  const invalid = (why: string): TerminalError => new TerminalError(`Invalid Schedule Expression ${expression}: ${why}`, { field: 'ScheduleExpression' });
  if (fields.length !== 6) throw invalid(`a cron expression has 6 fields, got ${fields.length}`);
  fields.forEach((field, i) => {
    const spec = FIELDS[i];
    if (spec !== undefined && !spec.allowed.test(field)) throw invalid(`${spec.name} field ${field} holds characters Scheduler does not accept there`);
  });
  const [, , dom = '', , dow = ''] = fields;
  if ((dom === '?') === (dow === '?')) throw invalid('exactly one of day-of-month and day-of-week must be ?');
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new TerminalError(`Invalid ScheduleExpressionTimezone ${timezone}`, { field: 'ScheduleExpressionTimezone' });
  }
  try {
    return new Cron(`0 ${fields.join(' ')}`, { timezone, mode: '7-part', alternativeWeekdays: true, sloppyRanges: true, paused: true });
  } catch (err) {
    throw invalid(String(err instanceof Error ? err.message : err));
  }
}

/** The first fire time of `expression` in `timezone` strictly after `afterMs`, or undefined when it never fires again. */
export function nextCronFireMs(expression: string, timezone: string, afterMs: number): number | undefined {
  const next = eventBridgeCron(expression, timezone).nextRun(new Date(afterMs));
  return next === null ? undefined : next.getTime();
}
