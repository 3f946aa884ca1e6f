/**
 * The real Lambda handlers (reconcile, admin, sweep, timer), invoked directly with hand-built events
 * and a Lambda context, against the simulated TiDB world over HTTP, the state table in dynalite and
 * the in-process queue, all on one virtual clock. Only the runtime differs from Lambda: it is built by
 * `localRuntime` and passed to each handler's factory, one per function, each signed as its own role
 * of the packaged template, which the local ends enforce (lib/local/iam/). The test's own set-up
 * and reads go through `inspector`, as the deployer.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

import { createAdminHandler } from '../../functions/admin.js';
import { createReconcileHandler } from '../../functions/reconcile.js';
import { createSweepHandler } from '../../functions/sweep.js';
import { createTimerHandler } from '../../functions/timer.js';
import { DEFAULT_API_BUDGET, DEFAULT_SWEEP_SPREAD_SECONDS, parseConfig } from '../../lib/platform/config.js';
import { MemoryLogger } from '../../lib/platform/logger.js';
import { METRIC, MemoryMetrics } from '../../lib/platform/metrics.js';
import { MemoryReconcileQueue } from '../../lib/queue/memory.js';
import type { OutgoingMessage } from '../../lib/queue/port.js';
import { tidbClusterObject } from '../../lib/sim/tidb/manifests.js';
import { MemoryAccessEntries } from '../../lib/eks/port.js';
import { LOCAL_ACCOUNT_ID, LOCAL_OPERATOR, operatorAccessEntry, operatorRbacObjects, sessionArnOf } from '../../lib/local/admin-identity.js';
import { functionUrlEvent, urlResponseOf } from '../../lib/local/function-url.js';
import { FORCE_UPGRADE_ANNOTATION, type AdminResult } from '../../lib/wiring/admin.js';
import { localRuntime, type Runtime } from '../../lib/wiring/ports.js';
import { applyRbacFile, functionKubeconfig } from '../../lib/local/function-rbac.js';
import { SimComponentNetwork } from '../../lib/local/sim-network.js';
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../lib/local/dynalite.js';
import { DynamoStateStore } from '../../lib/state/dynamo.js';
import { MemoryScheduler } from '../../lib/timer/memory-scheduler.js';
import { handCluster, startWorld, waitForHealthyPd, waitForUpStores, type World } from './tidb-harness.js';

const TABLE = 'tidb-reconciler-functions';
// The Ready condition's reasons for a cluster that is not fully up (TiDB Operator's, in order).
const K8S = 'sim';

let w: World;
let dynamo: EmbeddedDynamo;
let inspector: DynamoStateStore;
let logger: MemoryLogger;
let metrics: MemoryMetrics;
let queue: MemoryReconcileQueue;
let runtime: Runtime;
let adminRuntime: Runtime;
let requests = 0;

/** A Lambda context with `remainingMs` left; every invocation gets its own request id. */
function lambdaContext(remainingMs = 30_000): Context {
  const id = `req-${++requests}`;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'tidb-reconciler-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:tidb-reconciler-test',
    memoryLimitInMB: '512',
    awsRequestId: id,
    logGroupName: '/aws/lambda/tidb-reconciler-test',
    logStreamName: id,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function sqsRecord(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(w.clock.nowMs()), SenderId: 'AIDAEXAMPLE', ApproximateFirstReceiveTimestamp: String(w.clock.nowMs()) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:tidb-reconciler-test-reconcile',
    awsRegion: 'us-east-1',
  };
}

const message = (name: string, reason = 'watch') => JSON.stringify({ key: `${K8S}/demo/${name}`, reason, enqueuedAtMs: w.clock.nowMs() });

/** A TidbCluster with no pods behind it (PD unreachable), named `name`. */
async function bareCluster(name: string): Promise<void> {
  await w.create('TidbCluster', tidbClusterObject(handCluster({}, { name })));
}

/** Kubernetes requests other than GET the API server has served so far. */
function kubeWrites(): number {
  return [...w.world.server.requestCounts].filter(([method]) => method !== 'GET').reduce((n, [, count]) => n + count, 0);
}

