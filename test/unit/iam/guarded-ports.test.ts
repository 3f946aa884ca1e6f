/**
 * The in-memory queue and scheduler as each function's role may use them: Scheduler checks the
 * schedule's ARN and, on create and update, `iam:PassRole` of the target's role to
 * `scheduler.amazonaws.com`; a due schedule delivers only as a role Scheduler may assume for its
 * group; an explicit Deny wins over any Allow, with AWS's message.
 */
import { describe, expect, it } from '@jest/globals';

import { AccessDeniedError, loadIamExtract } from '../../../lib/local/iam/authority.js';
import type { CfnStatement, IamExtract } from '../../../lib/local/iam/extract.js';
import { guardClusterDescriber, guardQueue, guardScheduler } from '../../../lib/local/iam/guarded-ports.js';
import { MemoryClusterDescriber } from '../../../lib/eks/cluster-access.js';
import { FunctionIdentities, localIam } from '../../../lib/local/iam/identities.js';
import { VirtualClock } from '../../../lib/platform/clock.js';
import { MemoryReconcileQueue } from '../../../lib/queue/memory.js';
import { MemoryScheduler } from '../../../lib/timer/memory-scheduler.js';
import type { ScheduleRequest } from '../../../lib/timer/port.js';

const TIMERS = 'tidb-reconciler-dev-timers';
const SCHEDULER_ROLE = 'arn:aws:iam::000000000000:role/tidb-reconciler-dev-us-east-1-timer-schedules';
const PRINCIPAL = (fn: string): string => `arn:aws:sts::000000000000:assumed-role/tidb-reconciler-dev-us-east-1-${fn}/tidb-reconciler-dev-${fn}`;

function request(over: { group?: string; roleArn?: string } = {}): ScheduleRequest {
  return {
    Name: 'tc-local-demo-basic-wake',
    GroupName: over.group ?? TIMERS,
    ScheduleExpression: 'at(2026-01-01T01:00:00)',
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: { Arn: 'arn:aws:sqs:us-east-1:000000000000:tidb-reconciler-reconcile', RoleArn: over.roleArn ?? SCHEDULER_ROLE, Input: JSON.stringify({ key: 'local/demo/basic', reason: 'timer:wake', enqueuedAtMs: 0 }) },
  };
}

function withStatement(extract: IamExtract, roleId: string, statement: CfnStatement): IamExtract {
  const role = extract.roles[roleId];
  if (role === undefined) throw new Error(`no role ${roleId}`);
  return { ...extract, roles: { ...extract.roles, [roleId]: { ...role, statements: [...role.statements, statement] } } };
}

function world(extract: IamExtract = loadIamExtract()) {
  const iam = localIam({ extract });
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const queue = new MemoryReconcileQueue({ clock });
  const ids = new FunctionIdentities(iam, 'http://127.0.0.1:9');
  const scheduler = new MemoryScheduler({ clock, queue, deliverTo: ids.deliverTo(queue), onError: (err) => errors.push(err) });
  const errors: unknown[] = [];
  return { iam, clock, queue, ids, scheduler, errors };
}

describe('guardScheduler', () => {
  it.each([
    { fn: 'reconcile', req: request(), refused: undefined },
    { fn: 'admin', req: request(), refused: undefined },
    { fn: 'reconcile', req: request({ group: 'default' }), refused: ['scheduler:CreateSchedule', `arn:aws:scheduler:us-east-1:000000000000:schedule/default/tc-local-demo-basic-wake`] },
    { fn: 'sweep', req: request(), refused: ['scheduler:CreateSchedule', `arn:aws:scheduler:us-east-1:000000000000:schedule/${TIMERS}/tc-local-demo-basic-wake`] },
    { fn: 'reconcile', req: request({ roleArn: 'arn:aws:iam::000000000000:role/tidb-reconciler-dev-us-east-1-rate-schedules' }), refused: ['iam:PassRole', 'arn:aws:iam::000000000000:role/tidb-reconciler-dev-us-east-1-rate-schedules'] },
  ])('$fn creating in group $req.GroupName with role $req.Target.RoleArn: refused $refused', async ({ fn, req, refused }) => {
    const w = world();
    const created = guardScheduler(w.scheduler, w.iam, w.iam.functionPrincipal(fn)).createSchedule(req);
    if (refused === undefined) {
      await expect(created).resolves.toBeUndefined();
      expect(w.scheduler.list()).toHaveLength(1);
    } else {
      const [action, resource] = refused;
      await expect(created).rejects.toEqual(new AccessDeniedError(`User: ${PRINCIPAL(fn)} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`));
      expect(w.scheduler.list()).toEqual([]);
    }
  });

  it.each([
    { fn: 'reconcile', group: TIMERS, refused: false },
    { fn: 'admin', group: TIMERS, refused: true },
    { fn: 'reconcile', group: 'default', refused: true },
  ])('GetSchedule (a BackupSchedule step reads its schedule): $fn in group $group, refused $refused', async ({ fn, group, refused }) => {
    const w = world();
    const read = guardScheduler(w.scheduler, w.iam, w.iam.functionPrincipal(fn)).getSchedule('bks-nightly', group);
    if (refused) await expect(read).rejects.toThrow(`is not authorized to perform: scheduler:GetSchedule on resource: arn:aws:scheduler:us-east-1:000000000000:schedule/${group}/bks-nightly`);
    else await expect(read).resolves.toBeUndefined();
  });

  it('PassRole is checked with the service the role is passed to', () => {
    const w = world();
    const reconcile = w.iam.functionPrincipal('reconcile');
    expect(() => w.iam.authorize(reconcile, 'iam:PassRole', [SCHEDULER_ROLE], { 'iam:PassedToService': 'lambda.amazonaws.com' })).toThrow(AccessDeniedError);
    expect(() => w.iam.authorize(reconcile, 'iam:PassRole', [SCHEDULER_ROLE], { 'iam:PassedToService': 'scheduler.amazonaws.com' })).not.toThrow();
  });
});

