import { describe, expect, it } from '@jest/globals';
import { parseAdminArgs } from '../../lib/cli/admin-args.js';
import { formatRedrive } from '../../lib/cli/admin-redrive.js';
import { parseRedriveRequest } from '../../lib/platform/redrive-request.js';
import type { RedriveSuccess } from '../../lib/wiring/admin-redrive.js';

const URL = 'https://abc123.lambda-url.eu-west-1.on.aws/';

describe('admin redrive: what each command line sends', () => {
  it.each([
    { name: 'no flag starts a redrive', args: ['redrive'], request: { action: 'redrive', mode: 'start' }, wait: false },
    { name: '--dry-run only counts', args: ['redrive', '--dry-run'], request: { action: 'redrive', mode: 'dry-run' }, wait: false },
    { name: '--status lists the move tasks', args: ['redrive', '--status'], request: { action: 'redrive', mode: 'status' }, wait: false },
    { name: '--wait follows the task it starts', args: ['redrive', '--wait', '--url', URL], request: { action: 'redrive', mode: 'start' }, wait: true },
    { name: 'a rate for the move task', args: ['redrive', '--max-per-second', '20'], request: { action: 'redrive', mode: 'start', maxPerSecond: 20 }, wait: false },
    { name: '--dry-run by direct invoke (it only reads)', args: ['redrive', '--dry-run', '--function', 'f', '--region', 'r'], request: { action: 'redrive', mode: 'dry-run' }, wait: false },
  ])('$name', ({ args, request, wait }) => {
    // Act
    const parsed = parseAdminArgs(args, {});
    // Assess
    expect(parsed).toEqual({ ok: true, command: expect.objectContaining({ request, wait }) });
  });

  it.each([
    { name: 'a cluster', args: ['redrive', 'demo/basic'], field: 'arguments', error: /redrive takes no TidbCluster/ },
    { name: '-n', args: ['redrive', '-n', 'demo'], field: '--namespace', error: /not an option of redrive/ },
    { name: '--dry-run with --status', args: ['redrive', '--dry-run', '--status'], field: '--dry-run', error: /give one/ },
    { name: '--wait with --dry-run', args: ['redrive', '--dry-run', '--wait'], field: '--wait', error: /--wait follows a redrive it starts/ },
    { name: 'a rate of 0', args: ['redrive', '--max-per-second', '0'], field: '--max-per-second', error: /from 1 to 500, got 0/ },
    { name: 'a rate above SQS\'s 500', args: ['redrive', '--max-per-second', '501'], field: '--max-per-second', error: /from 1 to 500, got 501/ },
    { name: 'a rate that is not a number', args: ['redrive', '--max-per-second', 'fast'], field: '--max-per-second', error: /whole number from 1 to 500, got "fast"/ },
    { name: 'a rate with --status', args: ['redrive', '--status', '--max-per-second', '5'], field: '--max-per-second', error: /for starting a redrive only/ },
    { name: 'a start by direct invoke (no caller)', args: ['redrive', '--function', 'f', '--region', 'r'], field: '--function', error: /--dry-run and --status only/ },
    { name: 'a redrive flag on another action', args: ['status', 'demo/basic', '--dry-run'], field: '--dry-run', error: /--dry-run is for redrive only/ },
    { name: 'a misspelt action', args: ['redrvie'], field: 'action', error: /did you mean "redrive"/ },
  ])('refuses $name, naming the argument', ({ args, field, error }) => {
    // Act
    const parsed = parseAdminArgs(args, {});
    // Assess
    expect(parsed).toEqual({ ok: false, field, error: expect.stringMatching(error) });
  });
});

describe('the redrive request the admin function accepts', () => {
  it.each([
    { name: 'no mode', input: { action: 'redrive' }, field: 'mode' },
    { name: 'an unknown mode', input: { action: 'redrive', mode: 'all' }, field: 'mode' },
    { name: 'a cluster', input: { action: 'redrive', mode: 'start', cluster: { namespace: 'a', name: 'b' } }, field: 'cluster' },
    { name: 'a rate with dry-run', input: { action: 'redrive', mode: 'dry-run', maxPerSecond: 5 }, field: 'maxPerSecond' },
    { name: 'a fractional rate', input: { action: 'redrive', mode: 'start', maxPerSecond: 1.5 }, field: 'maxPerSecond' },
    { name: 'a rate as text', input: { action: 'redrive', mode: 'start', maxPerSecond: '5' }, field: 'maxPerSecond' },
  ])('refuses $name, naming $field', ({ input, field }) => {
    const parsed = parseRedriveRequest(input);
    expect(parsed).toEqual({ ok: false, error: expect.objectContaining({ field }) });
  });
});

describe('a redrive answer as text', () => {
  const base: RedriveSuccess = { ok: true, action: 'redrive', mode: 'start', source: 'arn:aws:sqs:r:1:q-dlq', destination: 'arn:aws:sqs:r:1:q', waiting: 3, inFlight: 1, tasks: [] };
  const task = { status: 'RUNNING' as const, approximateMoved: 1, approximateToMove: 3, startedAtMs: Date.UTC(2026, 10, 28, 15, 0, 0), sourceArn: base.source };

  it.each([
    { name: 'a dry run says how many wait and that nothing moved', answer: { ...base, mode: 'dry-run' as const }, lines: ['waiting: 3 messages (1 in flight), as SQS approximates', 'dry run: a redrive would move 3 messages back to the reconcile queue; nothing was moved', 'move tasks: none'] },
    { name: 'a start shows the task with SQS\'s counts', answer: { ...base, started: true, tasks: [task] }, lines: ['redrive started: moved 1 of 3', '  2026-11-28 15:00:00Z  RUNNING    moved 1 of 3'] },
    { name: 'a failed task shows its reason', answer: { ...base, mode: 'status' as const, tasks: [{ ...task, status: 'FAILED' as const, failureReason: 'AWS.SimpleQueueService.NonExistentQueue' }] }, lines: ['  2026-11-28 15:00:00Z  FAILED     moved 1 of 3  failure: AWS.SimpleQueueService.NonExistentQueue'] },
    { name: 'a task SQS has not counted yet', answer: { ...base, started: true, tasks: [{ ...task, approximateToMove: undefined }] }, lines: ['redrive started: moved 1 of ?'] },
  ])('$name', ({ answer, lines }) => {
    const text = formatRedrive(answer).split('\n');
    expect(text).toEqual(expect.arrayContaining(lines));
  });
});
