/**
 * IAM in the local world: every function runs as its own role of the packaged template
 * (infra/iam/roles.json), and the local ends refuse what the role does not allow, as AWS does.
 * One simulated run drives every function's real paths (reconcile, sweep, admin, exporter through
 * a scenario; the timer function and long wake-ups directly), and Scheduler's own use of the two
 * roles it assumes, and shows that nothing is refused and that each role grants only what was used. With `dynamodb:BatchGetItem` taken from the
 * sweep's role, the sweep fails with DynamoDB's AccessDeniedException and AWS's message, and so
 * does the scenario.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';

import { createTimerHandler } from '../../functions/timer.js';
import { type LocalIam, loadIamExtract } from '../../lib/local/iam/authority.js';
import type { IamExtract } from '../../lib/local/iam/extract.js';
import { localIam } from '../../lib/local/iam/identities.js';
import { parseScenario } from '../../lib/local/scenario/file.js';
import { createProgress } from '../../lib/local/scenario/progress.js';
import type { ScenarioReport } from '../../lib/local/scenario/report.js';
import type { Scenario } from '../../lib/local/scenario/types.js';
import { SimStack, simulatedContext } from '../../lib/local/sim-stack.js';
import { runScenario } from '../../lib/local/simulate.js';
import { silentLogger } from '../../lib/platform/logger.js';
import { silentMetrics } from '../../lib/platform/metrics.js';

const DIR = join(import.meta.dirname, '..', 'scenarios');

/**
 * What the Lambda service, not the function's code, does as a function's role: the runtime writes
 * the function's logs (every function), and the SQS event source mapping reads the queue's
 * attributes (reconcile; the local poller does not).
 */
const SERVICE_USE: Readonly<Record<string, readonly string[]>> = {
  reconcile: ['logs:CreateLogStream', 'logs:PutLogEvents', 'sqs:GetQueueAttributes'],
  sweep: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  timer: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  admin: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  exporter: ['logs:CreateLogStream', 'logs:PutLogEvents'],
};

/**
 * Grants used only under a feature gate this drive leaves off: the VolumeModifying gate's EC2 calls
 * (docs/adr/0031), which test/scenarios/volume-modify-ec2.yaml makes as the reconcile role — that
 * story fails (invariant `iam-allows-every-call`) when the role lacks them.
 */
const GATED_USE: Readonly<Record<string, readonly string[]>> = {
  reconcile: ['ec2:ModifyVolume', 'ec2:DescribeVolumesModifications'],
};

/**
 * What the timeline gains so that a BackupSchedule is stepped too: its step reads its EventBridge
 * schedule (GetSchedule) and creates it; its deletion deletes the schedule.
 */
const BACKUP_SCHEDULE_STEPS = `
  - apply: {apiVersion: pingcap.com/v1alpha1, kind: BackupSchedule, metadata: {name: iam-nightly}, spec: {schedule: "0 3 * * *", backupTemplate: {backupType: full, cleanPolicy: Retain, br: {cluster: basic}, s3: {provider: aws, region: us-west-2, bucket: backups, prefix: iam}}}}
  - waitFor: {object: BackupSchedule/iam-nightly, jsonpath: "$.metadata.finalizers[0]", equals: tidb.pingcap.com/backup-schedule-protection}
    timeout: 2m
  - deleteObject: {kind: BackupSchedule, name: iam-nightly}
  - waitFor: {object: BackupSchedule/iam-nightly, jsonpath: $.metadata.name, equals: null}
    timeout: 2m
`;

function scenario(file: string, extraTimeline = ''): Scenario {
  const parsed = parseScenario(readFileSync(join(DIR, file), 'utf8').trimEnd() + '\n' + extraTimeline, file);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.scenario;
}

/** The extract with `action` taken out of every statement of role `roleId`. */
function withoutAction(extract: IamExtract, roleId: string, action: string): IamExtract {
  const role = extract.roles[roleId];
  if (role === undefined) throw new Error(`no role ${roleId}`);
  const statements = role.statements.map((s) => (Array.isArray(s['Action']) ? { ...s, Action: (s['Action'] as string[]).filter((a) => a !== action) } : s));
  return { ...extract, roles: { ...extract.roles, [roleId]: { ...role, statements } } };
}

/** The extract with `action` added to role `roleId` (on the state table). */
function withExtraGrant(extract: IamExtract, roleId: string, action: string): IamExtract {
  const role = extract.roles[roleId];
  if (role === undefined) throw new Error(`no role ${roleId}`);
  const statements = [...role.statements, { Effect: 'Allow', Action: [action], Resource: { 'Fn::GetAtt': ['StateTable', 'Arn'] } }];
  return { ...extract, roles: { ...extract.roles, [roleId]: { ...role, statements } } };
}

