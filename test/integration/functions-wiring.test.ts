/**
 * The adapters behind the step engine's ports, against the simulated TiDB world over HTTP:
 * `LiveObserver` reads one label-selected LIST per kind and PD into the snapshot's view, and
 * `LiveExecutor` runs actions with preconditions and verification, recording Events once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';

import type { RemoteAction } from '../../lib/model/action.js';
import { OWNED_KINDS } from '../../lib/kube/port.js';
import { allObjects } from '../../lib/model/snapshot.js';
import { ConflictError, TerminalError, TransientError } from '../../lib/platform/errors.js';
import { configMapObject, tidbClusterObject } from '../../lib/sim/tidb/manifests.js';
import { ApiServerClients } from '../../lib/wiring/clients.js';
import { LiveExecutor } from '../../lib/wiring/executor.js';
import { ObservedIndex } from '../../lib/wiring/observed.js';
import { LiveObserver } from '../../lib/wiring/observer.js';
import { handCluster, startWorld, waitForHealthyPd, waitForUpStores, type World } from './tidb-harness.js';

const REF = { k8sCluster: 'sim', namespace: 'demo', name: 'basic' };
const KEY = 'sim/demo/basic';

let w: World;
let observer: LiveObserver;
let executor: LiveExecutor;

const live = () => new AbortController().signal;
const observe = (ref = REF, signal = live(), fence = 7) => observer.observe({ key: `sim/${ref.namespace}/${ref.name}`, ref, fence, nowMs: w.clock.nowMs(), signal });
const execute = (action: RemoteAction, fence = 7) => executor.execute({ key: KEY, ref: REF, action, fence, signal: live() });
const verbs = (verb: string) => w.actions.filter((a) => a.verb === verb);
/** The kinds the observer lists (every owned kind but Events, which no rule reads). */
const OBSERVED_KINDS = OWNED_KINDS.filter((kind): kind is Exclude<typeof kind, 'Event'> => kind !== 'Event');
/** The cluster's Events with `reason`, as the API server holds them. */
const eventsWith = (reason: string) => w.world.store.list('Event', 'demo', (e) => e['reason'] === reason);

