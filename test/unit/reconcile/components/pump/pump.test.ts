import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../../../../lib/model/action.js';
import type { TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import type { PumpNodeView, PumpView } from '../../../../../lib/model/ticdc.js';
import { isPumpAvailable } from '../../../../../lib/reconcile/components/pump/availability.js';
import { pumpRules } from '../../../../../lib/reconcile/components/pump/recipe.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { T0, changeStatus, snapshot, testPod, testPvc, tidbCluster, withCluster, withOwned, withSpec, type Change } from '../../../../support/fixtures.js';
import { memberWorld, type MemberSetOptions } from '../../../../support/member-world.js';

const DEFER = 'tidb.pingcap.com/pvc-defer-deleting';
const pumpSpec = (replicas: number, extra: Record<string, unknown> = {}) => withSpec({ pump: { baseImage: 'pingcap/tidb-binlog', replicas, requests: { storage: '1Gi' }, ...extra } });
const node = (i: number, state: string): PumpNodeView => ({ nodeId: `basic-pump-${i}:8250`, host: `basic-pump-${i}.basic-pump:8250`, state });
const withPump =
  (view: PumpView): Change<Snapshot> =>
  (s) => ({ ...s, components: { ...s.components, pump: { ...s.components.pump, view } } });
const pod = (i: number, o: { ready?: boolean; readySinceMs?: number } = {}) => testPod(`basic-pump-${i}`, { component: 'pump', revision: 'rev-1', claims: [`data-basic-pump-${i}`], ...o });
const pvc = (i: number) => ({ ...testPvc(`data-basic-pump-${i}`, `basic-pump-${i}`), metadata: { ...testPvc(`data-basic-pump-${i}`, `basic-pump-${i}`).metadata, labels: { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/component': 'pump', 'tidb.pingcap.com/pod-name': `basic-pump-${i}` } } });

const describeAction = (a: Action): string => {
  if (a.kind === 'update') return `update ${a.ref.name} replicas=${String((a.object as IStatefulSet).spec?.replicas)}`;
  if (a.kind === 'patch') return `patch ${a.ref.name}${JSON.stringify(a.patch).includes(DEFER) ? ' defer-deleting' : ''}`;
  if (a.kind === 'pump.offline') return `pump.offline ${a.nodeId}`;
  return a.kind;
};

/** Pump 3 → 2 (the world built by the rules at 3), the registry as `nodes`. */
function scaleIn(nodes: PumpNodeView[] | undefined, o: { set?: MemberSetOptions; pod2?: ReturnType<typeof pod>; status?: TidbClusterStatus } = {}): Snapshot {
  const world = memberWorld(pumpRules, tidbCluster(pumpSpec(3)), { replicas: 3, ...o.set });
  const tc = tidbCluster(pumpSpec(2), changeStatus((s) => ({ ...s, ...o.status })));
  const view: PumpView = nodes === undefined ? { nodes: undefined, detail: 'no Pump pod answered /status' } : { nodes };
  return snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod(0), pod(1), o.pod2 ?? pod(2)), withOwned('PersistentVolumeClaim', pvc(0), pvc(1), pvc(2)), withPump(view));
}

describe('Pump scale-in takes the node offline first (as TiDB Operator pump_scaler)', () => {
  it.each([
    { name: 'online: the node is taken offline, replicas kept', snap: scaleIn([node(0, 'online'), node(1, 'online'), node(2, 'online')]), expected: ['pump.offline basic-pump-2:8250'] },
    { name: 'closing: wait for it to be offline', snap: scaleIn([node(0, 'online'), node(1, 'online'), node(2, 'closing')]), expected: [] },
    { name: 'offline: its PVC is marked defer-deleting and replicas drop to 2', snap: scaleIn([node(0, 'online'), node(1, 'online'), node(2, 'offline')]), expected: ['patch data-basic-pump-2 defer-deleting', 'update basic-pump replicas=2'] },
    { name: 'the StatefulSet not at rest (3 wanted, 2 running): wait', snap: scaleIn([node(2, 'online')], { set: { statusReplicas: 2 } }), expected: [] },
    { name: 'the registry could not be read: wait', snap: scaleIn(undefined), expected: [] },
    { name: 'no node for the pod, pod Ready: wait', snap: scaleIn([node(0, 'online'), node(1, 'online')]), expected: [] },
    {
      name: 'no node for the pod, not Ready for 5 × the 30 s resync: it goes',
      snap: scaleIn([node(0, 'online'), node(1, 'online')], { pod2: pod(2, { ready: false, readySinceMs: T0 - 150_000 }) }),
      expected: ['patch data-basic-pump-2 defer-deleting', 'update basic-pump replicas=2'],
    },
    {
      name: 'PD upgrading: the node goes offline, but the StatefulSet is not written',
      snap: scaleIn([node(0, 'online'), node(1, 'online'), node(2, 'offline')], { status: { pd: { phase: 'Upgrade' } } }),
      expected: ['patch data-basic-pump-2 defer-deleting'],
    },
  ])('$name', ({ snap, expected }) => {
    // Act
    const plan = planStep(snap, pumpRules);
    // Assess
    expect(plan.actions.filter((a) => a.kind !== 'updateStatus').map(describeAction)).toEqual(expected);
    expect(plan.outcome.kind).toBe('retry'); // every row scales or waits to: it looks again
    expect(plan.status?.pump?.phase).toBe('Normal'); // never Scale, as TiDB Operator
  });
});

describe('Pump objects and status, as TiDB Operator builds them', () => {
  it('creates the headless <tc>-pump, pump-config and an OrderedReady StatefulSet rolled natively', () => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(pumpSpec(1, { config: { gc: 7 } })))), pumpRules);
    // Assess
    const created = plan.actions.flatMap((a) => (a.kind === 'create' ? [a.object] : []));
    expect(created.map((o) => `${o.kind}/${o.metadata.name ?? ''}`)).toEqual(['Service/basic-pump', 'ConfigMap/basic-pump', 'StatefulSet/basic-pump']);
    expect(created[1]).toMatchObject({ data: { 'pump-config': 'gc = 7\n' } });
    const sts = created[2] as IStatefulSet;
    expect(sts.spec).toMatchObject({ serviceName: 'basic-pump', podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'RollingUpdate' }, volumeClaimTemplates: [{ metadata: { name: 'data' } }] });
    expect(sts.spec?.updateStrategy?.rollingUpdate).toBeUndefined();
    const container = sts.spec?.template.spec?.containers[0];
    expect(container).toMatchObject({ name: 'pump', image: 'pingcap/tidb-binlog:v8.5.0', readinessProbe: { tcpSocket: { port: 8250 } } });
    expect(container?.command?.[2]).toContain('-advertise-addr=`echo ${HOSTNAME}`.basic-pump:8250');
    expect(container?.command?.[2]).toContain('tail -f /dev/null');
  });

  it('a new pod template is written whole (no partition): the StatefulSet controller rolls the pods', () => {
    // Prepare: applied with gc = 7, spec now says gc = 5 (RollingUpdate config: a new ConfigMap name)
    const world = memberWorld(pumpRules, tidbCluster(pumpSpec(1, { config: { gc: 7 }, configUpdateStrategy: 'RollingUpdate' })));
    const s = snapshot(withCluster(tidbCluster(pumpSpec(1, { config: { gc: 5 }, configUpdateStrategy: 'RollingUpdate' }))), ...world.changes, withOwned('Pod', pod(0)), withPump({ nodes: [node(0, 'online')] }));
    // Act
    const plan = planStep(s, pumpRules);
    // Assess
    const update = plan.actions.find((a) => a.kind === 'update');
    const spec = update?.kind === 'update' ? (update.object as IStatefulSet).spec : undefined;
    expect(spec?.updateStrategy).toEqual({ type: 'RollingUpdate' });
    expect(spec?.template.spec?.volumes?.find((v) => v.name === 'config')?.configMap?.name).not.toBe('basic-pump');
  });

  it.each([
    { name: 'the registry read: members as it lists them', view: { nodes: [node(0, 'online'), node(1, 'offline')] } as PumpView, members: [node(0, 'online'), node(1, 'offline')] },
    { name: 'the registry not read: members as last seen', view: { nodes: undefined, detail: 'no Pump pod answered' } as PumpView, members: [node(0, 'online')] },
  ])('status: $name', ({ view, members }) => {
    const world = memberWorld(pumpRules, tidbCluster(pumpSpec(1)));
    const tc = tidbCluster(pumpSpec(1), changeStatus((s) => ({ ...s, pump: { members: [node(0, 'online')] } })));
    const plan = planStep(snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod(0)), withPump(view)), pumpRules);
    expect(plan.status?.pump?.members).toEqual(members);
  });

  it.each([
    { name: 'one member online: available', status: { pump: { members: [node(0, 'offline'), node(1, 'online')] } }, available: true },
    { name: 'no member online: not available', status: { pump: { members: [node(0, 'offline')] } }, available: false },
    { name: 'suspended: not available', status: { pump: { phase: 'Suspend', members: [node(0, 'online')] } }, available: false },
  ])('PumpIsAvailable: $name', ({ status, available }) => {
    expect(isPumpAvailable(tidbCluster(), status)).toBe(available);
  });
});