/** Receives every visible message of `q` and returns the bodies. */
async function drain(q: MemoryReconcileQueue): Promise<{ key: string; reason: string }[]> {
  const bodies: { key: string; reason: string }[] = [];
  for (;;) {
    const batch = await q.receive(10, 0);
    if (batch.length === 0) return bodies;
    bodies.push(...batch.map((r) => JSON.parse(r.body) as { key: string; reason: string }));
    await q.delete(batch.map((r) => r.receiptHandle));
  }
}

/** Function `fn`'s runtime on queue `q`: its own DynamoDB client, queue and scheduler views, as its role. */
function newRuntime(q: MemoryReconcileQueue, fn: 'reconcile' | 'admin' | 'sweep' | 'timer', budgeted = false): Runtime {
  const ids = dynamo.identities;
  const scheduler = ids.scheduler(fn, new MemoryScheduler({ clock: w.clock, queue: q, deliverTo: ids.deliverTo(q) }));
  // In the cluster's VPC, reaching the components directly (the default, docs/adr/0018).
  const componentAccess = { mode: 'direct' as const, network: new SimComponentNetwork(w.world.proxy, { inVpc: true }) };
  // These stories step many times at one virtual instant: the API budget (docs/adr/0028) would defer
  // all but the first two, so it is off but where a test turns it on.
  const config = parseConfig(budgeted ? {} : { API_BUDGET_REQUESTS_PER_SECOND: '0' });
  return localRuntime({ kubeConfig: functionKubeconfig(w.world, ids, fn), dynamo: ids.dynamo(fn), tableName: TABLE, queue: ids.queue(fn, q), clock: w.clock, k8sCluster: K8S, logger, metrics, scheduler, timerTarget: ids.timerTarget, componentAccess, config });
}

const reconcile = () => createReconcileHandler({ runtime: () => runtime });
const OPERATOR = sessionArnOf(LOCAL_OPERATOR.roleArn, 'functions-test');
const accessEntries = new MemoryAccessEntries([operatorAccessEntry(LOCAL_OPERATOR)]);
/** The admin handler behind its function URL, called by the operator (admin of every namespace); answers the body. */
const admin = () => {
  const handler = createAdminHandler({ runtime: () => adminRuntime, accessEntries: () => dynamo.identities.accessEntries('admin', accessEntries) });
  return async (payload: unknown, context: Context): Promise<AdminResult> =>
    JSON.parse(urlResponseOf(await handler(functionUrlEvent(JSON.stringify(payload), { arn: OPERATOR, accountId: LOCAL_ACCOUNT_ID }), context)).body) as AdminResult;
};

beforeAll(async () => {
  // The world enforces infra/'s RBAC, applied from the file; each function has its own token (ADR 0017).
  w = await startWorld({ rbac: true });
  applyRbacFile(w.world);
  dynamo = await startEmbeddedDynamo(TABLE);
  inspector = new DynamoStateStore(dynamo.client, { tableName: TABLE });
  logger = new MemoryLogger();
  metrics = new MemoryMetrics();
  queue = new MemoryReconcileQueue({ clock: w.clock });
  runtime = newRuntime(queue, 'reconcile');
  adminRuntime = newRuntime(queue, 'admin');
  for (const object of operatorRbacObjects(LOCAL_OPERATOR)) w.world.store.create(String(object.kind), structuredClone(object));
  await w.deploy(handCluster(), ['tidbcluster', 'discovery', 'pd', 'tikv', 'tidb']);
  await waitForHealthyPd(w, 3);
  await waitForUpStores(w, 3);
}, 120_000);

afterAll(async () => {
  await w.stop();
  await dynamo.close();
});

