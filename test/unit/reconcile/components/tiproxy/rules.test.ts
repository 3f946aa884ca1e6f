import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import type { TiproxyHealthView } from '../../../../../lib/model/tiproxy.js';
import { tiproxyRules } from '../../../../../lib/reconcile/components/tiproxy/recipe.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { T0, changeStatus, snapshot, testPod, tidbCluster, withCluster, withOwned, withSpec, type Change } from '../../../../support/fixtures.js';
import { memberWorld, type MemberSetOptions } from '../../../../support/member-world.js';

const tiproxyOnly = (replicas: number, extra: Record<string, unknown> = {}) =>
  withSpec({ pd: undefined, tikv: undefined, tidb: undefined, tiproxy: { baseImage: 'pingcap/tiproxy', version: 'v1.2.0', replicas, ...extra } });
const healthy = (podName: string): TiproxyHealthView => ({ podName, healthy: true, info: '{"config_checksum":1}' });
const unhealthy = (podName: string): TiproxyHealthView => ({ podName, healthy: false, detail: 'HTTP 502: server is not ready' });
const withHealth =
  (...members: TiproxyHealthView[]): Change<Snapshot> =>
  (s) => ({ ...s, components: { ...s.components, tiproxy: { ...s.components.tiproxy, view: { members: Object.fromEntries(members.map((m) => [m.podName, m])) } } } });
const pod = (i: number, o: { revision?: string; ready?: boolean; readySinceMs?: number } = {}) => testPod(`basic-tiproxy-${i}`, { component: 'tiproxy', revision: 'rev-1', ...o });
const messageOf = (plan: ReturnType<typeof planStep>, rule: string): string | undefined => {
  const outcome = plan.ruleResults.find((r) => r.rule === rule)?.outcome;
  return outcome !== undefined && 'message' in outcome ? outcome.message : undefined;
};
const setWrites = (s: Snapshot): IStatefulSet[] => planStep(s, tiproxyRules).actions.flatMap((a) => (a.kind === 'update' && a.ref.kind === 'StatefulSet' ? [a.object as IStatefulSet] : []));

/** TiProxy asked for `spec` replicas, the world built at `world.replicas`, its pods and health as given. */
function tiproxyWorld(spec: number, o: { set?: MemberSetOptions; pods?: ReturnType<typeof pod>[]; health?: TiproxyHealthView[]; status?: TidbClusterStatus; extra?: Record<string, unknown>; annotations?: Record<string, string> } = {}): Snapshot {
  const world = memberWorld(tiproxyRules, tidbCluster(tiproxyOnly(o.set?.replicas ?? spec)), o.set);
  const tc = tidbCluster(tiproxyOnly(spec, o.extra), changeStatus((s) => ({ ...s, ...o.status })), (t) => ({ ...t, metadata: { ...t.metadata, annotations: o.annotations ?? {} } }));
  return snapshot(withCluster(tc), ...world.changes, withOwned('Pod', ...(o.pods ?? [])), withHealth(...(o.health ?? [])));
}

describe('TiProxy status, as v1.6 syncStatus', () => {
  it.each([
    { name: 'replicas as asked, every pod healthy: Normal, all members healthy', snap: tiproxyWorld(2, { pods: [pod(0), pod(1)], health: [healthy('basic-tiproxy-0'), healthy('basic-tiproxy-1')] }), phase: 'Normal', health: [true, true], wake: false },
    { name: 'a Ready pod not healthy yet: its member unhealthy, looked at again soon', snap: tiproxyWorld(2, { pods: [pod(0), pod(1)], health: [healthy('basic-tiproxy-0'), unhealthy('basic-tiproxy-1')] }), phase: 'Normal', health: [true, false], wake: true },
    { name: 'a member whose pod is gone is listed, not healthy', snap: tiproxyWorld(2, { pods: [pod(0)], health: [healthy('basic-tiproxy-0')] }), phase: 'Normal', health: [true, false], wake: false },
    { name: 'spec replicas differ from the StatefulSet: Scale', snap: tiproxyWorld(3, { set: { replicas: 2 }, pods: [pod(0), pod(1)], health: [healthy('basic-tiproxy-0'), healthy('basic-tiproxy-1')] }), phase: 'Scale', health: [true, true], wake: false },
    { name: 'a pod on the old revision: Upgrade', snap: tiproxyWorld(2, { set: { updateRevision: 'rev-2' }, pods: [pod(0), pod(1)], health: [healthy('basic-tiproxy-0'), healthy('basic-tiproxy-1')] }), phase: 'Upgrade', health: [true, true], wake: false },
  ])('$name', ({ snap, phase, health, wake }) => {
    // Act
    const plan = planStep(snap, tiproxyRules);
    // Assess
    const status = plan.status?.tiproxy;
    expect(status?.phase).toBe(phase);
    expect(status?.synced).toBe(true);
    expect(Object.values(status?.members ?? {}).map((m) => m.health)).toEqual(health);
    expect(status?.members?.['basic-tiproxy-0']?.info).toBe('{"config_checksum":1}');
    const woken = messageOf(plan, 'TiproxyStatus')?.includes('looking again') === true;
    expect(woken).toBe(wake);
  });

  it('a member keeps its lastTransitionTime while its health stays, and takes a new one when it changes', () => {
    // Prepare: the member was healthy since an hour ago
    const since = new Date(T0 - 3_600_000).toISOString().replace('.000Z', 'Z');
    const before: TidbClusterStatus = { tiproxy: { members: { 'basic-tiproxy-0': { name: 'basic-tiproxy-0', health: true, lastTransitionTime: since }, 'basic-tiproxy-1': { name: 'basic-tiproxy-1', health: true, lastTransitionTime: since } } } };
    // Act
    const plan = planStep(tiproxyWorld(2, { pods: [pod(0), pod(1)], health: [healthy('basic-tiproxy-0'), unhealthy('basic-tiproxy-1')], status: before }), tiproxyRules);
    // Assess
    const members = plan.status?.tiproxy?.members ?? {};
    expect(members['basic-tiproxy-0']?.lastTransitionTime).toBe(since);
    expect(members['basic-tiproxy-1']?.lastTransitionTime).not.toBe(since);
  });
});

