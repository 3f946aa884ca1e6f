/**
 * Fixture O (TiDB Operator's tidb_cluster_control_test.go) through the real recipe and step engine:
 * whichever part of the cluster's loop fails — reclaim policy, orphan-pod cleaner, discovery and PD,
 * PVC cleaner — the step fails with that write's error and the rest of the writes are not attempted,
 * while the status computed so far is still written (as v1 writes status even on error); a status
 * write that fails is surfaced too.
 */
import { describe, expect, it } from '@jest/globals';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import type { RemoteAction } from '../../../../lib/model/action.js';
import type { Outcome } from '../../../../lib/model/outcome.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { TransientError } from '../../../../lib/platform/errors.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { runStep } from '../../../../lib/step/run-step.js';
import { KEY, convergedPdObjects, snapshot, testPod, testPvc, tidbCluster, withCluster, withOwned, withSpec, type Change } from '../../../support/fixtures.js';
import { MemoryStateStore } from '../../../support/memory-state.js';
import { TEST_STEP_CONFIG, stepHarness } from '../../../support/step-fakes.js';

const pdOnly = tidbCluster(withSpec({ tikv: undefined, tidb: undefined }));
const reclaiming = tidbCluster(withSpec({ tikv: undefined, tidb: undefined, enablePVReclaim: true }));
const labels = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': 'pd', 'app.kubernetes.io/managed-by': 'tidb-operator' };
const deferred = (): IPersistentVolumeClaim => {
  const pvc = testPvc('pd-basic-pd-3', 'basic-pd-3', { annotations: { 'tidb.pingcap.com/pvc-defer-deleting': '2026-01-01T00:00:00Z', 'tidb.pingcap.com/pod-name': 'basic-pd-3' } });
  return { ...pvc, metadata: { ...pvc.metadata, labels: { ...pvc.metadata?.labels, ...labels } }, spec: { ...pvc.spec, volumeName: 'pv-3' }, status: { phase: 'Bound' } };
};
const volume = (policy: string, claim = 'pd-basic-pd-3'): IPersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv-3', resourceVersion: '40', labels: { ...labels, 'app.kubernetes.io/namespace': 'demo', 'app.kubernetes.io/name': 'tidb-cluster' }, annotations: { 'tidb.pingcap.com/pod-name': 'basic-pd-3' } },
  spec: { persistentVolumeReclaimPolicy: policy as 'Delete', claimRef: { namespace: 'demo', name: claim, uid: `uid-${claim}` } },
});
const errorOf = (outcome: Outcome | undefined): string => (outcome?.kind === 'fail' ? outcome.error : '');
const withVolumes = (...volumes: IPersistentVolume[]): Change<Snapshot> => (s) => ({ ...s, volumes });

describe('Fixture O: a failing part of the loop fails the step with its error, and the status is still written', () => {
  it.each<{ name: string; world: Snapshot; failing: RemoteAction['kind']; error: string }>([
    {
      name: 'reclaim policy (a volume to set to Retain)',
      world: snapshot(withCluster(pdOnly), ...convergedPdObjects(pdOnly), withOwned('PersistentVolumeClaim', { ...deferred(), metadata: { ...deferred().metadata, annotations: { 'tidb.pingcap.com/pod-name': 'basic-pd-3' } } }), withVolumes(volume('Delete'))),
      failing: 'patch',
      error: 'patch PersistentVolume',
    },
    {
      name: 'orphan-pod cleaner (an unscheduled pod whose claim is gone)',
      world: snapshot(withCluster(pdOnly), ...convergedPdObjects(pdOnly), withOwned('Pod', testPod('basic-pd-3', { nodeName: null, claims: ['pd-basic-pd-3'], labels: { 'tidb.pingcap.com/cluster-id': '6800000000000000001' } }))),
      failing: 'delete',
      error: 'delete Pod demo/basic-pd-3',
    },
    { name: 'discovery and PD (a new cluster)', world: snapshot(withCluster(pdOnly)), failing: 'create', error: 'create ' },
    {
      name: 'PVC cleaner (a deferred claim whose pod is gone)',
      world: snapshot(withCluster(reclaiming), ...convergedPdObjects(reclaiming), withOwned('PersistentVolumeClaim', deferred()), withVolumes(volume('Delete'))),
      failing: 'delete',
      error: 'delete PersistentVolumeClaim demo/pd-basic-pd-3',
    },
  ])('$name', async ({ world, failing, error }) => {
    // Prepare
    const h = stepHarness(new MemoryStateStore());
    h.observer.observe = async () => ({ cluster: world.cluster, owned: world.owned, components: world.components, ...(world.volumes ? { volumes: world.volumes } : {}) });
    h.executor.failOn(failing, new TransientError('the API server says no'));
    // Act
    const result = await runStep({ key: KEY, trigger: { reason: 'watch' }, owner: 'o', ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: clusterRules });
    // Assess
    expect(result.outcome).toMatchObject({ kind: 'fail', terminal: false });
    expect(errorOf(result.outcome)).toContain(error);
    expect(errorOf(result.outcome)).toContain('the API server says no');
    const failed = result.actions.findIndex((a) => a.result === 'error');
    expect(result.actions.slice(failed + 1).filter((a) => !a.description.startsWith('updateStatus')).every((a) => a.result === 'not-run')).toBe(true);
    expect(result.statusWritten).toBe(true);
  });

  it('a status write that fails is surfaced as the step failing', async () => {
    const h = stepHarness(new MemoryStateStore());
    h.observer.observe = async () => ({ cluster: pdOnly, owned: snapshot().owned, components: snapshot().components });
    h.executor.failOn('updateStatus', new TransientError('etcd is slow'));
    const result = await runStep({ key: KEY, trigger: { reason: 'watch' }, owner: 'o', ports: h.ports, config: TEST_STEP_CONFIG, budgetMs: 60_000, rules: clusterRules });
    expect(errorOf(result.outcome)).toContain('etcd is slow');
    expect(result.statusWritten).toBe(false);
  });
});