describe('reconcile handler', () => {
  it('a reconcile message for an existing TidbCluster runs one step and writes its status: Ready, as the running PD, TiKV and TiDB are', async () => {
    // Act
    const response = await reconcile()({ Records: [sqsRecord('m1', message('basic'))] } satisfies SQSEvent, lambdaContext());

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    const tc = (await w.object('TidbCluster', 'basic')).json;
    expect(tc.status.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Ready' })]);
    const history = await inspector.listHistory(`${K8S}/demo/basic`, 10);
    expect(history).toHaveLength(1);
    expect(history[0]).toEqual(expect.objectContaining({ trigger: 'watch', actions: expect.arrayContaining(['updateStatus TidbCluster demo/basic: ok']) }));
  });

  it('a step on a healthy, unchanged cluster writes nothing to Kubernetes', async () => {
    // Prepare: step until a step changes nothing (no history record), so the cluster is converged.
    const key = `${K8S}/demo/basic`;
    for (let i = 0; i < 5; i++) {
      const before = (await inspector.listHistory(key, 100)).length;
      await reconcile()({ Records: [sqsRecord(`converge-${i}`, message('basic'))] }, lambdaContext());
      if ((await inspector.listHistory(key, 100)).length === before) break;
    }
    const before = kubeWrites();

    // Act
    const response = await reconcile()({ Records: [sqsRecord('steady', message('basic'))] }, lambdaContext());

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(kubeWrites() - before).toBe(0);
  });

  it("a step over its EKS cluster's API budget is deferred, as the reconcile role: its trigger is sent again to start at the reservation (docs/adr/0028)", async () => {
    // Prepare: a budgeted runtime whose EKS cluster owes 100 requests (twice the burst) now; what it sends is kept.
    const q = new MemoryReconcileQueue({ clock: w.clock });
    const base = newRuntime(q, 'reconcile', true);
    const sent: OutgoingMessage[] = [];
    const budgeted: Runtime = { ...base, queue: { ...base.queue, send: async (m) => void sent.push(...m) } };
    const nowMs = w.clock.nowMs();
    await budgeted.apiBudget?.reserve(K8S, 100, nowMs, DEFAULT_API_BUDGET);
    const handler = createReconcileHandler({ runtime: () => budgeted });
    // Act
    const response = await handler({ Records: [sqsRecord('over-budget', message('basic'))] }, lambdaContext());
    // Assess: acknowledged, and the trigger sent again, delayed to its reservation 1.5 s on.
    expect(response).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([{ message: expect.objectContaining({ key: `${K8S}/demo/basic`, reason: 'watch', budgetAtMs: nowMs + 1_500 }), delaySeconds: 2 }]);
  });

  it('a malformed message is a batch item failure (left for the DLQ), logged with its field and counted; the rest of the batch runs', async () => {
    // Prepare
    await bareCluster('malformed-neighbour');
    const before = metrics.total(METRIC.malformedMessages);
    const records = [sqsRecord('bad', '{"key":"demo/basic"}'), sqsRecord('good', message('malformed-neighbour'))];

    // Act
    const response = await reconcile()({ Records: records }, lambdaContext());

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(metrics.total(METRIC.malformedMessages) - before).toBe(1);
    const line = logger.lines.find((l) => l.level === 'error' && l.fields['messageId'] === 'bad');
    expect(line?.fields).toEqual(expect.objectContaining({ field: 'key', receiveCount: '1' }));
    expect((await w.object('TidbCluster', 'malformed-neighbour')).json.status.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'False' })]);
  });
});

