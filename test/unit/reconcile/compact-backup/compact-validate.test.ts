/**
 * A CompactBackup that cannot run is refused at once, with v1's messages for v1's checks and a
 * message naming the field for ours (TiKV ≥ v9.0, br, storage, timestamps): state Failed, one
 * Warning, a terminal outcome and no Job.
 */
import { describe, expect, it } from '@jest/globals';

import { planCompactBackup } from '../../../../lib/reconcile/compact-backup/recipe.js';
import { cluster, compact, created, events, snap, writtenStatus } from './fixtures.js';

describe('CompactBackup validation', () => {
  it.each([
    { name: "v1: startTs is required", spec: { startTs: '' }, message: 'start-ts must be set' },
    { name: 'v1: endTs is required', spec: { endTs: undefined }, message: 'end-ts must be set' },
    { name: 'v1: concurrency must be positive', spec: { concurrency: 0 }, message: 'concurrency must be greater than 0' },
    { name: 'v1: an absent concurrency is Go\'s zero', spec: { concurrency: undefined }, message: 'concurrency must be greater than 0' },
    { name: 'v1: maxRetryTimes may not be negative', spec: { maxRetryTimes: -1 }, message: 'maxRetryTimes must be greater than or equal to 0' },
    { name: 'br.cluster is required (v1 dereferences a nil br)', spec: { br: undefined }, message: 'cluster should be configured for BR in spec of demo/c1' },
    { name: 'a storage provider is required', spec: { s3: undefined }, message: 'no storage provider is configured in spec of demo/c1' },
    { name: 'only S3 is run', spec: { s3: undefined, gcs: { bucket: 'g' } }, message: 'only S3 storage is supported by this reconciler in spec of demo/c1' },
    { name: 'the S3 bucket is required', spec: { s3: { region: 'us-west-2' } }, message: 'bucket should be configured for BR in spec of demo/c1' },
    { name: "startTs must parse (the pod's message)", spec: { startTs: 'yesterday' }, message: 'failed to parse startTs yesterday' },
    { name: "endTs must parse (the pod's message)", spec: { endTs: '2026-13-45 99:00:00' }, message: 'failed to parse endTs 2026-13-45 99:00:00' },
    { name: "endTs may not precede startTs (the pod's message)", spec: { startTs: '200', endTs: '100' }, message: 'until-ts 100 must be greater than from-ts 200' },
  ])('$name', ({ spec, message }) => {
    // Act
    const plan = planCompactBackup(snap(compact(spec)));

    // Assess
    expect(writtenStatus(plan)).toEqual({ state: 'Failed', message });
    expect(events(plan)).toEqual([`Warning InvalidSpec: ${message}`]);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
    expect(created(plan)).toEqual([]);
  });

  it.each([
    { name: 'a v8.5 cluster is refused naming spec.br.cluster', tc: cluster('v8.5.0'), spec: {}, message: 'log backup compaction needs TiKV v9.0.0 or later (TiDB v9.0): spec.br.cluster demo/basic runs TiKV v8.5.0' },
    { name: 'an older spec.tikvImage is refused naming it', tc: cluster('v9.0.0'), spec: { tikvImage: 'pingcap/tikv:v8.1.2' }, message: 'log backup compaction needs TiKV v9.0.0 or later (TiDB v9.0): spec.tikvImage pingcap/tikv:v8.1.2 is v8.1.2' },
  ])('TiDB v9.0 gate: $name', ({ tc, spec, message }) => {
    // Act
    const plan = planCompactBackup(snap(compact(spec), { tc }));

    // Assess
    expect(writtenStatus(plan)).toEqual({ state: 'Failed', message });
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
    expect(created(plan)).toEqual([]);
  });

  it.each([
    { name: 'v9.0.0', version: 'v9.0.0' },
    { name: 'v9.1.0', version: 'v9.1.0' },
    { name: 'a tag that is not a version (as v1\'s gates)', version: 'nightly' },
  ])('TiDB v9.0 gate passes $name', ({ version }) => {
    const plan = planCompactBackup(snap(compact(), { tc: cluster(version) }));
    expect(created(plan)).toHaveLength(1);
  });

  it('an object already past Scheduled that becomes invalid keeps its status (v1 writes only a fresh one) and stops', () => {
    // Act
    const plan = planCompactBackup(snap(compact({ concurrency: 0 }, { state: 'Running' })));

    // Assess
    expect(writtenStatus(plan)).toBeUndefined();
    expect(events(plan)).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
  });
});
