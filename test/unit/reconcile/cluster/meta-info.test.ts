import { describe, expect, it } from '@jest/globals';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import type { Snapshot } from '../../../../lib/model/snapshot.js';
import { planMetaInfo } from '../../../../lib/reconcile/cluster/meta-info.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { ruleNames } from '../../../../lib/reconcile/engine/rule.js';
import {
  changeSpec,
  pdMemberView,
  pdViewOf,
  ruleInputOf,
  snapshot,
  testPod,
  testPvc,
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  type Change,
} from '../../../support/fixtures.js';

const CLAIM = 'pd-basic-pd-0';
const POD = 'basic-pd-0';
const MEMBER_ID = pdMemberView(POD).id;
const CLUSTER_ID = '6800000000000000001';

/** The claim of basic-pd-0 as the StatefulSet controller creates it (selector labels), bound to `pv-0`. */
function claim(o: { labels?: Record<string, string>; annotations?: Record<string, string>; component?: string; volume?: string | null } = {}): IPersistentVolumeClaim {
  const base = testPvc(CLAIM, POD, { uid: 'pvc-uid-0', ...(o.annotations ? { annotations: o.annotations } : {}) });
  const labels = { 'app.kubernetes.io/name': 'tidb-cluster', 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': o.component ?? 'pd', ...(o.labels ?? {}) };
  return { ...base, metadata: { ...base.metadata, labels }, spec: { ...base.spec, ...(o.volume === null ? {} : { volumeName: o.volume ?? 'pv-0' }) } };
}

/** The volume `pv-0` bound to the claim (uid `claimUid`), as the provisioner leaves it. */
function volume(o: { policy?: 'Delete' | 'Retain'; labels?: Record<string, string>; annotations?: Record<string, string>; claimUid?: string } = {}): IPersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-0', resourceVersion: '42', ...(o.labels ? { labels: o.labels } : {}), ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: { persistentVolumeReclaimPolicy: o.policy ?? 'Delete', claimRef: { namespace: 'demo', name: CLAIM, uid: o.claimUid ?? 'pvc-uid-0' } },
  };
}

const FULL_PV_LABELS = {
  'app.kubernetes.io/namespace': 'demo',
  'app.kubernetes.io/component': 'pd',
  'app.kubernetes.io/name': 'tidb-cluster',
  'app.kubernetes.io/managed-by': 'tidb-operator',
  'app.kubernetes.io/instance': 'basic',
  'tidb.pingcap.com/member-id': MEMBER_ID,
  'tidb.pingcap.com/cluster-id': CLUSTER_ID,
};
const FULL_PVC_LABELS = { 'tidb.pingcap.com/pod-name': POD, 'tidb.pingcap.com/member-id': MEMBER_ID, 'tidb.pingcap.com/cluster-id': CLUSTER_ID };
const POD_ANNOTATION = { 'tidb.pingcap.com/pod-name': POD };

const withVolumes =
  (...volumes: IPersistentVolume[]): Change<Snapshot> =>
  (s) => ({ ...s, volumes });
const pdUp = withPd(pdViewOf([pdMemberView(POD)], POD, CLUSTER_ID));
const pod = withOwned('Pod', testPod(POD, { claims: [CLAIM] }));

