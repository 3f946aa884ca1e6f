/**
 * TiKV's `gc.ratio-threshold = -1` while a PiTR Restore into the cluster is pending (v1's TiKV member
 * manager, lib/reconcile/components/tikv/pitr-gc.ts): which Restores count, the ConfigMap written in
 * place under the name its plain config gives (no roll), the overlay gone once none is pending, kept
 * as the live ConfigMap has it when the Restores were not read; and the exporter waking the cluster.
 */
import { describe, expect, it } from '@jest/globals';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';

import { clusterKeyOfPitrRestore } from '../../../lib/exporter/cluster-key.js';
import type { KubeObject } from '../../../lib/kube/port.js';
import type { TidbCluster } from '../../../lib/model/kube.js';
import { tikvComponent } from '../../../lib/reconcile/components/tikv/recipe.js';
import { CONFIG_OVERLAY_KEY, isPendingPitrRestoreFor, wantsPitrGcOverlay } from '../../../lib/reconcile/components/tikv/pitr-gc.js';
import { parseTomlText } from '../../../lib/reconcile/member/config-data.js';
import { planConfigMapObject } from '../../../lib/reconcile/member/config-map.js';
import { snapshot, tidbCluster } from '../../support/fixtures.js';

const restore = (spec: Record<string, unknown>, status?: Record<string, unknown>, namespace = 'demo'): KubeObject =>
  ({ apiVersion: 'pingcap.com/v1alpha1', kind: 'Restore', metadata: { name: 'r', namespace }, spec, ...(status ? { status } : {}) }) as KubeObject;
const pitr = (br: Record<string, unknown>) => ({ restoreMode: 'pitr', pitrRestoredTs: '2026-01-01 00:05:00', br });

describe('which Restores keep gc.ratio-threshold at -1', () => {
  const tc = tidbCluster();
  it.each([
    { name: 'a new PiTR Restore naming the cluster and its namespace', r: restore(pitr({ cluster: 'basic', clusterNamespace: 'demo' })), want: true },
    { name: 'running', r: restore(pitr({ cluster: 'basic', clusterNamespace: 'demo' }), { phase: 'Running' }), want: true },
    { name: 'Complete', r: restore(pitr({ cluster: 'basic', clusterNamespace: 'demo' }), { phase: 'Complete', conditions: [{ type: 'Complete', status: 'True' }] }), want: false },
    { name: 'Failed (condition only)', r: restore(pitr({ cluster: 'basic', clusterNamespace: 'demo' }), { conditions: [{ type: 'Failed', status: 'True' }] }), want: false },
    { name: 'a snapshot Restore', r: restore({ br: { cluster: 'basic', clusterNamespace: 'demo' } }), want: false },
    { name: 'another cluster', r: restore(pitr({ cluster: 'other', clusterNamespace: 'demo' })), want: false },
    { name: 'another namespace named', r: restore(pitr({ cluster: 'basic', clusterNamespace: 'prod' })), want: false },
    { name: 'from another namespace, naming this one', r: restore(pitr({ cluster: 'basic', clusterNamespace: 'demo' }), undefined, 'ops'), want: true },
    { name: 'clusterNamespace empty: the Restore\'s own namespace (v1 never matches it)', r: restore(pitr({ cluster: 'basic' })), want: true },
    { name: 'clusterNamespace empty, the Restore elsewhere', r: restore(pitr({ cluster: 'basic' }), undefined, 'ops'), want: false },
    { name: 'no br', r: restore({ restoreMode: 'pitr' }), want: false },
  ])('$name: $want', ({ r, want }) => {
    expect(isPendingPitrRestoreFor(r, tc)).toBe(want);
  });

  it.each([
    { name: 'read, one pending', pending: ['demo/r'], live: undefined, want: true },
    { name: 'read, none pending, live has it', pending: [], live: { [CONFIG_OVERLAY_KEY]: 'x' }, want: false },
    { name: 'not read, live has it: kept', pending: undefined, live: { [CONFIG_OVERLAY_KEY]: 'x' }, want: true },
    { name: 'not read, live without: not added', pending: undefined, live: { 'config-file': '' }, want: false },
  ] as { name: string; pending: string[] | undefined; live: Record<string, string> | undefined; want: boolean }[])('overlay wanted, $name: $want', ({ pending, live, want }) => {
    expect(wantsPitrGcOverlay(pending, live)).toBe(want);
  });
});

