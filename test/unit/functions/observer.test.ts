/**
 * `LiveObserver` walks its component table: each observed component's objects (by their component
 * label) go under `components[name]` with its API's view or read error; everything else a cluster
 * owns stays cluster-level. `allObjects` gives a kind back whole, in LIST (name) order.
 */
import { describe, expect, it } from '@jest/globals';

import type { KubeObject, ObjectList, OwnedKind } from '../../../lib/kube/port.js';
import type { OwnedObjects } from '../../../lib/model/kube.js';
import { LABEL } from '../../../lib/model/labels.js';
import { allObjects, splitByComponent } from '../../../lib/model/snapshot.js';
import { NO_OWNED_OBJECTS } from '../../../lib/step/ports.js';
import { LiveExecutor } from '../../../lib/wiring/executor.js';
import { ObservedIndex } from '../../../lib/wiring/observed.js';
import { LiveObserver } from '../../../lib/wiring/observer.js';
import type { RestReadStore, StoredRestRead } from '../../../lib/state/rest-reads.js';
import { FakeKube, fakeClients, tidbCluster } from './runtime-fakes.js';

const labelled = (kind: string, name: string, component?: string): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace: 'demo', uid: `uid-${name}`, labels: { [LABEL.instance]: 'basic', [LABEL.managedBy]: 'tidb-operator', ...(component ? { [LABEL.component]: component } : {}) } },
});

/** A Kubernetes port whose owned LISTs return `objects` of the kind asked, in name order. */
class ListingKube extends FakeKube {
  constructor(
    clusters: KubeObject[],
    readonly objects: KubeObject[],
  ) {
    super(clusters);
  }

  /** The kinds listed, in order. */
  readonly listed: (OwnedKind | undefined)[] = [];
  /** How often the PersistentVolumes and the cluster client Secret were read. */
  readonly reads = { volumes: 0, secret: 0 };

  override async listPersistentVolumes(): Promise<ObjectList> {
    this.reads.volumes++;
    return { items: this.objects.filter((o) => o.kind === 'PersistentVolume'), resourceVersion: '1' };
  }

  override hasSecret = async (): Promise<boolean> => {
    this.reads.secret++;
    return true;
  };

  override async listOwned(_namespace?: string, kind?: OwnedKind): Promise<ObjectList> {
    this.listed.push(kind);
    const items = this.objects.filter((o) => o.kind === kind).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    return { items, resourceVersion: '1' };
  }
}

const REQUEST = { key: 'eks/demo/basic', ref: { k8sCluster: 'eks', namespace: 'demo', name: 'basic' }, fence: 1, nowMs: 0 };
const observe = (kube: FakeKube) => new LiveObserver(fakeClients(kube)).observe({ ...REQUEST, signal: new AbortController().signal });

const WORLD = [
  labelled('Pod', 'basic-discovery-x1', 'discovery'),
  labelled('Pod', 'basic-pd-0', 'pd'),
  labelled('Pod', 'basic-tikv-0', 'tikv'),
  labelled('StatefulSet', 'basic-pd', 'pd'),
  labelled('Service', 'basic-discovery', 'discovery'),
  labelled('Service', 'basic-pd', 'pd'),
  labelled('Event', 'basic.1'),
];

const names = (objects: readonly { metadata?: { name?: string } }[]) => objects.map((o) => o.metadata?.name);

describe('LiveObserver: observed per component', () => {
  it('PD\'s objects go under components.pd; discovery\'s and components not observed on their own stay cluster-level; Events are not read', async () => {
    // Act
    const kube = new ListingKube([tidbCluster('basic')], WORLD);
    const observation = await observe(kube);

    // Assess
    expect(names(observation.components.pd.objects.Pod)).toEqual(['basic-pd-0']);
    expect(names(observation.components.pd.objects.StatefulSet)).toEqual(['basic-pd']);
    expect(names(observation.components.pd.objects.Service)).toEqual(['basic-pd']);
    expect(names(observation.owned.Pod)).toEqual(['basic-discovery-x1', 'basic-tikv-0']);
    expect(names(observation.owned.Service)).toEqual(['basic-discovery']);
    expect(Object.keys(observation.owned)).not.toContain('Event');
    expect(kube.listed).toContain('Pod');
    expect(kube.listed).not.toContain('Event');
    expect(names(allObjects(observation, 'Pod'))).toEqual(['basic-discovery-x1', 'basic-pd-0', 'basic-tikv-0']);
  });

  it('a PD that cannot be reached is its component\'s error and kind, with no view', async () => {
    // Act
    const observation = await observe(new ListingKube([tidbCluster('basic')], WORLD));

    // Assess
    expect(observation.components.pd).toEqual(expect.objectContaining({ view: undefined, error: expect.stringContaining('no endpoints available'), errorKind: 'unreachable' }));
  });

  it('a cluster without PD in its spec has PD\'s objects and neither view nor error: nothing was read', async () => {
    // Prepare
    const noPd = tidbCluster('basic');
    delete (noPd.spec as Record<string, unknown>)['pd'];

    // Act
    const observation = await observe(new ListingKube([noPd], WORLD));

    // Assess
    expect(observation.components.pd.view).toBeUndefined();
    expect(observation.components.pd.error).toBeUndefined();
    expect(names(observation.components.pd.objects.Pod)).toEqual(['basic-pd-0']);
  });
});