describe('MetaInfo: reclaim policy and identity of volumes (TiDB Operator reclaim policy and meta managers)', () => {
  it.each([
    {
      name: 'a fresh volume gets Retain (the default pvReclaimPolicy) and the claim\'s identity; the claim gets the pod name and ids',
      changes: [pod, pdUp, withOwned('PersistentVolumeClaim', claim()), withVolumes(volume())],
      want: [
        { kind: 'PersistentVolumeClaim', patch: { metadata: { labels: FULL_PVC_LABELS, annotations: POD_ANNOTATION } }, resourceVersion: '9' },
        { kind: 'PersistentVolume', patch: { metadata: { labels: FULL_PV_LABELS, annotations: POD_ANNOTATION }, spec: { persistentVolumeReclaimPolicy: 'Retain' } }, resourceVersion: '42' },
      ],
    },
    {
      name: 'pvReclaimPolicy Delete is applied as asked',
      changes: [changeCluster(changeSpec((s) => ({ ...s, pvReclaimPolicy: 'Delete' }))), pod, pdUp, withOwned('PersistentVolumeClaim', claim({ labels: FULL_PVC_LABELS, annotations: POD_ANNOTATION })), withVolumes(volume({ policy: 'Retain', labels: FULL_PV_LABELS, annotations: POD_ANNOTATION }))],
      want: [{ kind: 'PersistentVolume', patch: { spec: { persistentVolumeReclaimPolicy: 'Delete' } }, resourceVersion: '42' }],
    },
    {
      name: 'a claim and volume that already say everything are left alone',
      changes: [pod, pdUp, withOwned('PersistentVolumeClaim', claim({ labels: FULL_PVC_LABELS, annotations: POD_ANNOTATION })), withVolumes(volume({ policy: 'Retain', labels: FULL_PV_LABELS, annotations: POD_ANNOTATION }))],
      want: [],
    },
    {
      name: 'without PD the ids are not known: only the pod name is written, and no label is removed',
      changes: [pod, withOwned('PersistentVolumeClaim', claim({ labels: { 'tidb.pingcap.com/member-id': '7' } })), withVolumes(volume({ policy: 'Retain' }))],
      want: [
        { kind: 'PersistentVolumeClaim', patch: { metadata: { labels: { 'tidb.pingcap.com/pod-name': POD }, annotations: POD_ANNOTATION } }, resourceVersion: '9' },
        {
          kind: 'PersistentVolume',
          patch: { metadata: { labels: { ...FULL_PV_LABELS, 'tidb.pingcap.com/member-id': '7', 'tidb.pingcap.com/cluster-id': undefined }, annotations: POD_ANNOTATION } },
          resourceVersion: '42',
        },
      ],
    },
    {
      name: 'a claim whose pod is gone still gets its volume\'s reclaim policy (as v1\'s reclaim manager, which walks claims)',
      changes: [withOwned('PersistentVolumeClaim', claim({ labels: FULL_PVC_LABELS, annotations: POD_ANNOTATION })), withVolumes(volume({ labels: FULL_PV_LABELS, annotations: POD_ANNOTATION }))],
      want: [{ kind: 'PersistentVolume', patch: { spec: { persistentVolumeReclaimPolicy: 'Retain' } }, resourceVersion: '42' }],
    },
    {
      name: 'a defer-deleting claim under enablePVReclaim keeps its volume\'s policy (it is about to be reclaimed)',
      changes: [changeCluster(changeSpec((s) => ({ ...s, enablePVReclaim: true }))), withOwned('PersistentVolumeClaim', claim({ labels: FULL_PVC_LABELS, annotations: { ...POD_ANNOTATION, 'tidb.pingcap.com/pvc-defer-deleting': '2026-01-01T00:00:00Z' } })), withVolumes(volume({ labels: FULL_PV_LABELS, annotations: POD_ANNOTATION }))],
      want: [],
    },
    {
      name: 'a claim of a component whose volumes v1 does not reclaim (TiCDC) keeps its volume\'s policy',
      changes: [withOwned('PersistentVolumeClaim', claim({ component: 'ticdc', labels: FULL_PVC_LABELS, annotations: POD_ANNOTATION })), withVolumes(volume({ labels: { ...FULL_PV_LABELS, 'app.kubernetes.io/component': 'ticdc' }, annotations: POD_ANNOTATION }))],
      want: [],
    },
    {
      name: 'a volume whose claimRef is another claim (a namesake recreated) is not touched',
      changes: [withOwned('PersistentVolumeClaim', claim({ labels: FULL_PVC_LABELS, annotations: POD_ANNOTATION })), withVolumes(volume({ claimUid: 'older-claim' }))],
      want: [],
    },
    {
      name: 'an unbound claim, or a volume not read yet, waits for a later step',
      changes: [withOwned('PersistentVolumeClaim', claim({ volume: null, labels: FULL_PVC_LABELS, annotations: POD_ANNOTATION }))],
      want: [],
    },
    {
      name: 'a claim of another instance is not ours',
      changes: [withOwned('PersistentVolumeClaim', claim({ labels: { 'app.kubernetes.io/instance': 'other' } })), withVolumes(volume())],
      want: [],
    },
  ])('$name', ({ changes, want }) => {
    // Prepare
    const input = ruleInputOf(snapshot(...changes));

    // Act
    const decision = planMetaInfo(input);

    // Assess
    expect(decision.outcome.kind).toBe('complete');
    expect(decision.stop).toBeUndefined();
    expect(decision.actions.map((a) => ({ kind: a.kind === 'patch' ? a.ref.kind : a.kind, patch: a.kind === 'patch' ? a.patch : undefined, resourceVersion: a.kind === 'patch' ? a.resourceVersion : undefined }))).toEqual(
      want.map((w) => ({ ...w, patch: JSON.parse(JSON.stringify(w.patch)) })),
    );
    for (const a of decision.actions) if (a.kind === 'patch') expect(a.patchType).toBe('merge');
  });

  it('runs after Paused, so a paused cluster gets no volume writes', () => {
    // Prepare
    const names = ruleNames(clusterRules).map((n) => n.slice(n.indexOf(':') + 1));

    // Act
    const at = names.indexOf('MetaInfo');

    // Assess
    expect(at).toBeGreaterThan(names.indexOf('Paused'));
    expect(at).toBeLessThan(names.indexOf('PdServices'));
  });
});

function changeCluster(change: Change<ReturnType<typeof tidbCluster>>): Change<Snapshot> {
  return (s) => withCluster(change(s.cluster ?? tidbCluster()))(s);
}
