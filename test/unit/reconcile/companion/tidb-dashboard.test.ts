/**
 * The TidbDashboard recipe against v1's manager (release-1.6 `pkg/manager/tidbdashboard`): what it
 * creates and in which order, the image and arguments it derives, TLS, idempotence, status, and the
 * refusals that name their field.
 */
import { describe, expect, it } from '@jest/globals';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IService } from 'kubernetes-models/v1/Service';

import { dashboardImage } from '../../../../lib/reconcile/tidb-dashboard/build.js';
import { planTidbDashboard } from '../../../../lib/reconcile/tidb-dashboard/recipe.js';
import { cluster, dashboard, dashboardSnap, events, liveSts, writes, written } from './fixtures.js';

describe('TidbDashboard', () => {
  it('a fresh dashboard gets its Service, then its StatefulSet, and waits for it', () => {
    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard()));

    // Assess
    expect(writes(plan)).toEqual(['create Service/basic-tidb-dashboard-exposed', 'create StatefulSet/basic-tidb-dashboard']);
    const sts = written<IStatefulSet>(plan, 'StatefulSet', 'basic-tidb-dashboard');
    const container = sts.spec?.template.spec?.containers[0];
    expect(container?.image).toBe('pingcap/tidb-dashboard:v8.5.7');
    expect(container?.args).toEqual(['-h=0.0.0.0', '-p=12333', '--data-dir=/var/lib/tidb-dashboard-data', '--temp-dir=/var/lib/tidb-dashboard-data', '--path-prefix=', '--feature-version=v8.5.7', '--experimental=false', '--telemetry=true', '--pd=http://basic-pd.demo:2379']);
    expect(sts.spec?.volumeClaimTemplates?.[0]).toEqual({ metadata: { name: 'tidb-dashboard-data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } });
    expect(sts.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'TidbDashboard', name: 'basic', uid: 'td-uid', controller: true });
    expect(written<IService>(plan, 'Service', 'basic-tidb-dashboard-exposed').spec?.ports).toEqual([{ name: 'tidb-dashboard', port: 12333, targetPort: 12333, protocol: 'TCP' }]);
    expect(plan.outcome.kind).toBe('wait');
  });

  it('a second step over what the first wrote writes nothing but status, and completes once the pod is ready', () => {
    // Arrange
    const first = planTidbDashboard(dashboardSnap(dashboard()));
    const service = written<IService>(first, 'Service', 'basic-tidb-dashboard-exposed');
    const sts = liveSts(written<IStatefulSet>(first, 'StatefulSet', 'basic-tidb-dashboard'), { ready: true });

    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard(), { service, sts }));

    // Assess
    expect(writes(plan)).toEqual(['updateStatus TidbDashboard/basic']);
    expect(written<{ status: unknown }>(plan, 'TidbDashboard', 'basic').status).toEqual({ synced: true, phase: 'Normal', statefulSet: sts.status });
    expect(plan.outcome.kind).toBe('complete');
  });

  it.each([
    { name: 'a StatefulSet between revisions is phase Upgrade', upgrading: true, phase: 'Upgrade' },
    { name: 'one at its update revision is phase Normal', upgrading: false, phase: 'Normal' },
  ])('$name', ({ upgrading, phase }) => {
    // Arrange
    const first = planTidbDashboard(dashboardSnap(dashboard()));
    const sts = liveSts(written<IStatefulSet>(first, 'StatefulSet', 'basic-tidb-dashboard'), { ready: true, upgrading });

    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard(), { service: written<IService>(first, 'Service', 'basic-tidb-dashboard-exposed'), sts }));

    // Assess
    expect(written<{ status: { phase: string } }>(plan, 'TidbDashboard', 'basic').status.phase).toBe(phase);
  });

  it('a new version updates the StatefulSet under its resourceVersion', () => {
    // Arrange
    const first = planTidbDashboard(dashboardSnap(dashboard()));
    const sts = liveSts(written<IStatefulSet>(first, 'StatefulSet', 'basic-tidb-dashboard'), { ready: true });

    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard({ version: 'v8.5.8' }), { service: written<IService>(first, 'Service', 'basic-tidb-dashboard-exposed'), sts }));

    // Assess
    const update = plan.actions.find((a) => a.kind === 'update');
    expect(update).toMatchObject({ ref: { kind: 'StatefulSet', name: 'basic-tidb-dashboard' }, resourceVersion: '11' });
    expect(written<IStatefulSet>(plan, 'StatefulSet', 'basic-tidb-dashboard').spec?.template.spec?.containers[0]?.image).toBe('pingcap/tidb-dashboard:v8.5.8');
  });

  it.each([
    { name: 'baseImage without a tag gets the version', spec: { baseImage: 'pingcap/tidb-dashboard', version: 'v8.5.7' }, image: 'pingcap/tidb-dashboard:v8.5.7' },
    { name: 'a tag on baseImage is replaced', spec: { baseImage: 'pingcap/tidb-dashboard:old', version: 'v8.5.7' }, image: 'pingcap/tidb-dashboard:v8.5.7' },
    { name: 'a registry port is not a tag', spec: { baseImage: 'registry:30000/pingcap/tidb-dashboard', version: 'v1' }, image: 'registry:30000/pingcap/tidb-dashboard:v1' },
    { name: 'no version keeps baseImage', spec: { baseImage: 'pingcap/tidb-dashboard', version: undefined }, image: 'pingcap/tidb-dashboard' },
    { name: 'without baseImage, image is used', spec: { baseImage: '', image: 'my/dashboard:1' }, image: 'my/dashboard:1' },
  ])('image: $name', ({ spec, image }) => {
    expect(dashboardImage(dashboard(spec))).toBe(image);
  });

  it('under cluster and TiDB client TLS it copies both certificates first and mounts them', () => {
    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard(), { tc: cluster({ tls: true, tidbClientTls: true }), secrets: { 'basic-cluster-client-secret': true, 'basic-tidb-client-secret': true } }));

    // Assess
    expect(writes(plan)).toEqual(['secret.copy Secret/basic-tc-cluster-client-tls', 'secret.copy Secret/basic-tc-mysql-client-tls', 'create Service/basic-tidb-dashboard-exposed', 'create StatefulSet/basic-tidb-dashboard']);
    const sts = written<IStatefulSet>(plan, 'StatefulSet', 'basic-tidb-dashboard');
    expect(sts.spec?.template.spec?.containers[0]?.args).toEqual(expect.arrayContaining(['--pd=https://basic-pd.demo:2379', '--cluster-ca=/var/lib/cluster-client-tls/ca.crt', '--tidb-ca=/var/lib/mysql-client-tls/ca.crt']));
    expect(sts.spec?.template.spec?.volumes?.map((v) => v.secret?.secretName)).toEqual(['basic-tc-cluster-client-tls', 'basic-tc-mysql-client-tls']);
  });

  it("without the cluster's client certificate it fails (retried) and writes nothing", () => {
    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard(), { tc: cluster({ tls: true }), secrets: { 'basic-cluster-client-secret': false } }));

    // Assess
    expect(writes(plan)).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: false });
    expect(plan.outcome.kind === 'fail' ? plan.outcome.error : '').toContain('secret "basic-cluster-client-secret" not found');
  });

  it('a missing TidbCluster is an error retried with back-off, as v1', () => {
    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard(), { tc: undefined }));

    // Assess
    expect(writes(plan)).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: false, error: 'get tc demo/basic failed: tidbcluster.pingcap.com "basic" not found' });
  });

  it.each([
    { name: 'no cluster', spec: { clusters: [] }, message: 'spec.clusters: Invalid value: 0: must have at exactly one item' },
    { name: 'no storage request', spec: { requests: {} }, message: 'spec.requests.storage: Required value: a TidbDashboard needs a storage request for its data volume' },
    { name: 'a storage request that is no quantity', spec: { requests: { storage: 'ten' } }, message: 'spec.requests.storage: Invalid value: "ten": must be a quantity such as 10Gi' },
    { name: 'an unnamed env entry', spec: { env: [{ value: 'x' }] }, message: 'spec.env[0].name: Required value' },
    { name: 'two problems at once', spec: { clusters: [], requests: {} }, message: '[spec.clusters: Invalid value: 0: must have at exactly one item, spec.requests.storage: Required value: a TidbDashboard needs a storage request for its data volume]' },
  ])('refused: $name', ({ spec, message }) => {
    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard(spec)));

    // Assess
    expect(writes(plan)).toEqual([]);
    expect(events(plan)).toEqual([`Warning FailedValidation: ${message}`]);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
  });
});