describe('LiveObserver at rest: what no watch reports comes from the step before, when this process ran it', () => {
  const bound = (claim: string, volume: string): KubeObject => ({ ...labelled('PersistentVolumeClaim', claim, 'pd'), spec: { volumeName: volume } });
  const world = (): KubeObject[] => [
    ...WORLD,
    labelled('ConfigMap', 'basic-pd', 'pd'),
    bound('pd-basic-pd-0', 'pv-0'),
    { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-0', uid: 'uid-pv-0' } },
  ];
  const cluster = (tls = false): KubeObject => {
    const tc = tidbCluster('basic');
    return { ...tc, metadata: { ...tc.metadata, generation: 3 }, spec: { ...tc.spec, ...(tls ? { tlsCluster: { enabled: true } } : {}) } };
  };
  /** An observer and executor sharing one index, as in a warm process; `step(fence, rest)` observes as that step. */
  const warm = (kube: ListingKube) => {
    const index = new ObservedIndex();
    const observer = new LiveObserver(fakeClients(kube), index);
    const executor = new LiveExecutor(fakeClients(kube), index);
    const step = (fence: number, rest = true) =>
      observer.observe({ ...REQUEST, fence, signal: new AbortController().signal, ...(rest ? { verified: { uid: 'uid-basic', generation: 3 } } : {}) });
    const listedSince = (from: number) => kube.listed.slice(from);
    return { executor, step, listedSince };
  };

  it('the step after a full read lists neither Services nor ConfigMaps nor volumes, and sees what that read saw', async () => {
    // Prepare
    const kube = new ListingKube([cluster()], world());
    const { step, listedSince } = warm(kube);
    const full = await step(1, false);
    const before = kube.listed.length;

    // Act
    const rest = await step(2);

    // Assess
    expect(full.reads).toBeUndefined();
    expect(rest.reads).toBe('rest');
    expect(listedSince(before)).not.toContain('Service');
    expect(listedSince(before)).not.toContain('ConfigMap');
    expect(listedSince(before)).toContain('Pod');
    expect(kube.reads.volumes).toBe(1);
    expect(names(allObjects(rest, 'Service'))).toEqual(names(allObjects(full, 'Service')));
    expect(names(allObjects(rest, 'ConfigMap'))).toEqual(['basic-pd']);
    expect(names(rest.volumes ?? [])).toEqual(['pv-0']);
  });

  it('after a step that writes a Service, a step that skipped a fence, a full read or a claim bound anew, they are read again', async () => {
    // Prepare
    const kube = new ListingKube([cluster()], world());
    const { executor, step, listedSince } = warm(kube);
    const servicesListed = async (fence: number, rest = true) => {
      const from = kube.listed.length;
      await step(fence, rest);
      return listedSince(from).includes('Service');
    };
    await step(1, false);

    // Act
    const afterFull = await servicesListed(2);
    await executor.execute({ key: REQUEST.key, ref: REQUEST.ref, fence: 2, signal: new AbortController().signal, action: { kind: 'delete', ref: { kind: 'Service', namespace: 'demo', name: 'basic-pd' }, uid: 'uid-basic-pd' } });
    const afterWrite = await servicesListed(3);
    const afterGap = await servicesListed(5);
    const chained = await servicesListed(6);
    const notAtRest = await servicesListed(7, false);
    const volumesBefore = kube.reads.volumes;
    kube.objects.push(bound('pd-basic-pd-1', 'pv-1'));
    const newClaim = await servicesListed(8);

    // Assess
    expect([afterFull, afterWrite, afterGap, chained, notAtRest, newClaim]).toEqual([false, true, true, false, true, false]);
    expect(kube.reads.volumes).toBe(volumesBefore + 1);
  });

  it('under cluster TLS the client Secret seen by the step before is not asked for again at rest', async () => {
    // Prepare
    const kube = new ListingKube([cluster(true)], world());
    const { step } = warm(kube);

    // Act
    await step(1, false);
    await step(2);
    const atRest = kube.reads.secret;
    await step(3, false);

    // Assess
    expect(atRest).toBe(1);
    expect(kube.reads.secret).toBe(2);
  });
});

describe('LiveObserver health checks: the step before read whole in this process, only the components are read (docs/adr/0024)', () => {
  const cluster = (generation = 3): KubeObject => {
    const tc = tidbCluster('basic');
    return { ...tc, metadata: { ...tc.metadata, generation } };
  };
  /** A kube port that also counts its TidbCluster GETs. */
  class CountingKube extends ListingKube {
    gets = 0;
    override async getTidbCluster(namespace: string, name: string): Promise<KubeObject> {
      this.gets++;
      return super.getTidbCluster(namespace, name);
    }
  }
  const warm = (kube: CountingKube) => {
    const index = new ObservedIndex();
    const observer = new LiveObserver(fakeClients(kube), index);
    const executor = new LiveExecutor(fakeClients(kube), index);
    const step = (fence: number, how: 'full' | 'health', generation = 3) =>
      observer.observe({ ...REQUEST, fence, signal: new AbortController().signal, ...(how === 'health' ? { verified: { uid: 'uid-basic', generation }, health: true } : {}) });
    const asks = () => kube.gets + kube.listed.length + kube.reads.volumes;
    return { executor, step, asks };
  };

  it('a health step after a full read asks the API server nothing and sees what that read saw, at rest', async () => {
    // Prepare
    const kube = new CountingKube([cluster()], WORLD);
    const { step, asks } = warm(kube);
    const full = await step(1, 'full');
    const before = asks();
    // Act
    const health = await step(2, 'health');
    const next = await step(3, 'health');
    // Assess
    expect(asks()).toBe(before);
    expect(health.reads).toBe('rest');
    expect(next.reads).toBe('rest');
    expect(names(allObjects(health, 'Pod'))).toEqual(names(allObjects(full, 'Pod')));
    expect(health.cluster?.metadata.uid).toBe('uid-basic');
    expect(health.components.pd.errorKind).toBe(full.components.pd.errorKind);
  });

  it.each([
    { name: 'the step before wrote to the API server', write: true, fence: 2, generation: 3 },
    { name: 'a step ran elsewhere in between (a fence skipped)', write: false, fence: 3, generation: 3 },
    { name: 'another TidbCluster was verified (generation)', write: false, fence: 2, generation: 4 },
  ])('a health step reads from the API server when $name', async ({ write, fence, generation }) => {
    // Prepare
    const kube = new CountingKube([cluster()], WORLD);
    const { executor, step } = warm(kube);
    await step(1, 'full');
    if (write) await executor.execute({ key: REQUEST.key, ref: REQUEST.ref, fence: 1, signal: new AbortController().signal, action: { kind: 'delete', ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd' }, uid: 'uid-basic-pd' } });
    const gets = kube.gets;
    const listed = kube.listed.length;
    // Act
    await step(fence, 'health', generation);
    // Assess
    expect(kube.gets).toBe(gets + 1);
    expect(kube.listed.length).toBeGreaterThan(listed);
  });
});

describe('LiveObserver health checks in another process: the step before\'s whole read kept in the state table (docs/adr/0024)', () => {
  /** A RestReadStore in memory: what a put keeps, a get gives back (as JSON, as DynamoDB would). */
  class MemoryRestReads implements RestReadStore {
    readonly items = new Map<string, StoredRestRead>();
    gets = 0;
    async get(key: string): Promise<StoredRestRead | undefined> {
      this.gets++;
      const found = this.items.get(key);
      return found === undefined ? undefined : (JSON.parse(JSON.stringify(found)) as StoredRestRead);
    }
    async put(key: string, read: StoredRestRead): Promise<boolean> {
      this.items.set(key, JSON.parse(JSON.stringify(read)) as StoredRestRead);
      return true;
    }
  }
  class CountingKube extends ListingKube {
    gets = 0;
    override async getTidbCluster(namespace: string, name: string): Promise<KubeObject> {
      this.gets++;
      return super.getTidbCluster(namespace, name);
    }
  }
  const tc = (): KubeObject => ({ ...tidbCluster('basic'), metadata: { ...tidbCluster('basic').metadata, generation: 3 } });
  /** Each step in a process of its own: a fresh observer and index, the one store. */
  const inProcess = (kube: CountingKube, store: RestReadStore) => (fence: number, health?: { persistedRead: number; generation?: number }) => {
    const observer = new LiveObserver(fakeClients(kube), new ObservedIndex(), { restReads: store });
    const request = { ...REQUEST, fence, signal: new AbortController().signal, ...(health ? { verified: { uid: 'uid-basic', generation: health.generation ?? 3 }, health: true, persistedRead: health.persistedRead } : {}) };
    return { observer, observed: observer.observe(request) };
  };

  it('a full read is kept under its fence; a health step elsewhere that the state item points at it asks the API server nothing', async () => {
    // Prepare
    const kube = new CountingKube([tc()], WORLD);
    const store = new MemoryRestReads();
    const step = inProcess(kube, store);
    const first = step(1);
    const full = await first.observed;
    const kept = first.observer.persistedRead(REQUEST.key, 1);
    const asked = { gets: kube.gets, listed: kube.listed.length };
    // Act
    const second = step(2, { persistedRead: 1 });
    const health = await second.observed;
    // Assess
    expect(kept).toBe(1);
    expect({ gets: kube.gets, listed: kube.listed.length }).toEqual(asked);
    expect(health.reads).toBe('rest');
    expect(names(allObjects(health, 'Pod'))).toEqual(names(allObjects(full, 'Pod')));
    expect(second.observer.persistedRead(REQUEST.key, 2)).toBe(1);
  });

  it.each([
    { name: 'the state item names another read (a step since wrote or read again)', persistedRead: 7, generation: 3 },
    { name: 'another TidbCluster is verified (generation)', persistedRead: 1, generation: 4 },
  ])('a health step elsewhere reads from the API server when $name', async ({ persistedRead, generation }) => {
    // Prepare
    const kube = new CountingKube([tc()], WORLD);
    const store = new MemoryRestReads();
    const step = inProcess(kube, store);
    await step(1).observed;
    const gets = kube.gets;
    // Act
    await step(2, { persistedRead, generation }).observed;
    // Assess
    expect(store.gets).toBe(1);
    expect(kube.gets).toBe(gets + 1);
  });

  it('a step that writes to the API server stands on no kept read', async () => {
    // Prepare
    const kube = new CountingKube([tc()], WORLD);
    const index = new ObservedIndex();
    const observer = new LiveObserver(fakeClients(kube), index, { restReads: new MemoryRestReads() });
    await observer.observe({ ...REQUEST, fence: 1, signal: new AbortController().signal });
    // Act
    await new LiveExecutor(fakeClients(kube), index).execute({ key: REQUEST.key, ref: REQUEST.ref, fence: 1, signal: new AbortController().signal, action: { kind: 'delete', ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd' }, uid: 'uid-basic-pd' } });
    // Assess
    expect(observer.persistedRead(REQUEST.key, 1)).toBeUndefined();
  });
});

describe('splitByComponent', () => {
  it('loses and repeats nothing, and keeps each kind\'s order', () => {
    // Prepare
    const owned = { ...NO_OWNED_OBJECTS, Pod: WORLD.filter((o) => o.kind === 'Pod') as never[] };

    // Act
    const { rest, byComponent } = splitByComponent(owned, ['pd', 'tikv']);

    // Assess
    expect(names(byComponent.pd.Pod)).toEqual(['basic-pd-0']);
    expect(names(byComponent.tikv.Pod)).toEqual(['basic-tikv-0']);
    expect(names(rest.Pod)).toEqual(['basic-discovery-x1']);
    expect(Object.keys(rest).sort()).toEqual(Object.keys(NO_OWNED_OBJECTS).sort());
  });
});

describe('allObjects', () => {
  it('answers a snapshot once per kind, and a snapshot with other objects anew', () => {
    // Prepare
    const pods = WORLD.filter((o) => o.kind === 'Pod') as never[];
    const { rest, byComponent } = splitByComponent({ ...NO_OWNED_OBJECTS, Pod: pods }, ['pd', 'tidb', 'pump', 'ticdc', 'tiflash', 'tiproxy']);
    const observed = (objects: OwnedObjects) => ({ objects, view: undefined });
    const components = { pd: observed(byComponent.pd), tidb: observed(byComponent.tidb), pump: observed(byComponent.pump), ticdc: observed(byComponent.ticdc), tiflash: observed(byComponent.tiflash), tiproxy: observed(byComponent.tiproxy) };
    const snapshot = { owned: rest, components };

    // Act
    const first = allObjects(snapshot, 'Pod');
    const again = allObjects(snapshot, 'Pod');
    const fewer = allObjects({ ...snapshot, owned: NO_OWNED_OBJECTS }, 'Pod');

    // Assess
    expect(names(first)).toEqual(['basic-discovery-x1', 'basic-pd-0', 'basic-tikv-0']);
    expect(again).toBe(first);
    expect(names(fewer)).toEqual(['basic-pd-0']);
    expect(allObjects(snapshot, 'Service')).toEqual([]);
  });
});

describe('LiveObserver: TiDB Operator, only when the verdict is due', () => {
  /** A port holding one controller manager (its Deployment and Lease), counting what is read of it. */
  class OperatorKube extends ListingKube {
    readonly operatorReads: string[] = [];
    override async listDeployments(namespace?: string, selector?: unknown): Promise<ObjectList> {
      this.operatorReads.push(`list ${namespace ?? '*'} ${String(selector)}`);
      const d: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tidb-controller-manager', namespace: 'tidb-admin' }, spec: { template: { spec: { containers: [{ name: 'c', command: ['tidb-controller-manager', '-cluster-scoped=false'] }] } } }, status: { readyReplicas: 1 } };
      const other: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'some-controller-manager', namespace: 'x' } };
      return { items: [d, other], resourceVersion: '1' };
    }
    override async getLease(namespace = '', name = ''): Promise<KubeObject | undefined> {
      this.operatorReads.push(`get ${namespace}/${name}`);
      return { metadata: { name, namespace }, spec: { holderIdentity: 'pod-1', renewTime: '2026-01-01T00:00:00.000000Z', leaseDurationSeconds: 15 } };
    }
  }
  const withAnnotation = (): KubeObject => {
    const tc = tidbCluster('basic');
    return { ...tc, metadata: { ...tc.metadata, annotations: { 'tidb-reconciler/take-over': 'true' } } };
  };

  it.each([
    { name: 'not asked: nothing read', check: false, cluster: () => tidbCluster('basic'), scope: undefined, reads: [] },
    { name: 'asked: one LIST in every namespace, one GET of the Lease named like the controller manager', check: true, cluster: () => tidbCluster('basic'), scope: undefined, reads: ['list * app.kubernetes.io/component=controller-manager,app.kubernetes.io/name=tidb-operator', 'get tidb-admin/tidb-controller-manager'] },
    { name: 'asked, namespace-scoped: the LIST in the cluster\'s namespace only', check: true, cluster: () => tidbCluster('basic'), scope: 'namespace' as const, reads: ['list demo app.kubernetes.io/component=controller-manager,app.kubernetes.io/name=tidb-operator', 'get tidb-admin/tidb-controller-manager'] },
    { name: 'asked, but the cluster is annotated to take over: nothing read', check: true, cluster: withAnnotation, scope: undefined, reads: [] },
  ])('$name', async ({ check, cluster, scope, reads }) => {
    const kube = new OperatorKube([cluster()], WORLD);
    const observer = new LiveObserver(fakeClients(kube), new ObservedIndex(), scope === undefined ? {} : { operatorScope: scope });
    const observation = await observer.observe({ ...REQUEST, signal: new AbortController().signal, ...(check ? { checkTidbOperator: true as const } : {}) });
    expect(kube.operatorReads).toEqual(reads);
    if (reads.length === 0) expect(observation.tidbOperator).toBeUndefined();
    else
      expect(observation.tidbOperator?.operators).toEqual([
        { namespace: 'tidb-admin', name: 'tidb-controller-manager', readyReplicas: 1, clusterScoped: false, lease: { holderIdentity: 'pod-1', renewTimeMs: Date.UTC(2026, 0, 1), leaseDurationMs: 15_000 } },
      ]);
  });
});
