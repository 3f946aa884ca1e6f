import { describe, it, expect } from '@jest/globals';

import { createAdminHandler, handler as deployedHandler } from '../../../functions/admin.js';
import { fakeRuntime, lambdaContext, tidbCluster } from './runtime-fakes.js';

const cluster = { namespace: 'demo', name: 'basic' };

describe('admin handler', () => {
  it.each([
    { name: 'an unknown action is answered naming action', payload: { action: 'restart', cluster }, field: 'action' },
    { name: 'an unknown component is answered naming component', payload: { action: 'force-upgrade', cluster, component: 'tiproxy' }, field: 'component' },
    { name: 'a history limit that is not a whole number is answered naming limit', payload: { action: 'history', cluster, limit: 2.5 }, field: 'limit' },
    { name: 'a payload that is not an object is answered naming request', payload: 'pause', field: 'request' },
  ])('$name, even where nothing is configured', async ({ payload, field }) => {
    // Act
    const result = await deployedHandler(payload, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.any(String), field });
  });

  it.each([
    { name: 'a 1.5 MB action', payload: { action: 'a'.repeat(1_500_000), cluster }, field: 'action' },
    { name: 'a 1.5 MB cluster name of control characters (6 bytes each escaped)', payload: { action: 'pause', cluster: { namespace: 'demo', name: '\u0001'.repeat(1_500_000) } }, field: 'cluster.name' },
    { name: 'a 1.5 MB unknown field name', payload: { action: 'pause', cluster, ['f'.repeat(1_500_000)]: 1 }, field: expect.stringMatching(/^f{1024}… \(1500000 bytes, first 1024 shown\)$/) },
  ])('$name is answered well under the 6 MB response limit, echoing at most 1 KB of it', async ({ payload, field }) => {
    // Act
    const result = await deployedHandler(payload, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/\(1500000 bytes, first \d+ shown\)/), field });
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(3_000);
  });

  it('a valid request where nothing is configured is answered naming the missing variables', async () => {
    // Act
    const result = await deployedHandler({ action: 'pause', cluster }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/not configured.*CLUSTER_NAME: not set/) });
  });

  it('reconcile runs one step under the lease and reports it', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic')]);

    // Act
    const result = await createAdminHandler({ runtime: () => fake.runtime })({ action: 'reconcile', cluster }, lambdaContext('req-9'));

    // Assess
    expect(result).toEqual(expect.objectContaining({ ok: true, action: 'reconcile', cluster, key: 'eks-test/demo/basic' }));
    expect(result.ok && result.step).toEqual(expect.objectContaining({ disposition: 'stepped', fence: 1, statusWritten: true }));
    expect((await fake.state.listHistory('eks-test/demo/basic', 5)).map((h) => h.trigger)).toEqual(['admin:reconcile']);
  });

  it('force-upgrade of TiKV is refused: TiDB Operator v1 force-upgrades PD only', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic')]);

    // Act
    const result = await createAdminHandler({ runtime: () => fake.runtime })({ action: 'force-upgrade', cluster, component: 'tikv' }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: false, error: expect.stringContaining('PD only'), field: 'component' });
  });

  it('status of a cluster never stepped answers its status and no state', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('basic', { ready: true })]);

    // Act
    const result = await createAdminHandler({ runtime: () => fake.runtime })({ action: 'status', cluster }, lambdaContext());

    // Assess
    expect(result).toEqual({ ok: true, action: 'status', cluster, key: 'eks-test/demo/basic', status: { conditions: [{ type: 'Ready', status: 'True' }] }, state: null, deadlines: [] });
  });
});
