import { describe, expect, it } from '@jest/globals';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { TidbCluster, TidbClusterStatus } from '../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { planVolumeModifier } from '../../../../lib/reconcile/cluster/volume-modifier.js';
import { templatesSynced } from '../../../../lib/reconcile/cluster/volume-recreate.js';
import { tikvComponent } from '../../../../lib/reconcile/components/tikv/recipe.js';
import { withLastApplied } from '../../../../lib/reconcile/member/statefulset.js';
import { VOLUME_ANNOTATIONS as A } from '../../../../lib/reconcile/member/volume-phase.js';
import { ruleInputOf, snapshot, testPod, tidbCluster, withCluster, withOwned, withSpec, withStatus } from '../../../support/fixtures.js';

const PODS = ['basic-tikv-0', 'basic-tikv-1', 'basic-tikv-2'];
const gp2: IStorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'gp2' }, provisioner: 'ebs.csi.aws.com', allowVolumeExpansion: true };
const DONE = { [A.specRevision]: '1', [A.specStorageSize]: '20Gi', [A.statusRevision]: '1', [A.statusStorageSize]: '20Gi' };

const pod = (name: string, ready = true): IPod => {
  const base = testPod(name, { component: 'tikv', ready });
  return { ...base, spec: { ...base.spec, containers: base.spec?.containers ?? [], volumes: [{ name: 'tikv', persistentVolumeClaim: { claimName: `tikv-${name}` } }] } };
};
const claim = (podName: string, size: string, annotations: Record<string, string> = DONE): IPersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: `tikv-${podName}`, namespace: 'demo', resourceVersion: '9', annotations },
  spec: { storageClassName: 'gp2', resources: { requests: { storage: size } } },
  status: { phase: 'Bound', capacity: { storage: size } },
});
const STATUS = { tikv: { phase: 'Normal', stores: Object.fromEntries(PODS.map((p, i) => [String(i + 1), { id: String(i + 1), podName: p, state: 'Up', ip: '', leaderCount: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }])) } } as unknown as TidbClusterStatus;
const TC: TidbCluster = tidbCluster(withSpec({ pd: undefined, tidb: undefined, tikv: { baseImage: 'pingcap/tikv', replicas: 3, requests: { storage: '20Gi' } } }), withStatus(STATUS));

type SetOptions = { template?: string; moving?: boolean; deleting?: boolean; replicas?: number; templates?: number; image?: string };
function liveSet(o: SetOptions = {}): IStatefulSet {
  const template = tikvComponent.podTemplate(o.image ? { ...TC, spec: { ...TC.spec, tikv: { ...TC.spec.tikv, image: o.image } } } as TidbCluster : TC, 'basic-tikv');
  const claimTemplate = (name: string) => ({ metadata: { name }, spec: { storageClassName: 'gp2', resources: { requests: { storage: o.template ?? '10Gi' } } } });
  const replicas = o.replicas ?? 3;
  return withLastApplied({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'basic-tikv', namespace: 'demo', uid: 'sts-uid', resourceVersion: '42', generation: 2, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { replicas, selector: { matchLabels: {} }, serviceName: 'basic-tikv-peer', template, volumeClaimTemplates: [claimTemplate('tikv'), ...(o.templates === 2 ? [claimTemplate('tikv-extra')] : [])] },
    status: { replicas, readyReplicas: replicas, currentRevision: 'r1', updateRevision: o.moving ? 'r2' : 'r1', observedGeneration: 2 },
  } as IStatefulSet);
}
const world = (set: IStatefulSet, claims = PODS.map((p) => claim(p, '20Gi')), pods = PODS.map((p) => pod(p))): Snapshot =>
  snapshot(withCluster(TC), withOwned('Pod', ...pods), withOwned('PersistentVolumeClaim', ...claims), withOwned('StatefulSet', set), (s) => ({ ...s, storageClasses: [gp2] }));

