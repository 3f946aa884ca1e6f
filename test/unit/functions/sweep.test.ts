import { describe, it, expect } from '@jest/globals';

import { createSweepHandler } from '../../../functions/sweep.js';
import { METRIC } from '../../../lib/platform/metrics.js';
import { lambdaRuntime } from '../../../lib/wiring/ports.js';
import { fakeRuntime, lambdaContext, tidbCluster } from './runtime-fakes.js';

const names = (n: number, prefix = 'tc') => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

describe('sweep handler', () => {
  it('follows every page of TidbClusters and enqueues each key once, ten per batch', async () => {
    // Prepare: more clusters than one page holds (200 per page).
    const fake = fakeRuntime(names(205).map((n) => tidbCluster(n)));

    // Act
    const summary = await createSweepHandler({ runtime: () => fake.runtime })({}, lambdaContext());

    // Assess
    expect(fake.kube.pages.map((p) => p.continue)).toEqual([undefined, '200']);
    const keys = fake.sent.flat().map((m) => m.message.key);
    expect(keys).toEqual(names(205).map((n) => `eks-test/demo/${n}`));
    expect(fake.sent.every((batch) => batch.length <= 10)).toBe(true);
    expect(summary).toEqual(expect.objectContaining({ listed: 205, enqueued: 205, dueSoon: 0 }));
  });

  it('leaves a key whose wake-up is due within the window to that wake-up', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('soon'), tidbCluster('later')]);
    await fake.state.setNextWake('eks-test/demo/soon', fake.clock.nowMs() + 30_000);
    await fake.state.setNextWake('eks-test/demo/later', fake.clock.nowMs() + 600_000);

    // Act
    const summary = await createSweepHandler({ runtime: () => fake.runtime })({}, lambdaContext());

    // Assess
    expect(fake.sent.flat().map((m) => [m.message.key, m.message.reason])).toEqual([['eks-test/demo/later', 'sweep']]);
    expect(summary).toEqual(expect.objectContaining({ enqueued: 1, dueSoon: 1 }));
  });

  it('reports the fleet: clusters, not Ready, paused, and failing keys', async () => {
    // Prepare
    const fake = fakeRuntime([tidbCluster('ready', { ready: true }), tidbCluster('starting'), tidbCluster('held', { paused: true, ready: true })]);
    const claim = await fake.state.claim('eks-test/demo/starting', 'step', fake.clock.nowMs(), 60_000);
    const fence = claim.claimed ? claim.fence : 0;
    await fake.state.release('eks-test/demo/starting', 'step', fence, { failures: 1, nextWakeAtMs: undefined, lastStep: { atMs: fake.clock.nowMs(), outcome: 'fail' } });

    // Act
    const summary = await createSweepHandler({ runtime: () => fake.runtime })({}, lambdaContext());

    // Assess
    expect(summary.fleet).toEqual({ listed: 3, ready: 2, notReady: 1, paused: 1, failing: 1 });
    expect([METRIC.fleetClusters, METRIC.fleetNotReady, METRIC.fleetPaused, METRIC.fleetFailing].map((m) => fake.metrics.total(m))).toEqual([3, 1, 1, 1]);
  });

  it('without its configuration the sweep fails naming the missing variables', async () => {
    // Act
    const run = createSweepHandler({ runtime: () => lambdaRuntime({ CLUSTER_NAME: 'prod' }) })({}, lambdaContext());

    // Assess
    await expect(run).rejects.toThrow(/KUBE_ENDPOINT: not set/);
  });
});
