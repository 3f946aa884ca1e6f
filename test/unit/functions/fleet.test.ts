import { describe, it, expect } from '@jest/globals';

import { createAdminHandler } from '../../../functions/admin.js';
import { createReconcileHandler } from '../../../functions/reconcile.js';
import { createSweepHandler } from '../../../functions/sweep.js';
import { createTimerHandler } from '../../../functions/timer.js';
import { TransientError } from '../../../lib/platform/errors.js';
import { METRIC } from '../../../lib/platform/metrics.js';
import type { SQSEvent } from 'aws-lambda';
import { fleetOf } from '../../../lib/wiring/fleet.js';
import { fakeRuntime, lambdaContext, tidbCluster, type FakeRuntime } from './runtime-fakes.js';

/** Two registered EKS clusters, each its own fake runtime sharing nothing but the test. */
function twoClusters(a = [tidbCluster('one')], b = [tidbCluster('two')]): { a: FakeRuntime; b: FakeRuntime; fleet: ReturnType<typeof fleetOf> } {
  const fa = fakeRuntime(a);
  const fb = fakeRuntime(b);
  const runtimeA = { ...fa.runtime, k8sCluster: 'eks-a' };
  const runtimeB = { ...fb.runtime, k8sCluster: 'eks-b' };
  return { a: fa, b: fb, fleet: fleetOf([runtimeA, runtimeB]) };
}

const record = (id: string, key: string) => ({ messageId: id, receiptHandle: `h-${id}`, body: JSON.stringify({ key, reason: 'test' }), attributes: { ApproximateReceiveCount: '1' } });

describe('a deployment of several EKS clusters', () => {
  it('the sweep sweeps each registered cluster with its own client, each key naming its cluster', async () => {
    // Prepare
    const { a, b, fleet } = twoClusters();

    // Act
    const summary = await createSweepHandler({ fleet: () => fleet })({}, lambdaContext());

    // Assess
    expect(a.sent.flat().map((m) => m.message.key)).toEqual(['eks-a/demo/one']);
    expect(b.sent.flat().map((m) => m.message.key)).toEqual(['eks-b/demo/two']);
    expect(summary).toEqual(expect.objectContaining({ listed: 2, enqueued: 2 }));
  });

  it("one cluster's API failing does not stop the other's sweep: it is logged, and the invocation succeeds", async () => {
    // Prepare
    const { a, b, fleet } = twoClusters();
    b.kube.listTidbClusters = async () => Promise.reject(new TransientError('list tidbclusters: connect ECONNREFUSED'));

    // Act
    const summary = await createSweepHandler({ fleet: () => fleet })({}, lambdaContext());

    // Assess
    expect(a.sent.flat().map((m) => m.message.key)).toEqual(['eks-a/demo/one']);
    expect(summary.clusters?.['eks-b']).toEqual({ error: expect.stringContaining('ECONNREFUSED') });
    expect(b.logger.withMessage('the sweep of one EKS cluster failed; the others were swept')).toEqual([expect.objectContaining({ fields: expect.objectContaining({ k8sCluster: 'eks-b' }) })]);
  });

  it('when every cluster fails, the sweep throws so the scheduler retries it', async () => {
    // Prepare
    const { a, b, fleet } = twoClusters();
    for (const f of [a, b]) f.kube.listTidbClusters = async () => Promise.reject(new TransientError('API server down'));

    // Act
    const run = createSweepHandler({ fleet: () => fleet })({}, lambdaContext());

    // Assess
    await expect(run).rejects.toThrow(/every EKS cluster: eks-a: .*API server down; eks-b: .*API server down/);
  });

  it('each reconcile message is stepped by the runtime of the EKS cluster its key names', async () => {
    // Prepare
    const { a, b, fleet } = twoClusters();
    const event = { Records: [record('m1', 'eks-a/demo/one'), record('m2', 'eks-b/demo/two')] } as unknown as SQSEvent;

    // Act
    await createReconcileHandler({ fleet: () => fleet })(event, lambdaContext());

    // Assess: each cluster's client was asked for its own TidbCluster only.
    expect(await a.state.get('eks-a/demo/one')).toBeDefined();
    expect(await b.state.get('eks-b/demo/two')).toBeDefined();
    expect(await a.state.get('eks-b/demo/two')).toBeUndefined();
    expect(await b.state.get('eks-a/demo/one')).toBeUndefined();
  });

  it('a message naming an unregistered EKS cluster is refused naming the registered ones, and left for the dead-letter queue', async () => {
    // Prepare
    const { a, fleet } = twoClusters();
    const event = { Records: [record('m1', 'eks-c/demo/one'), record('m2', 'eks-a/demo/one')] } as unknown as SQSEvent;

    // Act
    const response = await createReconcileHandler({ fleet: () => fleet })(event, lambdaContext());

    // Assess
    expect(response.batchItemFailures).toContainEqual({ itemIdentifier: 'm1' });
    expect(response.batchItemFailures).not.toContainEqual({ itemIdentifier: 'm2' });
    const refused = a.logger.withMessage('reconcile message for an unregistered EKS cluster: left for the dead-letter queue');
    expect(refused).toEqual([expect.objectContaining({ fields: expect.objectContaining({ field: 'key.k8sCluster', error: expect.stringContaining('registered: eks-a, eks-b') }) })]);
    expect(a.metrics.total(METRIC.malformedMessages)).toBe(1);
  });

  it.each([
    { name: 'a key of any registered cluster is enqueued', key: 'eks-b/demo/two', ok: true },
    { name: 'a key of an unregistered cluster is refused naming key.k8sCluster', key: 'eks-c/demo/two', ok: false },
  ])('timer: $name', async ({ key, ok }) => {
    // Prepare
    const fake = fakeRuntime();
    const runtime = { ...fake.runtime, k8sCluster: 'eks-a', k8sClusters: ['eks-a', 'eks-b'] };

    // Act
    const result = await createTimerHandler({ runtime: () => runtime })({ key, kind: 'wake' }, lambdaContext());

    // Assess
    expect(result).toEqual(ok ? expect.objectContaining({ ok: true, key }) : { ok: false, field: 'key.k8sCluster', error: expect.stringContaining('registered: eks-a, eks-b') });
  });
});