describe('TidbDashboard volumes', () => {
  const claim = (phase: 'Pending' | 'Bound', volumeName?: string): IPersistentVolumeClaim => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'tidb-dashboard-data-basic-tidb-dashboard-0' }, spec: { ...(volumeName ? { volumeName } : {}) }, status: { phase } });
  const pv = (policy: 'Retain' | 'Delete'): IPersistentVolume => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-1', resourceVersion: '5' }, spec: { persistentVolumeReclaimPolicy: policy } });

  it.each([
    { name: "a bound claim's Delete volume is patched to Retain (the CRD default)", spec: {}, claims: [claim('Bound', 'pv-1')], policy: 'Delete' as const, patched: ['Retain'] },
    { name: 'a volume already at the policy is left alone', spec: {}, claims: [claim('Bound', 'pv-1')], policy: 'Retain' as const, patched: [] },
    { name: 'pvReclaimPolicy Delete is applied', spec: { pvReclaimPolicy: 'Delete' }, claims: [claim('Bound', 'pv-1')], policy: 'Retain' as const, patched: ['Delete'] },
    { name: 'a pending claim has no volume to patch', spec: {}, claims: [claim('Pending')], policy: 'Delete' as const, patched: [] },
  ])('$name', ({ spec, claims, policy, patched }) => {
    // Act
    const plan = planTidbDashboard(dashboardSnap(dashboard(spec), { claims, volumes: [pv(policy)] }));

    // Assess
    const patches = plan.actions.filter((a) => a.kind === 'patch');
    expect(patches.map((p) => (p.kind === 'patch' ? (p.patch as { spec: { persistentVolumeReclaimPolicy: string } }).spec.persistentVolumeReclaimPolicy : ''))).toEqual(patched);
    for (const p of patches) expect(p).toMatchObject({ ref: { kind: 'PersistentVolume', name: 'pv-1' }, resourceVersion: '5' });
  });
});
