import { describe, expect, it } from '@jest/globals';
import { readyAsAsked } from '../../lib/local/rolled-out.js';
import { VirtualClock } from '../../lib/platform/clock.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { CRD_KIND } from '../../lib/sim/crd/registry.js';
import { tidbClusterCrd } from '../../lib/sim/crd/tidbcluster.js';
import { ObjectStore } from '../../lib/sim/store.js';

type StsState = { image?: string; current?: string; update?: string; updated?: number; ready?: number; observed?: number; replicas?: number };

const READY = { type: 'Ready', status: 'True' };

function world(o: { conditions?: object[]; pd?: StsState | 'missing'; tikv?: StsState; tiproxy?: StsState; spec?: Record<string, unknown>; statusBehind?: boolean }): { store: ObjectStore; tc: KubeObject } {
  const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  store.create(CRD_KIND, tidbClusterCrd());
  store.create('Namespace', { metadata: { name: 'demo' } });
  const sets = ([['pd', o.pd ?? {}], ['tikv', o.tikv], ['tiproxy', o.tiproxy]] as const).flatMap(([component, state]) => {
    if (state === undefined || state === 'missing') return [];
    const replicas = state.replicas ?? 3;
    const status = { replicas, observedGeneration: state.observed ?? 1, currentRevision: state.current ?? 'r1', updateRevision: state.update ?? 'r1', updatedReplicas: state.updated ?? replicas, readyReplicas: state.ready ?? replicas };
    return [{ component, replicas, status, image: state.image ?? `pingcap/${component}:v8.5.0` }];
  });
  // The TidbCluster's status shows each StatefulSet as it is, unless the reconciler's sync is behind.
  const mirrored = Object.fromEntries(sets.map((x) => [x.component, { statefulSet: o.statusBehind ? { ...x.status, readyReplicas: 0 } : x.status }]));
  const spec = { version: 'v8.5.0', pd: { replicas: 3 }, ...(o.tikv ? { tikv: { replicas: 3 } } : {}), ...o.spec };
  const tc = store.create('TidbCluster', { metadata: { name: 'basic', namespace: 'demo' }, spec, status: { ...mirrored, conditions: o.conditions ?? [READY] } }, { keepStatus: true });
  for (const x of sets) {
    store.create(
      'StatefulSet',
      {
        metadata: { name: `basic-${x.component}`, namespace: 'demo' },
        spec: { replicas: x.replicas, selector: { matchLabels: { c: x.component } }, template: { metadata: { labels: { c: x.component } }, spec: { containers: [{ name: x.component, image: x.image }] } } },
        status: x.status,
      },
      { keepStatus: true },
    );
  }
  return { store, tc };
}

describe('waitFor ready: Ready as asked, not only Ready=True', () => {
  it.each([
    { name: 'Ready and every StatefulSet rolled out to the asked image', o: {}, why: undefined },
    { name: 'Ready is not True', o: { conditions: [{ type: 'Ready', status: 'False' }] }, why: 'Ready is not True' },
    { name: 'the StatefulSet still runs the old image (the reconciler has not written the new one)', o: { tikv: { image: 'pingcap/tikv:v8.1.0' } }, why: 'StatefulSet demo/basic-tikv runs pingcap/tikv:v8.1.0, the TidbCluster asks for pingcap/tikv:v8.5.0' },
    { name: 'a rollout in progress (current revision behind)', o: { pd: { current: 'r1', update: 'r2', updated: 1 } }, why: 'StatefulSet demo/basic-pd at revision r1, not its update revision r2' },
    { name: 'replicas updated but one not ready', o: { pd: { ready: 2 } }, why: 'StatefulSet demo/basic-pd has 3 updated and 2 ready of 3 replicas' },
    { name: 'a generation the controller has not observed', o: { pd: { observed: 0 } }, why: 'StatefulSet demo/basic-pd generation 1 not observed yet (observed 0)' },
    { name: 'a component without its StatefulSet', o: { pd: 'missing' as const }, why: 'StatefulSet demo/basic-pd does not exist' },
    { name: 'a component image of its own', o: { spec: { pd: { replicas: 3, image: 'my/pd:x' } }, pd: { image: 'my/pd:x' } }, why: undefined },
    { name: 'the TidbCluster\'s status does not show the StatefulSet as it is yet', o: { statusBehind: true }, why: 'status.pd.statefulSet.readyReplicas does not show StatefulSet demo/basic-pd yet' },
    {
      name: "TiProxy's base image wins over its image, as v1 runs it",
      o: { spec: { tiproxy: { replicas: 3, baseImage: 'pingcap/tiproxy', version: 'v1.2.0', image: 'my/proxy:x' } }, tiproxy: { image: 'pingcap/tiproxy:v1.2.0' } },
      why: undefined,
    },
    {
      name: 'TiProxy still on its old version',
      o: { spec: { tiproxy: { replicas: 3, baseImage: 'pingcap/tiproxy', version: 'v1.3.0' } }, tiproxy: { image: 'pingcap/tiproxy:v1.2.0' } },
      why: 'StatefulSet demo/basic-tiproxy runs pingcap/tiproxy:v1.2.0, the TidbCluster asks for pingcap/tiproxy:v1.3.0',
    },
    { name: 'a suspended StatefulSet is not judged', o: { spec: { pd: { replicas: 3, suspendAction: { suspendStatefulSet: true } } }, pd: 'missing' as const }, why: undefined },
  ])('$name', ({ o, why }) => {
    // Prepare
    const { store, tc } = world(o);
    // Act
    const verdict = readyAsAsked(store, tc);
    // Assess
    expect(verdict).toEqual(why === undefined ? { ready: true } : { ready: false, why });
  });

  it('a TidbCluster that does not exist is not ready', () => {
    expect(readyAsAsked(new ObjectStore(new VirtualClock(0)), undefined)).toEqual({ ready: false, why: 'the TidbCluster does not exist' });
  });
});