/** `err` and its causes, outermost first. */
function causes(err: unknown): Error[] {
  const chain: Error[] = [];
  for (let e = err; e instanceof Error; e = e.cause) chain.push(e);
  return chain;
}

/** A second TidbCluster with no state yet, so the next sweep enqueues it. */
function addCluster(stack: SimStack, name: string): void {
  stack.world.store.create('TidbCluster', {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'TidbCluster',
    metadata: { name, namespace: 'demo' },
    spec: { version: 'v8.5.0', discovery: {}, pd: { baseImage: 'pingcap/pd', replicas: 1, requests: { storage: '1Gi' } } },
  });
}

/** Every function's real paths, driven once on one enforcing stack. */
async function driveEveryFunction(stack: SimStack): Promise<ScenarioReport> {
  // reconcile (and its event source mapping), admin (status, pause, history, resume), exporter.
  const report = await runScenario(stack, createProgress({ quiet: true }));
  // admin: a caller with no access entry of its role's name — the admin function also lists the
  // entries (a role with a path is found by name), finds none, and refuses.
  const refused = (await stack.invokeAdmin({ action: 'pause', cluster: { namespace: 'demo', name: 'basic' } }, 'arn:aws:iam::000000000000:role/nobody')) as { ok: boolean; error?: string };
  if (refused.ok || !/access entry/i.test(refused.error ?? '')) throw new Error(`an admin caller with no access entry was not refused for it: ${JSON.stringify(refused)}`);
  // sweep: a cluster with no state is enqueued.
  addCluster(stack, 'second');
  await stack.invokeSweep();
  // timer: a wake-up invoked by a target that can only invoke a function.
  const timerRuntime = { k8sCluster: stack.runtime.k8sCluster, clock: stack.clock, logger: silentLogger, metrics: silentMetrics, queue: stack.dynamo.identities.queue('timer', stack.queue) };
  await createTimerHandler({ runtime: () => timerRuntime })({ key: `${stack.runtime.k8sCluster}/demo/basic`, kind: 'wake' }, simulatedContext('timer-1') as Context);
  // Long wake-ups (past SQS's 15-minute delay): what a reconcile or admin step's commit arms and a
  // forgotten key's step cancels — create, re-arm (update), cancel — as each function's role.
  for (const fn of ['reconcile', 'admin'] as const) {
    const { timers, clock } = stack.runtimes[fn];
    const key = `${stack.runtime.k8sCluster}/demo/basic`;
    await timers.wakeAt(key, `iam-${fn}`, clock.nowMs() + 3_600_000, clock.nowMs());
    await timers.wakeAt(key, `iam-${fn}`, clock.nowMs() + 1_800_000, clock.nowMs());
    await timers.cancel(key, `iam-${fn}`);
  }
  // A timer schedule fires: Scheduler assumes the timer role and sends to the queue as it.
  const { timers, clock } = stack.runtimes.reconcile;
  await timers.wakeAt(`${stack.runtime.k8sCluster}/demo/basic`, 'iam-fire', clock.nowMs() + 16 * 60_000, clock.nowMs());
  await stack.clock.advance(17 * 60_000);
  // admin redrive: a message received five times and never deleted (370 s visibility each) goes to
  // the dead-letter queue; the admin function counts it, moves it back and lists the task.
  await stack.queue.send([{ message: { key: 'not a key', reason: 'iam-test', enqueuedAtMs: stack.clock.nowMs() } }]);
  for (let i = 0; i < 10 && stack.queue.stats().deadLetters === 0; i++) {
    await stack.queue.receive(10, 0);
    await stack.clock.advance(371_000);
  }
  for (const mode of ['dry-run', 'start', 'status'] as const) {
    const answer = (await stack.invokeAdmin({ action: 'redrive', mode })) as { ok: boolean; started?: boolean };
    if (!answer.ok || (mode === 'start' && answer.started !== true)) throw new Error(`admin redrive ${mode} did not do its work: ${JSON.stringify(answer)}`);
  }
  return report;
}