beforeAll(async () => {
  w = await startWorld();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(JSON.stringify(w.world.kubeconfig('demo')));
  const clients = ApiServerClients.fromKubeConfig(kubeConfig, w.clock);
  const index = new ObservedIndex();
  observer = new LiveObserver(clients, index);
  executor = new LiveExecutor(clients, index);
  await w.deploy(handCluster({ ticdc: 2 }), ['tidbcluster', 'discovery', 'pd', 'tikv', 'tidb', 'ticdc']);
  await waitForHealthyPd(w, 3);
  await waitForUpStores(w, 3);
  await w.waitFor('two TiCDC captures', async () => (await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures')).json?.length === 2);
}, 120_000);

afterAll(async () => {
  await w.stop();
});

describe('LiveObserver', () => {
  it('reads the TidbCluster, one LIST per owned kind (discovery included) and PD with ids as strings; member readiness only while PD rolls out', async () => {
    // Act
    const observation = await observe();

    // Assess
    expect(observation.cluster?.metadata?.name).toBe('basic');
    const counts = Object.fromEntries(OBSERVED_KINDS.map((kind) => [kind, allObjects(observation, kind).length]));
    expect(counts).toEqual(expect.objectContaining({ StatefulSet: 4, Deployment: 1, Service: 6, ConfigMap: 4, Pod: 10, PersistentVolumeClaim: 6 }));
    const pdObjects = Object.fromEntries(Object.entries(observation.components.pd.objects).map(([kind, items]) => [kind, items.length]));
    expect(pdObjects).toEqual(expect.objectContaining({ StatefulSet: 1, Service: 2, ConfigMap: 1, Pod: 3, PersistentVolumeClaim: 3, Deployment: 0 }));
    const pd = observation.components.pd.view;
    expect(observation.components.pd.error).toBeUndefined();
    // At rest nothing reads readiness, so it is not asked (the upgrade is its one reader).
    expect(pd?.members.map((m) => `${m.name}:${m.health}:${m.ready}`).sort()).toEqual(['basic-pd-0:true:undefined', 'basic-pd-1:true:undefined', 'basic-pd-2:true:undefined']);
    expect(pd?.members.every((m) => /^\d+$/.test(m.id) && BigInt(m.id) > 2n ** 53n)).toBe(true);
    expect(pd?.members.map((m) => m.name)).toContain(pd?.leader?.name);
    expect(pd?.stores.map((s) => s.state)).toEqual(['Up', 'Up', 'Up']);
    expect(pd?.stores.every((s) => typeof s.id === 'string' && s.lastHeartbeatAtMs !== undefined)).toBe(true);
    expect(pd?.storesRead).toBe(true);
    expect(pd?.config?.replication.maxReplicas).toBe(3);
    expect(pd?.schedulers).toEqual([]);
    expect(pd?.clusterId).toMatch(/^\d+$/);
  });

  it('while PD rolls out (status phase Upgrade) each member is asked for its readiness', async () => {
    // Prepare
    const status = '/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters/basic/status';
    expect((await w.api('PATCH', status, { status: { pd: { phase: 'Upgrade' } } })).status).toBe(200);
    try {
      // Act
      const pd = (await observe()).components.pd.view;

      // Assess
      expect(pd?.members.map((m) => `${m.name}:${m.ready}`).sort()).toEqual(['basic-pd-0:true', 'basic-pd-1:true', 'basic-pd-2:true']);
    } finally {
      await w.api('PATCH', status, { status: { pd: { phase: null } } });
    }
  });

  it('at rest (the TidbCluster still the verified uid and generation) it skips what only discovery reads; otherwise it reads everything', async () => {
    // Prepare
    const tc = (await w.object('TidbCluster', 'basic')).json as { metadata: { uid: string; generation: number } };
    const at = (generation: number) => observer.observe({ key: KEY, ref: REF, fence: 7, nowMs: w.clock.nowMs(), signal: live(), verified: { uid: tc.metadata.uid, generation } });

    // Act
    const rest = await at(tc.metadata.generation);
    const changed = await at(tc.metadata.generation + 1);

    // Assess
    const counts = (o: typeof rest) => Object.fromEntries(['Deployment', 'Role', 'RoleBinding', 'ServiceAccount', 'Service', 'Pod'].map((kind) => [kind, allObjects(o, kind as (typeof OBSERVED_KINDS)[number]).length]));
    expect(rest.reads).toBe('rest');
    expect(counts(rest)).toEqual({ Deployment: 0, Role: 0, RoleBinding: 0, ServiceAccount: 0, Service: 6, Pod: 10 });
    expect(changed.reads).toBeUndefined();
    // The hand-built world has discovery's Deployment but not its RBAC objects.
    expect(counts(changed)).toEqual({ Deployment: 1, Role: 0, RoleBinding: 0, ServiceAccount: 0, Service: 6, Pod: 10 });
  });

  it('lists only objects labelled with the cluster instance and managed-by tidb-operator', async () => {
    // Prepare
    await w.create('ConfigMap', configMapObject(handCluster({}, { name: 'other' }), 'pd'));

    // Act
    const observation = await observe();

    // Assess
    expect(allObjects(observation, 'ConfigMap').map((c) => c.metadata?.name).sort()).toEqual(['basic-pd', 'basic-ticdc', 'basic-tidb', 'basic-tikv']);
  });

  it('a TidbCluster that does not exist is observed as absent, owning nothing', async () => {
    // Act
    const observation = await observe({ ...REF, name: 'gone' });

    // Assess
    const none = { objects: expect.objectContaining({ Pod: [], StatefulSet: [] }), view: undefined };
    expect(observation).toEqual({ cluster: undefined, owned: expect.objectContaining({ Pod: [], StatefulSet: [] }), components: { pd: none, tiflash: none, tidb: none, pump: none, ticdc: none, tiproxy: none } });
  });

  it('a PD that cannot be reached is a fact (its error), not an observe failure', async () => {
    // Prepare
    await w.create('TidbCluster', tidbClusterObject(handCluster({}, { name: 'pd-down' })));

    // Act
    const observation = await observe({ ...REF, name: 'pd-down' });

    // Assess
    expect(observation.cluster?.metadata?.name).toBe('pd-down');
    expect(observation.components.pd.view).toBeUndefined();
    expect(observation.components.pd.error).toEqual(expect.stringContaining('PD'));
    expect(observation.components.pd.errorKind).toBe('unreachable');
  });

  it('a step whose budget has run out observes nothing and says why', async () => {
    // Prepare
    const budget = new AbortController();
    budget.abort(new TransientError('step time budget exhausted (safety margin reached)'));

    // Act
    const run = observe(REF, budget.signal);

    // Assess
    await expect(run).rejects.toThrow('step time budget exhausted');
  });
});

describe('LiveExecutor', () => {
  it('deleting a PD member that PD no longer lists is done without calling PD', async () => {
    // Act
    await execute({ kind: 'pd.deleteMember', name: 'basic-pd-9' });

    // Assess
    expect(verbs('pd.deleteMember')).toEqual([]);
  });

  it('moves PD leadership to the member asked for', async () => {
    // Prepare
    const before = (await observe()).components.pd.view;
    const to = before?.members.find((m) => m.name !== before.leader?.name)?.name ?? '';

    // Act
    await execute({ kind: 'pd.transferLeader', to });
    await w.clock.advance(2_000);

    // Assess
    expect((await observe()).components.pd.view?.leader?.name).toBe(to);
  });

  it('an update under a stale resourceVersion is a conflict, never an overwrite', async () => {
    // Prepare
    const cm = (await w.object('ConfigMap', 'basic-tidb')).json;
    await w.edit('ConfigMap', 'basic-tidb', (o) => (o.data['config-file'] = 'newer'));

    // Act
    const run = execute({ kind: 'update', ref: { kind: 'ConfigMap', namespace: 'demo', name: 'basic-tidb' }, object: { ...cm, data: { 'config-file': 'stale' } }, resourceVersion: cm.metadata.resourceVersion });

    // Assess
    await expect(run).rejects.toBeInstanceOf(ConflictError);
    expect((await w.object('ConfigMap', 'basic-tidb')).json.data['config-file']).toBe('newer');
  });

  it.each([
    { name: 'a merge patch without the observed resourceVersion is refused before it is sent', action: { kind: 'patch', ref: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' }, patchType: 'merge', patch: { spec: { paused: true } } } as const, field: 'resourceVersion' },
    { name: 'a delete without a uid or resourceVersion precondition is refused before it is sent', action: { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tidb-0' } } as const, field: 'uid' },
    { name: 'a Pod delete with its uid but no resourceVersion is refused before it is sent', action: { kind: 'delete', ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tidb-0' }, uid: 'uid-basic-tidb-0' } as const, field: 'resourceVersion' },
  ])('$name', async ({ action, field }) => {
    // Prepare
    const before = w.world.server.requestCounts.get(action.kind === 'patch' ? 'PATCH' : 'DELETE') ?? 0;

    // Act
    const run = execute(action);

    // Assess
    await expect(run).rejects.toEqual(expect.objectContaining({ constructor: TerminalError, field }));
    expect(w.world.server.requestCounts.get(action.kind === 'patch' ? 'PATCH' : 'DELETE') ?? 0).toBe(before);
  });

  it('deleting an object that is already gone is done', async () => {
    // Act
    const run = execute({ kind: 'delete', ref: { kind: 'ConfigMap', namespace: 'demo', name: 'never-was' }, uid: 'uid-never-was' });

    // Assess
    await expect(run).resolves.toBeUndefined();
  });

  it('an Event is recorded once per observed version of its object, and the next observe lists it', async () => {
    // Prepare
    const event = { kind: 'event', type: 'Warning', reason: 'PDMemberUnhealthy', message: 'basic-pd-1 is unhealthy', object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } } as const;

    // Act: the same occurrence from two steps (a retried step has another fence and observes again).
    await observe(REF, live(), 8);
    await execute(event, 8);
    await observe(REF, live(), 9);
    await execute(event, 9);

    // Assess
    const events = eventsWith('PDMemberUnhealthy');
    expect(events).toHaveLength(1);
    expect(events[0]?.['involvedObject']).toEqual(expect.objectContaining({ kind: 'TidbCluster', name: 'basic', uid: expect.any(String) }));
  });

  it('an Event reported once is recorded only while no recent Event has its reason and message, reading the Events once per step', async () => {
    // Prepare
    const object = { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } as const;
    const once = (message: string) => ({ kind: 'event', type: 'Warning', reason: 'FailedScaleIn', message, object, once: true }) as const;
    const eventLists = () => w.world.server.requestCounts.get('GET') ?? 0;
    await observe(REF, live(), 20);

    // Act: one step reports two conditions twice each; a later step (a new observation) reports the first again.
    const before = eventLists();
    for (const action of [once('first'), once('second'), once('first'), once('second')]) await execute(action, 20);
    const oneStep = eventLists() - before;
    await observe(REF, live(), 21);
    await execute(once('first'), 21);

    // Assess
    expect(eventsWith('FailedScaleIn').map((e) => e['message']).sort()).toEqual(['first', 'second']);
    expect(oneStep).toBe(1);
  });

  it('a step that reports no Event reads none', async () => {
    // Prepare
    const paths: string[] = [];
    const hook = w.world.server.requestHook;
    w.world.server.requestHook = (method, path) => (paths.push(`${method} ${path}`), hook?.(method, path));

    // Act
    try {
      await observe(REF, live(), 30);
      await execute({ kind: 'event', type: 'Normal', reason: 'Probe', message: 'recorded by name', object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } }, 30);
    } finally {
      w.world.server.requestHook = hook;
    }

    // Assess
    expect(paths.filter((p) => p.startsWith('GET')).length).toBeGreaterThan(3);
    expect(paths.filter((p) => p.endsWith('/events'))).toEqual(['POST /api/v1/namespaces/demo/events']);
  });
});

describe('LiveExecutor: PD store calls against the simulated PD', () => {
  const pdView = async () => (await observe()).components.pd.view;

  it('an evict-leader scheduler is added (twice is still done) and removed (a missing one is done too)', async () => {
    // Act
    await execute({ kind: 'pd.beginEvictLeader', storeId: '1' });
    await execute({ kind: 'pd.beginEvictLeader', storeId: '1' });
    const during = (await pdView())?.schedulers;
    await execute({ kind: 'pd.endEvictLeader', storeId: '1' });
    await execute({ kind: 'pd.endEvictLeader', storeId: '1' });

    // Assess
    expect(during).toContain('evict-leader-scheduler-1');
    expect((await pdView())?.schedulers).not.toContain('evict-leader-scheduler-1');
  });

  it('store labels are set on the store', async () => {
    // Act
    await execute({ kind: 'pd.setStoreLabels', storeId: '2', labels: { zone: 'zone-test' } });

    // Assess
    expect((await pdView())?.stores.find((s) => s.id === '2')?.labels).toEqual(expect.objectContaining({ zone: 'zone-test' }));
  });

  it('deleting a store PD does not list is done without a DELETE', async () => {
    // Prepare
    const before = verbs('pd.deleteStore').length;

    // Act
    await execute({ kind: 'pd.deleteStore', storeId: '99' });

    // Assess
    expect(verbs('pd.deleteStore')).toHaveLength(before);
  });
});
