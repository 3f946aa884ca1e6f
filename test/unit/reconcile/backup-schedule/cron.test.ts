import { describe, expect, it } from '@jest/globals';
import { Cron } from 'croner';

import { convertSchedule } from '../../../../lib/reconcile/backup-schedule/cron.js';
import { nextCronFireMs } from '../../../../lib/timer/eventbridge-cron.js';

const expressionOf = (schedule: string): string => {
  const c = convertSchedule(schedule);
  if (!c.ok) throw new Error(c.message);
  return c.expression;
};

describe('spec.schedule (robfig ParseStandard) → EventBridge Scheduler cron', () => {
  it.each([
    ['0 0 * * *', 'cron(0 0 * * ? *)'],
    ['*/15 * * * *', 'cron(0/15 * * * ? *)'],
    ['0 */3 * * *', 'cron(0 0/3 * * ? *)'],
    ['5/10 * * * *', 'cron(5/10 * * * ? *)'],
    ['30 2 * * 1-5', 'cron(30 2 ? * 2-6 *)'],
    ['0 0 * * SUN', 'cron(0 0 ? * 1 *)'],
    ['0 0 * * sat', 'cron(0 0 ? * 7 *)'],
    ['0 1,13 * * 0,6', 'cron(0 1,13 ? * 1,7 *)'],
    ['0 0 * * */2', 'cron(0 0 ? * 1,3,5,7 *)'],
    ['0 0 */2 * *', 'cron(0 0 1/2 * ? *)'],
    ['0 0 1 JAN *', 'cron(0 0 1 1 ? *)'],
    ['0 0 ? * ?', 'cron(0 0 * * ? *)'],
    ['15 4 1-5,20 * *', 'cron(15 4 1-5,20 * ? *)'],
    ['0 0 1-31 * 1-5', 'cron(0 0 * * ? *)'],
    ['@yearly', 'cron(0 0 1 1 ? *)'],
    ['@annually', 'cron(0 0 1 1 ? *)'],
    ['@monthly', 'cron(0 0 1 * ? *)'],
    ['@weekly', 'cron(0 0 ? * 1 *)'],
    ['@daily', 'cron(0 0 * * ? *)'],
    ['@midnight', 'cron(0 0 * * ? *)'],
    ['@hourly', 'cron(0 * * * ? *)'],
  ])('%s → %s', (schedule, expression) => {
    expect(convertSchedule(schedule)).toEqual({ ok: true, expression });
  });

  it.each(['0 0 * * *', '*/15 * * * *', '0 */3 * * *', '5/10 2 * * *', '30 2 * * 1-5', '0 0 * * */2', '0 0 */2 * *', '0 12 1 JAN,JUL *', '0 0 1-31 * 1-5'])(
    '%s fires on the same minutes as the five-field cron it came from, over 200 runs in Asia/Shanghai',
    (schedule) => {
      const expression = expressionOf(schedule);
      const reference = new Cron(schedule, { timezone: 'Asia/Shanghai', mode: '5-part', paused: true, sloppyRanges: true });
      let at = Date.UTC(2026, 0, 1);
      for (let i = 0; i < 200; i++) {
        const want = reference.nextRun(new Date(at))?.getTime();
        const got = nextCronFireMs(expression, 'Asia/Shanghai', at);
        expect(got).toBe(want);
        at = got ?? at;
      }
    },
  );

  it.each([
    ['#$#$#$@', 'Expected exactly 5 fields, found 1: #$#$#$@'],
    ['', 'Empty spec string'],
    ['@fortnightly', 'Unrecognized descriptor: @fortnightly'],
    ['0 0 * *', 'Expected exactly 5 fields, found 4: 0 0 * *'],
    ['0 0 0 * * *', 'Expected exactly 5 fields, found 6: 0 0 0 * * *'],
    ['60 * * * *', 'End of range (60) above maximum (59): 60'],
    ['* * * * 7', 'End of range (7) above maximum (6): 7'],
    ['* * 0 * *', 'Beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'Beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'Step of range should be a positive number: */0'],
    ['1/2/3 * * * *', 'Too many slashes: 1/2/3'],
    ['x * * * *', 'Failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['0 0 L * *', 'Failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'],
    ['0 0 * * 5#3', 'Failed to parse int from 5#3: strconv.Atoi: parsing "5#3": invalid syntax'],
  ])('S09: v1 refuses %j with robfig\'s words: %s', (schedule, message) => {
    expect(convertSchedule(schedule)).toEqual({ ok: false, field: 'spec.schedule', message, v1Refuses: true });
  });

  it.each([
    ['0 0 1,15 * MON', /day-of-month \(1,15\) and day-of-week \(MON\), which v1 runs on days that match either/],
    ['0 0 */2 * MON', /which v1 runs only on days that match both/],
    ['@every 1h', /@every repeats a fixed time after each run/],
  ])('what v1 runs but EventBridge cannot express is refused, naming spec.schedule: %s', (schedule, message) => {
    expect(convertSchedule(schedule)).toEqual({ ok: false, field: 'spec.schedule', message: expect.stringMatching(message), v1Refuses: false });
  });
});