describe('each function as its own role', () => {
  let stack: SimStack;
  let report: ScenarioReport;

  beforeAll(async () => {
    stack = await SimStack.start(scenario('pd-admin-answers.yaml', BACKUP_SCHEDULE_STEPS), 1);
    report = await driveEveryFunction(stack);
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('the scenario passes and IAM refuses no call of any function', () => {
    expect(stack.iam.denials).toEqual([]);
    expect(report.invariants.find((i) => i.name === 'iam-allows-every-call')).toEqual({ name: 'iam-allows-every-call', violations: [] });
    expect(report.passed).toBe(true);
  });

  it.each(['reconcile', 'sweep', 'timer', 'admin', 'exporter'].map((fn) => ({ fn })))('$fn used every action its role grants', ({ fn }) => {
    expect(stack.iam.used.get(fn)?.size ?? 0).toBeGreaterThan(0);
    expect({ fn, unused: stack.iam.unusedGrants(fn, [...(SERVICE_USE[fn] ?? []), ...(GATED_USE[fn] ?? [])]) }).toEqual({ fn, unused: [] });
  });

  it('the sweep and the timer function use nothing but their own few actions', () => {
    // GetItem: the exporter's watched-until mark (docs/adr/0024).
    expect([...(stack.iam.used.get('sweep') ?? [])].sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'sqs:SendMessage']);
    expect([...(stack.iam.used.get('timer') ?? [])]).toEqual(['sqs:SendMessage']);
  });

  it.each([
    { role: 'SchedulerRole', did: 'delivered a timer schedule', action: 'sqs:SendMessage' },
    { role: 'RateScheduleRole', did: 'invoked the sweep on its rate', action: 'lambda:InvokeFunction' },
  ])('Scheduler $did as $role, which grants nothing else', ({ role, action }) => {
    expect([...(stack.iam.used.get(`scheduler.amazonaws.com:${role}`) ?? [])]).toEqual([action]);
    expect(stack.iam.grantedActions(role)).toEqual([action]);
  });

  it('a grant its function never uses is reported by name', () => {
    const iam: LocalIam = localIam({ extract: withExtraGrant(loadIamExtract(), 'SweepRole', 'dynamodb:DeleteItem') });
    const sweep = iam.functionPrincipal('sweep');
    iam.authorize(sweep, 'dynamodb:BatchGetItem', [iam.resolver.arnOf('StateTable')]);
    iam.authorize(sweep, 'dynamodb:GetItem', [iam.resolver.arnOf('StateTable')]);
    iam.authorize(sweep, 'sqs:SendMessage', [iam.resolver.arnOf('ReconcileQueue')]);
    expect(iam.unusedGrants('sweep', SERVICE_USE['sweep'])).toEqual(['dynamodb:DeleteItem']);
  });
});

describe('the sweep without dynamodb:BatchGetItem', () => {
  const expectedMessage =
    'User: arn:aws:sts::000000000000:assumed-role/tidb-reconciler-dev-us-east-1-sweep/tidb-reconciler-dev-sweep is not authorized to perform: ' +
    'dynamodb:BatchGetItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/tidb-reconciler-state ' +
    'because no identity-based policy allows the dynamodb:BatchGetItem action';
  const crippled = (): LocalIam => localIam({ extract: withoutAction(loadIamExtract(), 'SweepRole', 'dynamodb:BatchGetItem') });

  it("fails with DynamoDB's AccessDeniedException and AWS's message", async () => {
    const stack = await SimStack.start(scenario('pd-admin-answers.yaml'), 1, { iam: crippled() });
    try {
      stack.world.store.create('Namespace', { metadata: { name: 'demo' } });
      addCluster(stack, 'basic');
      const failure = await stack.invokeSweep().then(
        () => undefined,
        (err: unknown) => err as Error,
      );
      expect(failure?.message).toContain(`AccessDeniedException: ${expectedMessage}`);
      // The SDK's own error, at the root of the typed errors the state adapter wraps it in.
      const sdkError = causes(failure).find((e) => e.name === 'AccessDeniedException') as (Error & { $metadata?: { httpStatusCode?: number } }) | undefined;
      expect(sdkError?.message).toBe(expectedMessage);
      expect(sdkError?.$metadata?.httpStatusCode).toBe(400);
      expect(stack.iam.denials.map((d) => [d.principal, d.action])).toEqual([['sweep', 'dynamodb:BatchGetItem']]);
    } finally {
      await stack.stop();
    }
  }, 120_000);

  it('fails the scenario that sweeps, naming the refused call', async () => {
    const stack = await SimStack.start(scenario('pd-sweep-under-api-errors.yaml'), 1, { iam: crippled() });
    try {
      const run = await runScenario(stack, createProgress({ quiet: true }));
      expect(run.passed).toBe(false);
      const violations = run.invariants.find((i) => i.name === 'iam-allows-every-call')?.violations ?? [];
      expect(violations.length).toBeGreaterThan(0);
      expect(violations[0]?.message).toBe(`sweep: ${expectedMessage}`);
    } finally {
      await stack.stop();
    }
  }, 300_000);
});
