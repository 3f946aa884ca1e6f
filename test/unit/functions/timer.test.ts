import { describe, it, expect } from '@jest/globals';

import { createTimerHandler } from '../../../functions/timer.js';
import { TransientError } from '../../../lib/platform/errors.js';
import { METRIC } from '../../../lib/platform/metrics.js';
import { fakeRuntime, lambdaContext } from './runtime-fakes.js';

describe('timer handler', () => {
  it('a wake-up {key, kind} becomes one timer:<kind> reconcile message for the key', async () => {
    // Prepare
    const fake = fakeRuntime();

    // Act
    const result = await createTimerHandler({ runtime: () => fake.runtime })({ key: 'eks-test/demo/basic', kind: 'failover-pd' }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: true, key: 'eks-test/demo/basic', kind: 'failover-pd', reason: 'timer:failover-pd' });
    expect(fake.sent).toEqual([[{ message: { key: 'eks-test/demo/basic', reason: 'timer:failover-pd', enqueuedAtMs: fake.clock.nowMs() } }]]);
  });

  it('a Backup key is woken as a Backup key', async () => {
    const fake = fakeRuntime();
    const result = await createTimerHandler({ runtime: () => fake.runtime })({ key: 'Backup:eks-test/demo/b1', kind: 'wake' }, lambdaContext());
    expect(result).toMatchObject({ ok: true, key: 'Backup:eks-test/demo/b1' });
    expect(fake.sent).toEqual([[{ message: { key: 'Backup:eks-test/demo/b1', reason: 'timer:wake', enqueuedAtMs: fake.clock.nowMs() } }]]);
  });

  it.each([
    { name: 'a payload that is not an object names payload', payload: 'eks-test/demo/basic', field: 'payload' },
    { name: 'a payload without a key names key', payload: { kind: 'wake' }, field: 'key' },
    { name: 'a key with a bad namespace names key.namespace', payload: { key: 'eks-test/Demo/basic', kind: 'wake' }, field: 'key.namespace' },
    { name: 'a key of two parts names key', payload: { key: 'demo/basic', kind: 'wake' }, field: 'key' },
    { name: 'a kind with a space names kind', payload: { key: 'eks-test/demo/basic', kind: 'wake up' }, field: 'kind' },
    { name: 'a missing kind names kind', payload: { key: 'eks-test/demo/basic' }, field: 'kind' },
    { name: 'a key of a Kubernetes cluster this deployment does not manage names key.k8sCluster', payload: { key: 'other-eks/demo/basic', kind: 'wake' }, field: 'key.k8sCluster' },
    { name: 'a null payload names payload', payload: null, field: 'payload' },
    { name: 'a key of a kind no controller reconciles names key.kind', payload: { key: 'Pod:eks-test/demo/basic', kind: 'wake' }, field: 'key.kind' },
  ])('$name, enqueues nothing and is counted', async ({ payload, field }) => {
    // Prepare
    const fake = fakeRuntime();

    // Act
    const result = await createTimerHandler({ runtime: () => fake.runtime })(payload, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.any(String), field });
    expect(fake.sent).toEqual([]);
    expect(fake.metrics.total(METRIC.malformedMessages)).toBe(1);
  });

  it.each([
    { name: 'a key in a watched namespace is enqueued', key: 'eks-test/demo/basic', sent: 1 },
    { name: 'a key in another namespace is refused naming it, and nothing is enqueued', key: 'eks-test/other/basic', sent: 0 },
  ])('namespace-scoped (WATCH_NAMESPACES=demo): $name', async ({ key, sent }) => {
    // Prepare
    const fake = fakeRuntime();
    const runtime = { ...fake.runtime, watchNamespaces: ['demo'] };

    // Act
    const result = await createTimerHandler({ runtime: () => runtime })({ key, kind: 'wake' }, lambdaContext());

    // Assess
    expect(fake.sent).toHaveLength(sent);
    if (sent === 0) expect(result).toEqual({ ok: false, field: 'key.namespace', error: 'key.namespace "other" is not a namespace this deployment watches (WATCH_NAMESPACES: demo)' });
  });

  it('a wake-up that cannot be enqueued fails the invocation, so the invoker retries it', async () => {
    // Prepare
    const fake = fakeRuntime();
    const runtime = { ...fake.runtime, queue: { ...fake.runtime.queue, send: async () => Promise.reject(new TransientError('SendMessageBatch: throttled')) } };

    // Act
    const run = createTimerHandler({ runtime: () => runtime })({ key: 'eks-test/demo/basic', kind: 'wake' }, lambdaContext());

    // Assess
    await expect(run).rejects.toThrow('throttled');
  });
});
