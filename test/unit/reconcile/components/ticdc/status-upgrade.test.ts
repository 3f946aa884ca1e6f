import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IService } from 'kubernetes-models/v1/Service';

import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import type { TicdcCaptureView, TicdcView } from '../../../../../lib/model/ticdc.js';
import { ticdcRules } from '../../../../../lib/reconcile/components/ticdc/recipe.js';
import { isGracefulUpgradeSupported } from '../../../../../lib/reconcile/components/ticdc/upgrade.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { ruleNames } from '../../../../../lib/reconcile/engine/rule.js';
import { T0, changeStatus, snapshot, withDeadlines, testPod, tidbCluster, withCluster, withOwned, withSpec, type Change } from '../../../../support/fixtures.js';
import { memberWorld } from '../../../../support/member-world.js';

const ticdcOnly = (replicas: number, extra: Record<string, unknown> = {}) =>
  withSpec({ pd: undefined, tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas, ...extra } });
const capture = (pod: string, isOwner = false, version = 'v8.5.0'): TicdcCaptureView => ({ podName: pod, ready: true, id: `cap-${pod.slice(-1)}`, version, isOwner });
const withTicdc =
  (view: Partial<TicdcView>): Change<Snapshot> =>
  (s) => ({ ...s, components: { ...s.components, ticdc: { ...s.components.ticdc, view: { captures: {}, drains: {}, ...view } } } });
const pod = (name: string, revision = 'rev-1', ready = true) => testPod(name, { component: 'ticdc', revision, ready });

describe('TiCDC objects, as TiDB Operator builds them', () => {
  it('runs the member recipe with its drain-deadline bookkeeping', () => {
    expect(ruleNames(ticdcRules)).toContain('act:TicdcDrainDeadlines');
  });

  it.each([
    { name: 'no config: no ConfigMap, no config volume, no --config', extra: {}, configMap: false },
    { name: 'a config: ConfigMap config-file mounted as /etc/ticdc/ticdc.toml', extra: { config: { 'gc-ttl': 3600 } }, configMap: true },
  ])('$name', ({ extra, configMap }) => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(ticdcOnly(2, extra)))), ticdcRules);
    // Assess
    const created = plan.actions.flatMap((a) => (a.kind === 'create' ? [a.object] : []));
    expect(created.map((o) => `${o.kind}/${o.metadata.name ?? ''}`)).toEqual(['Service/basic-ticdc-peer', ...(configMap ? ['ConfigMap/basic-ticdc'] : []), 'StatefulSet/basic-ticdc']);
    const svc = created[0] as IService;
    expect(svc.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true, ports: [{ name: 'ticdc', port: 8301 }] });
    const sts = created.at(-1) as IStatefulSet;
    expect(sts.spec).toMatchObject({ replicas: 2, serviceName: 'basic-ticdc-peer', podManagementPolicy: 'Parallel', updateStrategy: { rollingUpdate: { partition: 2 } }, volumeClaimTemplates: [] });
    const container = sts.spec?.template.spec?.containers[0];
    expect(container?.command?.[2]).toContain('--advertise-addr=${TICDC_POD_NAME}.basic-ticdc-peer.demo.svc:8301');
    expect(container?.command?.[2]).toContain('--pd=http://basic-pd:2379');
    expect(container?.command?.[2]?.includes('--config=/etc/ticdc/ticdc.toml')).toBe(configMap);
    expect((sts.spec?.template.spec?.volumes ?? []).some((v) => v.name === 'config')).toBe(configMap);
  });
});

describe('TiCDC status from captures (as TiDB Operator syncTiCDCStatus)', () => {
  const world = memberWorld(ticdcRules, tidbCluster(ticdcOnly(2)));
  it.each([
    { name: 'every pod answered: captures ready, synced', captures: { 'basic-ticdc-0': capture('basic-ticdc-0', true), 'basic-ticdc-1': capture('basic-ticdc-1') }, replicas: 2, synced: true, wake: false },
    {
      name: 'a Ready pod whose capture did not answer: not ready, not synced, looked at again soon',
      captures: { 'basic-ticdc-0': capture('basic-ticdc-0', true), 'basic-ticdc-1': { podName: 'basic-ticdc-1', ready: false as const, detail: 'HTTP 503' } },
      replicas: 2,
      synced: false,
      wake: true,
    },
    { name: 'more captures than spec.replicas while scaling in: not synced, and the phase is still not Scale', captures: { 'basic-ticdc-0': capture('basic-ticdc-0', true), 'basic-ticdc-1': capture('basic-ticdc-1') }, replicas: 1, synced: false, wake: false },
  ])('$name', ({ captures, replicas, synced, wake }) => {
    // Prepare
    const s = snapshot(withCluster(tidbCluster(ticdcOnly(replicas))), ...world.changes, withOwned('Pod', pod('basic-ticdc-0'), pod('basic-ticdc-1')), withTicdc({ captures }));
    // Act
    const plan = planStep(s, ticdcRules);
    // Assess
    const ticdc = plan.status?.ticdc;
    expect(ticdc?.phase).toBe('Normal');
    expect(ticdc?.synced).toBe(synced);
    expect(Object.keys(ticdc?.captures ?? {})).toEqual(['basic-ticdc-0', 'basic-ticdc-1']);
    expect(ticdc?.captures?.['basic-ticdc-0']).toEqual({ podName: 'basic-ticdc-0', id: 'cap-0', version: 'v8.5.0', isOwner: true, ready: true });
    expect(plan.nextWakeAtMs !== undefined).toBe(wake);
  });
});