describe('TiProxy scale, as v1.6 tiproxy_scaler (one pod per step; nothing to do before a pod goes)', () => {
  it.each([
    { name: 'out 2 → 4: replicas 3 this step', spec: 4, from: 2, replicas: [3], message: 'scaling TiProxy out to 3' },
    { name: 'in 3 → 1: replicas 2 this step, no call before the pod goes', spec: 1, from: 3, replicas: [2], message: 'scaling TiProxy in to 2' },
    { name: 'in 1 → 0: replicas 0', spec: 0, from: 1, replicas: [0], message: 'scaling TiProxy in to 0' },
    { name: 'as asked: no write', spec: 2, from: 2, replicas: [], message: undefined },
  ])('$name', ({ spec, from, replicas, message }) => {
    // Prepare
    const pods = Array.from({ length: from }, (_, i) => pod(i));
    // Act
    const plan = planStep(tiproxyWorld(spec, { set: { replicas: from }, pods, health: pods.map((p) => healthy(p.metadata?.name ?? '')) }), tiproxyRules);
    // Assess
    expect(plan.actions.flatMap((a) => (a.kind === 'update' && a.ref.kind === 'StatefulSet' ? [(a.object as IStatefulSet).spec?.replicas] : []))).toEqual(replicas);
    expect(plan.actions.filter((a) => a.kind !== 'update' && a.kind !== 'updateStatus')).toEqual([]);
    expect(messageOf(plan, 'TiproxyScale')).toBe(message);
  });
});

describe('TiProxy upgrade, as v1.6 tiproxy_upgrader', () => {
  const newVersion = { version: 'v1.3.0' };
  it('a new version is written with the partition at replicas (nothing rolls yet)', () => {
    const [write] = setWrites(tiproxyWorld(2, { pods: [pod(0), pod(1)], health: [healthy('basic-tiproxy-0'), healthy('basic-tiproxy-1')], extra: newVersion, status: { tiproxy: { synced: true } } }));
    expect(write?.spec?.template.spec?.containers[0]?.image).toBe('pingcap/tiproxy:v1.3.0');
    expect(write?.spec?.updateStrategy?.rollingUpdate?.partition).toBe(2);
  });

  it.each([
    { name: 'the highest ordinal rolls first', pods: [pod(0), pod(1)], partition: 1 },
    { name: 'once it is updated and Ready, the next one', pods: [pod(0), pod(1, { revision: 'rev-2' })], partition: 0 },
    { name: 'an updated pod not Ready holds the walk', pods: [pod(0), pod(1, { revision: 'rev-2', ready: false })], partition: undefined, why: 'is not ready' },
    {
      name: 'an updated pod Ready for less than its own min-ready annotation holds the walk',
      pods: [pod(0), pod(1, { revision: 'rev-2', readySinceMs: T0 - 10_000 })],
      annotations: { 'tiproxy.pingcap.com/tiproxy-min-ready-seconds': '60' },
      partition: undefined,
      why: 'is not available',
    },
    {
      name: 'the shared tidb.pingcap.com key is not TiProxy\'s: it does not hold',
      pods: [pod(0), pod(1, { revision: 'rev-2', readySinceMs: T0 - 10_000 })],
      annotations: { 'tidb.pingcap.com/tiproxy-min-ready-seconds': '60' },
      partition: 0,
    },
  ] as { name: string; pods: ReturnType<typeof pod>[]; partition?: number; annotations?: Record<string, string>; why?: string }[])('$name', ({ pods, partition, annotations, why }) => {
    // Prepare: the new template is written, the StatefulSet between rev-1 and rev-2
    const snap = tiproxyWorld(2, { set: { revision: 'rev-1', updateRevision: 'rev-2' }, pods, annotations, health: pods.map((p) => healthy(p.metadata?.name ?? '')) });
    // Act
    const writes = setWrites(snap);
    // Assess: a hold writes nothing and says why
    expect(writes.map((w) => w.spec?.updateStrategy?.rollingUpdate?.partition)).toEqual(partition === undefined ? [] : [partition]);
    if (why !== undefined) expect(messageOf(planStep(snap, tiproxyRules), 'TiproxyUpgrade')).toContain(`tiproxy upgraded pod: [basic-tiproxy-1] ${why}`);
  });

  it('its own scaling goes first and holds the upgrade: the live template is kept while it scales', () => {
    // Prepare: spec asks 3 and a new version, the StatefulSet has 2 — phase Scale
    const snap = tiproxyWorld(3, { set: { replicas: 2 }, pods: [pod(0), pod(1)], health: [healthy('basic-tiproxy-0'), healthy('basic-tiproxy-1')], extra: newVersion, status: { tiproxy: { synced: true } } });
    // Act
    const plan = planStep(snap, tiproxyRules);
    // Assess
    const images = plan.actions.flatMap((a) => (a.kind === 'update' && a.ref.kind === 'StatefulSet' ? [(a.object as IStatefulSet).spec?.template.spec?.containers[0]?.image] : []));
    expect(images.every((i) => i === 'pingcap/tiproxy:v1.2.0')).toBe(true);
    expect(messageOf(plan, 'TiproxyScale')).toBe('scaling TiProxy out to 3');
    expect(plan.ruleResults.map((r) => r.rule)).not.toContain('TiproxyUpgrade');
  });
});