describe('the TiKV ConfigMap with the overlay', () => {
  const gcOf = (cm: IConfigMap): unknown => (parseTomlText(cm.data?.['config-file'] ?? '') as { gc?: { 'ratio-threshold'?: unknown } }).gc?.['ratio-threshold'];
  const rolling = (c: TidbCluster): TidbCluster => ({ ...c, spec: { ...c.spec, configUpdateStrategy: 'RollingUpdate', tikv: { ...c.spec.tikv, config: { 'storage': { 'reserve-space': '0MB' } } } } as TidbCluster['spec'] });

  it.each([
    { name: 'InPlace', tc: tidbCluster() },
    { name: 'RollingUpdate', tc: rolling(tidbCluster()) },
  ])('$name: added in place under the same name while pending, removed in place after', ({ tc }) => {
    // Prepare: the ConfigMap as written without any Restore, and a StatefulSet mounting it.
    const plain = planConfigMapObject(tikvComponent, tc, [], undefined, snapshot((s) => ({ ...s, pendingPitrRestores: [] }))).configMap;
    const name = plain.metadata?.name ?? '';
    const set = { metadata: { name: 'basic-tikv' }, spec: { template: { spec: { volumes: [{ name: 'config', configMap: { name } }] } } } } as never;

    // Act
    const pending = planConfigMapObject(tikvComponent, tc, [plain], set, snapshot((s) => ({ ...s, pendingPitrRestores: ['demo/r'] }))).configMap;
    const unknown = planConfigMapObject(tikvComponent, tc, [pending], set, snapshot()).configMap;
    const done = planConfigMapObject(tikvComponent, tc, [pending], set, snapshot((s) => ({ ...s, pendingPitrRestores: [] }))).configMap;

    // Assess
    expect(gcOf(plain)).toBeUndefined();
    expect(plain.data?.[CONFIG_OVERLAY_KEY]).toBeUndefined();
    expect(pending.metadata?.name).toBe(name);
    expect(gcOf(pending)).toBe(-1);
    expect(parseTomlText(pending.data?.[CONFIG_OVERLAY_KEY] ?? '')).toEqual({ gc: { 'ratio-threshold': -1 } });
    expect(unknown.data).toEqual(pending.data);
    expect(done.metadata?.name).toBe(name);
    expect(done.data).toEqual(plain.data);
  });

  it('keeps the user\'s other TiKV keys beside the overlay', () => {
    const tc = tidbCluster((c) => ({ ...c, spec: { ...c.spec, tikv: { ...c.spec.tikv, config: { gc: { 'enable-compaction-filter': true }, raftstore: { 'capacity': '10GB' } } } } as TidbCluster['spec'] }));
    const cm = planConfigMapObject(tikvComponent, tc, [], undefined, snapshot((s) => ({ ...s, pendingPitrRestores: ['demo/r'] }))).configMap;
    expect(parseTomlText(cm.data?.['config-file'] ?? '')).toMatchObject({ gc: { 'enable-compaction-filter': true, 'ratio-threshold': -1 }, raftstore: { capacity: '10GB' } });
  });
});

describe('a PiTR Restore event wakes the cluster it restores into', () => {
  it.each([
    { name: 'named namespace', r: restore(pitr({ cluster: 'fresh', clusterNamespace: 'demo' }), undefined, 'ops'), want: 'eks/demo/fresh' },
    { name: 'no clusterNamespace: the Restore\'s', r: restore(pitr({ cluster: 'fresh' }), undefined, 'ops'), want: 'eks/ops/fresh' },
    { name: 'a snapshot Restore: none', r: restore({ br: { cluster: 'fresh' } }), want: undefined },
    { name: 'no cluster: none', r: restore(pitr({})), want: undefined },
  ])('$name', ({ r, want }) => {
    expect(clusterKeyOfPitrRestore(r, 'eks')).toBe(want);
  });
});