describe('admin handler', () => {
  it('force-upgrade of PD sets the annotation and runs a step at once', async () => {
    // Prepare
    await bareCluster('forced');

    // Act
    const result = await admin()({ action: 'force-upgrade', cluster: { namespace: 'demo', name: 'forced' }, component: 'pd' }, lambdaContext());

    // Assess
    expect(result).toEqual(expect.objectContaining({ ok: true, action: 'force-upgrade', key: `${K8S}/demo/forced`, changed: true }));
    expect(result.ok && result.step).toEqual(expect.objectContaining({ disposition: 'stepped', statusWritten: true }));
    const tc = (await w.object('TidbCluster', 'forced')).json;
    expect(tc.metadata.annotations[FORCE_UPGRADE_ANNOTATION]).toBe('true');
    // The PdForceUpgrade rule removes the annotation itself; the answer must not ask the user to.
    expect(result.ok && result.message).toContain('removed automatically (Normal event ForceUpgradeAnnotationRemoved)');
    expect(result.ok && result.message).not.toMatch(/remove it/);
    // Who asked: a Normal Event on the TidbCluster (`kubectl describe tc`) and the step's history record.
    const events = w.world.store.list('Event', 'demo').filter((e) => (e as { reason?: string }).reason === 'AdminForceUpgrade');
    expect(events.map((e) => [(e as { involvedObject?: { name?: string } }).involvedObject?.name, (e as { type?: string }).type, (e as { message?: string }).message])).toEqual([
      ['forced', 'Normal', `force-upgrade of pd requested by ${OPERATOR} (Kubernetes user "${OPERATOR}")`],
    ]);
    expect((await inspector.listHistory(`${K8S}/demo/forced`, 1))[0]?.requestedBy).toEqual({ arn: OPERATOR, username: OPERATOR });
  });

  it.each([
    { name: 'force-upgrade of a component other than PD is refused: TiDB Operator v1 force-upgrades PD only', payload: { action: 'force-upgrade', cluster: { namespace: 'demo', name: 'basic' }, component: 'tikv' }, field: 'component' },
    { name: 'an unknown action is answered with an error naming action', payload: { action: 'restart', cluster: { namespace: 'demo', name: 'basic' } }, field: 'action' },
    { name: 'a cluster that does not exist is answered with an error naming cluster', payload: { action: 'pause', cluster: { namespace: 'demo', name: 'nowhere' } }, field: 'cluster' },
  ])('$name', async ({ payload, field }) => {
    // Act
    const result = await admin()(payload, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.any(String), field });
  });

  it('pause sets spec.paused and the step keeps status only; resume clears it', async () => {
    // Prepare
    await bareCluster('pausable');
    const cluster = { namespace: 'demo', name: 'pausable' };

    // Act
    const paused = await admin()({ action: 'pause', cluster }, lambdaContext());
    const pausedSpec = (await w.object('TidbCluster', 'pausable')).json.spec.paused;
    const resumed = await admin()({ action: 'resume', cluster }, lambdaContext());

    // Assess
    expect(pausedSpec).toBe(true);
    expect(paused.ok && paused.step).toEqual(expect.objectContaining({ disposition: 'stepped', outcome: 'wait', detail: expect.stringContaining('paused') }));
    expect((await w.object('TidbCluster', 'pausable')).json.spec.paused).toBe(false);
    expect(resumed.ok && resumed.step).toEqual(expect.objectContaining({ disposition: 'stepped', outcome: expect.not.stringMatching(/wait|fail/) }));
  });

  it('reconcile while another step holds the lease marks the key dirty and says so', async () => {
    // Prepare
    await bareCluster('contended');
    const key = `${K8S}/demo/contended`;
    await runtime.state.claim(key, 'another-step', w.clock.nowMs(), 60_000);

    // Act
    const result = await admin()({ action: 'reconcile', cluster: { namespace: 'demo', name: 'contended' } }, lambdaContext());

    // Assess
    expect(result).toEqual(expect.objectContaining({ ok: true, message: expect.stringContaining('marked dirty') }));
    expect(result.ok && result.step?.disposition).toBe('skipped');
    expect((await inspector.get(key))?.dirty).toBe(true);
  });

  it('status answers the TidbCluster status and the persisted state', async () => {
    // Prepare
    const cluster = { namespace: 'demo', name: 'basic' };
    await admin()({ action: 'reconcile', cluster }, lambdaContext());

    // Act
    const status = await admin()({ action: 'status', cluster }, lambdaContext());

    // Assess
    // The only deadline: the TiDB Operator verdict (none runs here) with its re-check time.
    expect(status).toEqual(expect.objectContaining({ ok: true, key: `${K8S}/demo/basic`, deadlines: [expect.objectContaining({ component: 'cluster', member: 'tidb-operator', kind: 'operatorAbsent' })] }));
    expect(status.ok && status.status).toEqual(expect.objectContaining({ conditions: [expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Ready' })] }));
    expect(status.ok && status.state).toEqual(expect.objectContaining({ lease: null, dirty: false, failures: 0, lastStep: expect.objectContaining({ reconcileId: expect.any(String) }) }));
  });

  it('history answers the step records newest first, up to limit', async () => {
    // Prepare: two steps that changed something (pause: status and outcome; resume: outcome).
    await bareCluster('chronicled');
    const cluster = { namespace: 'demo', name: 'chronicled' };
    await admin()({ action: 'pause', cluster }, lambdaContext());
    await w.clock.advance(1_000);
    await admin()({ action: 'resume', cluster }, lambdaContext());

    // Act
    const all = await admin()({ action: 'history', cluster }, lambdaContext());
    const newest = await admin()({ action: 'history', cluster, limit: 1 }, lambdaContext());

    // Assess
    expect(all.ok && all.history?.map((r) => r.trigger)).toEqual(['admin:resume', 'admin:pause']);
    expect(newest.ok && newest.history?.map((r) => r.trigger)).toEqual(['admin:resume']);
  });

  it('history refuses a limit outside 1-100, naming limit', async () => {
    // Act
    const result = await admin()({ action: 'history', cluster: { namespace: 'demo', name: 'basic' }, limit: 0 }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.stringContaining('limit'), field: 'limit' });
  });
});

describe('sweep handler', () => {
  it('enqueues every TidbCluster once, and leaves one whose wake-up is due within the window to it', async () => {
    // Prepare
    const sweepQueue = new MemoryReconcileQueue({ clock: w.clock });
    const sweeping = newRuntime(sweepQueue, 'sweep');
    // Earlier steps armed wake-ups a few seconds out (PD not running yet); let them pass, so only
    // the wake-up armed below is due within the sweep's window.
    await w.clock.advance(120_000);
    await bareCluster('due-soon');
    await inspector.setNextWake(`${K8S}/demo/due-soon`, w.clock.nowMs() + 30_000);
    const names: string[] = (await w.api('GET', '/apis/pingcap.com/v1alpha1/tidbclusters')).json.items.map((tc: { metadata: { name: string } }) => tc.metadata.name);

    // Act
    const summary = await createSweepHandler({ runtime: () => sweeping })({}, lambdaContext());

    // Assess: each message is delayed by its key's share of the spread (SWEEP_SPREAD_SECONDS, 300 s by default).
    await w.clock.advance(DEFAULT_SWEEP_SPREAD_SECONDS * 1000);
    const sent = await drain(sweepQueue);
    const expected = names.filter((n) => n !== 'due-soon').map((n) => `${K8S}/demo/${n}`);
    expect(sent.map((m) => m.key).sort()).toEqual(expected.sort());
    expect(sent.every((m) => m.reason === 'sweep')).toBe(true);
    expect(summary).toEqual(expect.objectContaining({ listed: names.length, enqueued: names.length - 1, dueSoon: 1 }));
    expect(summary.fleet.listed).toBe(names.length);
  });
});

describe('timer handler', () => {
  it('a wake-up {key, kind} is enqueued as a timer message for the key', async () => {
    // Prepare
    const timerQueue = new MemoryReconcileQueue({ clock: w.clock });
    const timing = newRuntime(timerQueue, 'timer');

    // Act
    const result = await createTimerHandler({ runtime: () => timing })({ key: `${K8S}/demo/basic`, kind: 'failover-tikv' }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: true, key: `${K8S}/demo/basic`, kind: 'failover-tikv', reason: 'timer:failover-tikv' });
    expect(await drain(timerQueue)).toEqual([expect.objectContaining({ key: `${K8S}/demo/basic`, reason: 'timer:failover-tikv' })]);
  });
});

describe('RBAC', () => {
  it('refused no request any function made in this file', () => {
    expect(w.world.gate?.denials).toEqual([]);
    expect(w.world.gate?.usage.size).toBeGreaterThan(0);
  });
});

describe('IAM', () => {
  it('refused no call any function made in this file', () => {
    expect(dynamo.identities.iam.denials).toEqual([]);
    expect([...dynamo.identities.iam.used.keys()].sort()).toEqual(['admin', 'reconcile', 'sweep', 'timer']);
  });
});
