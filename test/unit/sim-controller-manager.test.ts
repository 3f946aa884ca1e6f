import { describe, expect, it } from '@jest/globals';

import type { ActionRecord } from '../../lib/local/scenario/report.js';
import { checkExpectation, takeMark } from '../../lib/local/expect-verbs.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import { SimControllers } from '../../lib/sim/controllers/index.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';
import { ControllerManagerRuntime } from '../../lib/sim/tidb/controller-manager.js';
import { clusterScopedOf } from '../../lib/wiring/observe-operator.js';

const START_MS = Date.UTC(2026, 0, 1);

function operatorDeployment(replicas: number, args: string[] = ['-cluster-scoped=true']): KubeObject {
  const labels = { 'app.kubernetes.io/name': 'tidb-operator', 'app.kubernetes.io/component': 'controller-manager' };
  const env = [{ name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }];
  const container = { name: 'tidb-operator', image: 'pingcap/tidb-operator:v1.6.1', command: ['/usr/local/bin/tidb-controller-manager', ...args], env };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tidb-controller-manager', namespace: 'tidb-admin', labels }, spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container] } } } };
}

function world() {
  const clock = new VirtualClock(START_MS);
  const store = new ObjectStore(clock);
  store.create('Namespace', { metadata: { name: 'tidb-admin' } });
  const runtime = new ControllerManagerRuntime();
  runtime.attach(store, clock);
  const controllers = new SimControllers(store, { podStartupMs: 5000, nodes: 1, runtimes: [runtime] });
  controllers.start();
  const lease = () => store.get('Lease', 'tidb-admin', 'tidb-controller-manager')?.spec as { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } | undefined;
  return { clock, store, lease };
}

describe("the world's TiDB Operator controller manager", () => {
  it('takes its Lease once its pod runs and renews it every 2 s; scaled to 0 it stops renewing, so the Lease expires', async () => {
    const { clock, store, lease } = world();
    store.create('Deployment', operatorDeployment(1));
    await clock.advanceTo(START_MS + 20_000);
    const pod = store.list('Pod', 'tidb-admin')[0];
    expect(lease()).toEqual(expect.objectContaining({ holderIdentity: pod?.metadata.name, leaseDurationSeconds: 15 }));
    expect(START_MS + 20_000 - Date.parse(lease()?.renewTime ?? '')).toBeLessThanOrEqual(2_000);
    const d = store.mustGet('Deployment', 'tidb-admin', 'tidb-controller-manager');
    store.update('Deployment', { ...d, spec: { ...d.spec, replicas: 0 } });
    await clock.advanceTo(START_MS + 120_000);
    expect(store.list('Pod', 'tidb-admin')).toEqual([]);
    expect(START_MS + 120_000 - Date.parse(lease()?.renewTime ?? '')).toBeGreaterThan(15_000);
  });
});

describe('-cluster-scoped as Go flags read it', () => {
  it.each([
    { name: 'absent: the default', args: [], want: true },
    { name: '-cluster-scoped=true', args: ['-cluster-scoped=true'], want: true },
    { name: '--cluster-scoped=false', args: ['--cluster-scoped=false'], want: false },
    { name: '-cluster-scoped alone', args: ['-cluster-scoped'], want: true },
    { name: 'the last one wins', args: ['-cluster-scoped=false', '-cluster-scoped=true'], want: true },
  ])('$name: $want', ({ args, want }) => {
    expect(clusterScopedOf(operatorDeployment(1, args))).toBe(want);
  });
});

describe('expect: against a mark', () => {
  const pod = (name: string, uid: string, restarts: number): KubeObject => ({ metadata: { name, namespace: 'demo', uid }, spec: { containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }] }, status: { containerStatuses: [{ name: 'pd', restartCount: restarts }] } });
  const write = (verb: string, kind: string | undefined, actor: ActionRecord['actor'] = 'reconciler'): ActionRecord => ({ atMs: 1, actor, verb, ...(kind === undefined ? {} : { kind, namespace: 'demo', name: 'x' }) }) as ActionRecord;

  it.each([
    { name: 'the same pods, no restart', after: [pod('a', 'u1', 0)], ok: true },
    { name: 'a container restarted', after: [pod('a', 'u1', 1)], ok: false },
    { name: 'a pod replaced under its name', after: [pod('a', 'u2', 0)], ok: false },
    { name: 'a pod gone', after: [], ok: false },
    { name: 'a new pod beside the kept one', after: [pod('a', 'u1', 0), pod('b', 'u3', 0)], ok: true },
  ])('podsKept: $name → $ok', ({ after, ok }) => {
    const mark = takeMark({ list: () => [pod('a', 'u1', 0)] } as unknown as ObjectStore, 'demo', 0);
    const view = { list: () => after, get: (_k: string, _ns: string, name: string) => after.find((p) => p.metadata.name === name) } as unknown as ObjectStore;
    expect(checkExpectation({ since: 'm', podsKept: true }, mark, view, 'demo', []).ok).toBe(ok);
  });

  it.each([
    { name: 'nothing at all', allowed: [], actions: [], ok: true },
    { name: 'a status write allowed as Kind/status', allowed: ['TidbCluster/status'], actions: [write('updateStatus', 'TidbCluster')], ok: true },
    { name: 'a TidbCluster patch under Kind/status only', allowed: ['TidbCluster/status'], actions: [write('patch', 'TidbCluster')], ok: false },
    { name: 'a StatefulSet update', allowed: ['TidbCluster', 'Event'], actions: [write('update', 'StatefulSet')], ok: false },
    { name: 'an Event when none is allowed', allowed: [], actions: [write('event', undefined)], ok: false },
    { name: 'a PD call', allowed: ['TidbCluster', 'Event'], actions: [write('pd.transferLeader', undefined)], ok: false },
    { name: "the sim's or the timeline's writes", allowed: [], actions: [write('create', 'Pod', 'sim'), write('patch', 'TidbCluster', 'timeline')], ok: true },
  ])('reconcilerWrites: $name → $ok', ({ allowed, actions, ok }) => {
    const mark = { pods: new Map(), actionCount: 0 };
    expect(checkExpectation({ since: 'm', reconcilerWrites: allowed }, mark, {} as ObjectStore, 'demo', actions).ok).toBe(ok);
  });
});