describe('admin addresses <eks-cluster>/<namespace>/<name>', () => {
  it.each([
    { name: 'a named registered cluster answers from its own client', eksCluster: 'eks-b', want: { ok: true, key: 'eks-b/demo/two' } },
    { name: 'an unregistered cluster is refused naming the choices', eksCluster: 'eks-c', want: { ok: false, field: 'cluster.eksCluster', error: expect.stringContaining('registered: eks-a, eks-b') } },
    { name: 'no cluster named, several registered: refused naming the choices', eksCluster: undefined, want: { ok: false, field: 'cluster.eksCluster', error: expect.stringContaining('several EKS clusters (eks-a, eks-b): name one') } },
  ])('$name', async ({ eksCluster, want }) => {
    // Prepare
    const { fleet } = twoClusters([tidbCluster('one')], [tidbCluster('two')]);
    const handler = createAdminHandler({ fleet: () => fleet });
    const cluster = { ...(eksCluster === undefined ? {} : { eksCluster }), namespace: 'demo', name: 'two' };

    // Act
    const result = await handler({ action: 'status', cluster }, lambdaContext());

    // Assess
    expect(result).toEqual(expect.objectContaining(want));
  });

  it('one registered cluster: <namespace>/<name> stays valid', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('two')]);

    // Act
    const result = await createAdminHandler({ runtime: () => fake.runtime })({ action: 'status', cluster: { namespace: 'demo', name: 'two' } }, lambdaContext());

    // Assess
    expect(result).toEqual(expect.objectContaining({ ok: true, key: 'eks-test/demo/two' }));
  });
});
