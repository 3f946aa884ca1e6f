/**
 * `LiveObserver` walks its component table: each observed component's objects (by their component
 * label) go under `components[name]` with its API's view or read error; everything else a cluster
 * owns stays cluster-level. `allObjects` gives a kind back whole, in LIST (name) order.
 */
import { describe, expect, it } from '@jest/globals';

import type { KubeObject, ObjectList, OwnedKind } from '../../../lib/kube/port.js';
import { LABEL } from '../../../lib/model/labels.js';
import { allObjects, splitByComponent } from '../../../lib/model/snapshot.js';
import { NO_OWNED_OBJECTS } from '../../../lib/step/ports.js';
import { LiveObserver } from '../../../lib/wiring/observer.js';
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
    private readonly objects: KubeObject[],
  ) {
    super(clusters);
  }

  /** The kinds listed, in order. */
  readonly listed: (OwnedKind | undefined)[] = [];

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