describe('a due schedule delivers as the role Scheduler assumes', () => {
  it('a timer schedule of the timer group is delivered to the queue as SchedulerRole', async () => {
    const w = world();
    await guardScheduler(w.scheduler, w.iam, w.iam.functionPrincipal('reconcile')).createSchedule(request());
    await w.clock.advance(3_600_000);
    expect(w.errors).toEqual([]);
    expect(await w.queue.receive(10, 0)).toHaveLength(1);
    expect([...(w.iam.used.get('scheduler.amazonaws.com:SchedulerRole') ?? [])]).toEqual(['sqs:SendMessage']);
  });

  it('a schedule of another group is not delivered: its trust refuses Scheduler', async () => {
    const w = world();
    await w.scheduler.createSchedule(request({ group: 'default' }));
    await w.clock.advance(3_600_000);
    expect(w.errors).toEqual([new AccessDeniedError(`scheduler.amazonaws.com is not authorized to perform: sts:AssumeRole on resource: ${SCHEDULER_ROLE}`)]);
    expect(await w.queue.receive(10, 0)).toEqual([]);
  });
});

describe('guardQueue', () => {
  it('an explicit Deny wins over the Allow, with AWS\'s message and SQS\'s error name', async () => {
    const w = world(withStatement(loadIamExtract(), 'TimerRole', { Effect: 'Deny', Action: 'sqs:Send*', Resource: '*' }));
    const queue = guardQueue(w.queue, w.iam, w.iam.functionPrincipal('timer'), w.ids.queueArn);
    const sent = queue.send([{ message: { key: 'local/demo/basic', reason: 'timer:wake', enqueuedAtMs: 0 } }]);
    await expect(sent).rejects.toMatchObject({
      name: 'AccessDenied',
      message: `User: ${PRINCIPAL('timer')} is not authorized to perform: sqs:SendMessage on resource: ${w.ids.queueArn} with an explicit deny in an identity-based policy`,
    });
    expect(await w.queue.receive(10, 0)).toEqual([]);
  });

  it.each([
    { fn: 'sweep', call: 'receive', action: 'sqs:ReceiveMessage' },
    { fn: 'exporter', call: 'changeVisibility', action: 'sqs:ChangeMessageVisibility' },
    { fn: 'admin', call: 'delete', action: 'sqs:DeleteMessage' },
  ] as const)('$fn may not $call ($action)', async ({ fn, call, action }) => {
    const w = world();
    const queue = guardQueue(w.queue, w.iam, w.iam.functionPrincipal(fn), w.ids.queueArn);
    const calls = { receive: () => queue.receive(1, 0), changeVisibility: () => queue.changeVisibility('h', 10), delete: () => queue.delete(['h']) };
    await expect(calls[call]()).rejects.toMatchObject({ name: 'AccessDenied', message: expect.stringContaining(`not authorized to perform: ${action}`) });
  });
});

describe('guardClusterDescriber', () => {
  const CLUSTER_ARN = (name: string, region = 'us-east-1'): string => `arn:aws:eks:${region}:000000000000:cluster/${name}`;
  const eks = (): MemoryClusterDescriber => {
    const world = new MemoryClusterDescriber();
    world.put('prod-a', 'us-east-1', { endpoint: 'https://prod-a.local', caData: 'Q0E=' });
    world.put('prod-b', 'us-east-1', { endpoint: 'https://prod-b.local', caData: 'Q0E=' });
    return world;
  };

  it('a role without eks:DescribeCluster (the single-cluster template\'s) is refused as EKS refuses it', async () => {
    const w = world();
    const describer = guardClusterDescriber(eks(), w.iam, w.iam.functionPrincipal('reconcile'));
    await expect(describer.describe('prod-a', 'us-east-1')).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: `User: ${PRINCIPAL('reconcile')} is not authorized to perform: eks:DescribeCluster on resource: ${CLUSTER_ARN('prod-a')} because no identity-based policy allows the eks:DescribeCluster action`,
    });
  });

  it('a grant on one cluster\'s ARN answers that cluster and refuses the others', async () => {
    const w = world(withStatement(loadIamExtract(), 'ReconcileRole', { Effect: 'Allow', Action: 'eks:DescribeCluster', Resource: CLUSTER_ARN('prod-a') }));
    const describer = guardClusterDescriber(eks(), w.iam, w.iam.functionPrincipal('reconcile'));
    await expect(describer.describe('prod-a', 'us-east-1')).resolves.toEqual({ endpoint: 'https://prod-a.local', caData: 'Q0E=' });
    await expect(describer.describe('prod-b', 'us-east-1')).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining(`eks:DescribeCluster on resource: ${CLUSTER_ARN('prod-b')}`) });
  });
});
