/**
 * A BackupSchedule's `spec.schedule` as TiDB Operator v1 reads it — robfig/cron v1's `ParseStandard`
 * (five fields `minute hour day-of-month month day-of-week`, day-of-week 0–6 with SUN = 0, names, `*`,
 * `?`, ranges, lists, steps, and the descriptors `@yearly @annually @monthly @weekly @daily @midnight
 * @hourly @every`) — converted to the one EventBridge Scheduler expression that fires on exactly the
 * same minutes (`cron(minutes hours day-of-month month day-of-week year)`, day-of-week 1–7 with SUN = 1,
 * one of the day fields `?`). The value sets come from croner; this module checks v1's grammar and
 * bounds (so what v1 refuses is refused with v1's words) and what EventBridge cannot say:
 *   - robfig matches days by day-of-month AND day-of-week when either field starts with `*` or `?`,
 *     and by OR when both are restricted; EventBridge takes one of the two fields only, so a schedule
 *     restricting both (either way) is refused, naming `spec.schedule`;
 *   - `@every <duration>` repeats from the last run (robfig's constant delay), which no Scheduler
 *     expression does; it is refused too.
 */

import { CronPattern } from 'croner';

/** A parsed schedule: the EventBridge expression of its minutes, or why there is none. */
export type ScheduleConversion =
  | { readonly ok: true; readonly expression: string }
  | { readonly ok: false; readonly field: 'spec.schedule'; readonly message: string; readonly v1Refuses: boolean };

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** robfig's bounds per field (`parser.go`): minutes, hours, dom, month (names), dow (names). */
const BOUNDS: readonly { readonly min: number; readonly max: number; readonly names?: readonly string[] }[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

/**
 * `spec.schedule` → an EventBridge `cron(...)` expression. v1's refusals carry robfig's message
 * (`v1Refuses`); what v1 runs but EventBridge cannot express says why and `v1Refuses: false`.
 */
export function convertSchedule(schedule: string): ScheduleConversion {
  const spec = schedule.trim();
  if (spec === '') return refuse('Empty spec string', true);
  let standard = spec;
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      return refuse(`${spec}: @every repeats a fixed time after each run, which no EventBridge Scheduler expression does; write the schedule as a cron expression (e.g. "0 */6 * * *")`, false);
    }
    const expanded = DESCRIPTORS[spec];
    if (expanded === undefined) return refuse(`Unrecognized descriptor: ${spec}`, true);
    standard = expanded;
  }
  const fields = standard.split(/\s+/);
  if (fields.length !== 5) return refuse(`Expected exactly 5 fields, found ${fields.length}: ${spec}`, true);
  for (const [i, field] of fields.entries()) {
    const problem = robfigProblem(field, BOUNDS[i] ?? { min: 0, max: 0 });
    if (problem !== undefined) return refuse(problem, true);
  }
  let pattern: CronPattern;
  try {
    pattern = new CronPattern(fields.join(' '), undefined, { mode: '5-part', sloppyRanges: true });
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err), true);
  }
  return toEventBridge(fields, pattern, spec);
}

/** robfig's grammar and bounds for one field (`getRange`): `*`/`?`/N/N-M, then an optional positive `/step`. */
function robfigProblem(field: string, bounds: (typeof BOUNDS)[number]): string | undefined {
  for (const expr of field.split(',')) {
    const rangeAndStep = expr.split('/');
    if (rangeAndStep.length > 2) return `Too many slashes: ${expr}`;
    const [range = '', step] = rangeAndStep;
    const lowAndHigh = range.split('-');
    if (lowAndHigh.length > 2) return `Too many hyphens: ${expr}`;
    let start = bounds.min;
    let end = bounds.max;
    if (range !== '*' && range !== '?') {
      const values: number[] = [];
      for (const text of lowAndHigh) {
        const value = valueOf(text, bounds.names);
        if (value === undefined) return `Failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
        values.push(value);
      }
      start = values[0] ?? start;
      end = lowAndHigh.length === 2 ? (values[1] ?? end) : step !== undefined ? bounds.max : start;
    }
    if (step !== undefined) {
      const n = /^\d+$/.test(step) ? Number(step) : undefined;
      if (n === undefined) return `Failed to parse int from ${step}: strconv.Atoi: parsing ${JSON.stringify(step)}: invalid syntax`;
      if (n <= 0) return `Step of range should be a positive number: ${expr}`;
    }
    if (start < bounds.min) return `Beginning of range (${start}) below minimum (${bounds.min}): ${expr}`;
    if (end > bounds.max) return `End of range (${end}) above maximum (${bounds.max}): ${expr}`;
    if (start > end) return `Beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  }
  return undefined;
}

function valueOf(text: string, names: readonly string[] | undefined): number | undefined {
  const named = names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return names === MONTHS ? named + 1 : named;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Whether robfig sets the star bit for the field: some list entry starts with `*` or `?`. */
function isStar(field: string): boolean {
  return field.split(',').some((expr) => expr.startsWith('*') || expr.startsWith('?'));
}

function toEventBridge(fields: readonly string[], p: CronPattern, spec: string): ScheduleConversion {
  const [, , domField = '*', , dowField = '*'] = fields;
  const dom = indices(p.day).map((i) => i + 1);
  const dow = indices(p.dayOfWeek);
  const domAll = dom.length === 31;
  const dowAll = dow.length === 7;
  const and = isStar(domField) || isStar(dowField);
  let days: { dom: string; dow: string };
  if (domAll && dowAll) days = { dom: '*', dow: '?' };
  else if (and && dowAll) days = { dom: list(dom, 1, 31, true), dow: '?' };
  else if (and && domAll) days = { dom: '?', dow: list(dow.map((d) => d + 1), 1, 7, false) };
  else if (!and && (domAll || dowAll)) days = { dom: '*', dow: '?' };
  else {
    const how = and ? 'only on days that match both' : 'on days that match either';
    return refuse(`${spec}: restricts both day-of-month (${domField}) and day-of-week (${dowField}), which v1 runs ${how}; EventBridge Scheduler takes one of the two — set the other to *`, false);
  }
  const minutes = list(indices(p.minute), 0, 59, true);
  const hours = list(indices(p.hour), 0, 23, true);
  const months = list(indices(p.month).map((m) => m + 1), 1, 12, true);
  return { ok: true, expression: `cron(${minutes} ${hours} ${days.dom} ${months} ${days.dow} *)` };
}

/** The positions a croner field array sets. */
function indices(flags: readonly number[]): number[] {
  return flags.flatMap((flag, i) => (flag ? [i] : []));
}

/**
 * A value set as an EventBridge field: `*` when complete, `start/step` for a progression that runs to
 * the field's end (where the field takes `/`), else comma-separated values and `a-b` runs.
 */
function list(values: readonly number[], min: number, max: number, slash: boolean): string {
  if (values.length === max - min + 1) return '*';
  const [first = min, second] = values;
  if (slash && second !== undefined && values.length > 2) {
    const step = second - first;
    const progression = values.every((v, i) => v === first + i * step) && (values.at(-1) ?? 0) + step > max;
    if (progression) return `${first}/${step}`;
  }
  const parts: string[] = [];
  let i = 0;
  while (i < values.length) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === (values[j] ?? 0) + 1) j++;
    parts.push(j - i >= 2 ? `${values[i]}-${values[j]}` : values.slice(i, j + 1).join(','));
    i = j + 1;
  }
  return parts.join(',');
}

function refuse(message: string, v1Refuses: boolean): ScheduleConversion {
  return { ok: false, field: 'spec.schedule', message, v1Refuses };
}