describe('the StatefulSet is re-created for new claim templates (v1.6 tryToRecreateSTS), once every claim has its size', () => {
  it('every claim at 20Gi, the set at rest with a 10Gi template: the in-use ConfigMap is recorded, then the set is deleted with Orphan under its uid and resourceVersion', () => {
    // Act
    const decision = planVolumeModifier(ruleInputOf(world(liveSet())));

    // Assess
    expect(decision.actions).toEqual([
      { kind: 'patch', ref: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' }, patchType: 'merge', patch: { metadata: { annotations: { 'tidb.pingcap.com/configmap-name-before-delete-tikv': 'basic-tikv' } } }, resourceVersion: TC.metadata.resourceVersion ?? '' },
      { kind: 'delete', ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-tikv' }, uid: 'sts-uid', resourceVersion: '42', propagationPolicy: 'Orphan' },
    ]);
    expect(decision.outcome.kind).toBe('retry');
  });

  it.each([
    { name: 'a claim still at 10Gi (the resize goes on first)', snap: () => world(liveSet(), [claim('basic-tikv-0', '20Gi'), claim('basic-tikv-1', '10Gi', {}), claim('basic-tikv-2', '10Gi', {})]), kind: 'retry', why: 'resizing claims tikv-basic-tikv-1' },
    { name: 'a rollout under way', snap: () => world(liveSet({ moving: true })), kind: 'retry', why: 'a rollout or scale is under way' },
    { name: 'a pod not ready', snap: () => world(liveSet(), undefined, [pod('basic-tikv-0'), pod('basic-tikv-1', false), pod('basic-tikv-2')]), kind: 'retry', why: 'pods not ready: basic-tikv-1' },
    { name: 'replicas other than the spec wants', snap: () => world(liveSet({ replicas: 2 })), kind: 'retry', why: 'replicas 2, the spec wants 3' },
    { name: 'a pod spec not applied yet (it would roll the pods)', snap: () => world(liveSet({ image: 'pingcap/tikv:v8.1.0' })), kind: 'retry', why: 'the desired pod template is not applied yet' },
    { name: 'the set already being deleted', snap: () => world(liveSet({ deleting: true })), kind: 'wait', why: 'is being deleted' },
    { name: 'the template already at 20Gi', snap: () => world(liveSet({ template: '20Gi' })), kind: 'complete', why: undefined },
    { name: 'a template the spec no longer has (v1: unsupported)', snap: () => world(liveSet({ template: '20Gi', templates: 2 })), kind: 'fail', why: 'change in number of volumes is not supported' },
  ])('no delete when $name', ({ snap, kind, why }) => {
    // Act
    const decision = planVolumeModifier(ruleInputOf(snap()));

    // Assess
    expect(decision.actions.filter((a) => a.kind === 'delete' || (a.kind === 'patch' && a.ref.kind === 'TidbCluster'))).toEqual([]);
    expect(decision.outcome.kind).toBe(kind);
    const text = 'message' in decision.outcome ? decision.outcome.message : 'error' in decision.outcome ? decision.outcome.error : '';
    if (why !== undefined) expect(text).toContain(why);
  });

  it.each([
    { name: 'equal sizes in other units are synced', size: '20480Mi', sc: 'gp2', want: { synced: true } },
    { name: 'a smaller template is not', size: '10Gi', sc: 'gp2', want: { synced: false } },
    { name: 'another class is not', size: '20Gi', sc: 'gp3', want: { synced: false } },
  ])('templatesSynced: $name', ({ size, sc, want }) => {
    // Prepare
    const sts = { spec: { volumeClaimTemplates: [{ metadata: { name: 'tikv' }, spec: { storageClassName: sc, resources: { requests: { storage: size } } } }] } } as unknown as IStatefulSet;

    // Act / Assess
    expect(templatesSynced(sts, [{ name: 'tikv', size: '20Gi', storageClassName: 'gp2' }])).toEqual(want);
  });
});