describe('TiCDC graceful upgrade (as TiDB Operator isTiCDCPodSupportGracefulUpgrade)', () => {
  it.each([
    { name: 'same version drains', pod: 'v6.1.0', target: 'v6.1.0', supported: true },
    { name: '6.3.0 or later to less than two majors ahead drains', pod: 'v6.5.0', target: 'v7.5.1', supported: true },
    { name: 'two majors ahead does not', pod: 'v6.5.0', target: 'v8.0.0', supported: false },
    { name: 'a pod before 6.3.0 changing version does not', pod: 'v6.1.0', target: 'v6.5.0', supported: false },
    { name: 'a version that cannot be read still tries', pod: 'nightly', target: 'v8.5.0', supported: true },
  ])('$name', ({ pod: podVersion, target, supported }) => {
    expect(isGracefulUpgradeSupported(podVersion, target)).toBe(supported);
  });

  // An upgrade in progress: the new template is applied (rev-2), basic-ticdc-2 is next to roll.
  const upgrading = (captures: Record<string, TicdcCaptureView>, drains: TicdcView['drains'], began = true) => {
    const tc = tidbCluster(ticdcOnly(3, { version: 'v8.5.1' }), changeStatus((st) => ({ ...st, ticdc: { phase: 'Upgrade', synced: true } })));
    const world = memberWorld(ticdcRules, tc, { revision: 'rev-1', updateRevision: 'rev-2' });
    const p2 = pod('basic-ticdc-2');
    const annotated = began ? { ...p2, metadata: { ...p2.metadata, annotations: { 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time': new Date(T0 - 5_000).toISOString() } } } : p2;
    const deadline = { component: 'ticdc', member: 'basic-ticdc-2', kind: 'gracefulShutdown', sinceMs: T0 - 5_000, deadlineAtMs: T0 + 595_000 };
    return snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod('basic-ticdc-0'), pod('basic-ticdc-1'), annotated), withTicdc({ captures, drains }), withDeadlines(...(began ? [deadline] : [])));
  };
  const kinds = (s: Snapshot) => planStep(s, ticdcRules).actions.map((a) => (a.kind === 'update' ? `update ${((a.object as IStatefulSet).spec?.updateStrategy?.rollingUpdate?.partition ?? '-').toString()}` : a.kind));
  const three = (owner: number) => Object.fromEntries([0, 1, 2].map((i) => [`basic-ticdc-${i}`, capture(`basic-ticdc-${i}`, i === owner)]));
  const drained = (count: number) => ({ 'basic-ticdc-2': { kind: 'tables' as const, count } });

  it.each([
    { name: 'the pod to roll is drained first', captures: three(0), drains: drained(4), expected: [] },
    { name: 'the pod to roll resigns first when it is the owner', captures: three(2), drains: {}, expected: ['ticdc.resignOwner'] },
    { name: 'drained: the owner resigns from the pod that rolls next', captures: three(1), drains: drained(0), expected: ['ticdc.resignOwner'] },
    { name: 'drained and the owner elsewhere: the partition moves to 2', captures: three(0), drains: drained(0), expected: ['update 2'] },
  ])('$name', ({ captures, drains, expected }) => {
    expect(kinds(upgrading(captures, drains))).toEqual(expected);
  });

  it('with two captures the next pod keeps the ownership (it would only come back to the pod that rolls)', () => {
    // Prepare: TiCDC 2, basic-ticdc-1 drained, basic-ticdc-0 the owner
    const tc = tidbCluster(ticdcOnly(2, { version: 'v8.5.1' }), changeStatus((st) => ({ ...st, ticdc: { phase: 'Upgrade', synced: true } })));
    const world = memberWorld(ticdcRules, tc, { revision: 'rev-1', updateRevision: 'rev-2' });
    const p1 = pod('basic-ticdc-1');
    const began = { ...p1, metadata: { ...p1.metadata, annotations: { 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time': new Date(T0 - 5_000).toISOString() } } };
    const deadline = { component: 'ticdc', member: 'basic-ticdc-1', kind: 'gracefulShutdown', sinceMs: T0 - 5_000, deadlineAtMs: T0 + 595_000 };
    const captures = { 'basic-ticdc-0': capture('basic-ticdc-0', true), 'basic-ticdc-1': capture('basic-ticdc-1') };
    const s = snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod('basic-ticdc-0'), began), withTicdc({ captures, drains: { 'basic-ticdc-1': { kind: 'tables', count: 0 } } }), withDeadlines(deadline));
    // Act, Assess
    expect(kinds(s)).toEqual(['update 1']);
  });

  it('a pod whose drain has not begun gets its begin annotation before anything rolls', () => {
    expect(kinds(upgrading(three(0), {}, false))).toEqual(['patch', 'state.putDeadline']);
  });

  it('waits while TiDB (or PD, TiKV, TiFlash, Pump) scales or upgrades', () => {
    const tc = tidbCluster(ticdcOnly(2, { version: 'v8.5.1' }), changeStatus((st) => ({ ...st, tidb: { phase: 'Upgrade' } })));
    const world = memberWorld(ticdcRules, tidbCluster(ticdcOnly(2)));
    const plan = planStep(snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod('basic-ticdc-0'), pod('basic-ticdc-1'))), ticdcRules);
    expect(plan.actions).toEqual([]);
    expect(plan.ruleResults.find((r) => r.rule === 'TicdcUpgrade')?.outcome).toEqual({ kind: 'complete', message: 'TiDB is upgrading: the upgrade waits' });
  });
});
