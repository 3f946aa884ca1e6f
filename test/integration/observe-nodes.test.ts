/**
 * The observer's read of the Nodes store and server labels come from, against the simulated API
 * server: only when a store label is wanted, one GET per distinct node of a TiKV pod, a vanished node
 * left out; for TiDB, only the nodes of healthy servers whose process still needs its labels.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { IPod } from 'kubernetes-models/v1/Pod';

import { KubeClient } from '../../lib/kube/client.js';
import type { TidbCluster } from '../../lib/model/kube.js';
import { NO_OWNED_OBJECTS } from '../../lib/step/ports.js';
import type { TidbView } from '../../lib/model/tidb.js';
import { SERVER_LABELS_ANNOTATION } from '../../lib/reconcile/components/tidb/server-labels.js';
import { readStoreNodes, serverNodeNames, storeNodeNames } from '../../lib/wiring/observe-nodes.js';
import { type BareServer, startBareServer } from '../support/api-server.js';
import { changeSpec, pdViewOf, tidbCluster } from '../support/fixtures.js';

let s: BareServer;
let kube: KubeClient;
beforeEach(async () => {
  s = await startBareServer();
  kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000 });
});
afterEach(async () => {
  await s.close();
});

const pod = (name: string, component: string, nodeName?: string): IPod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'demo', labels: { 'app.kubernetes.io/component': component } },
  spec: { containers: [], ...(nodeName ? { nodeName } : {}) },
});
const owned = (...pods: IPod[]) => ({ ...NO_OWNED_OBJECTS, Pod: pods });
const located = (labels: string[]) => ({ ...pdViewOf([]), config: { replication: { maxReplicas: 3, locationLabels: labels } } });
const withStoreLabels = (labels: string[]) => changeSpec((spec) => ({ ...spec, tikv: { replicas: 3, storeLabels: labels } }));
const failing = (tc: TidbCluster): TidbCluster => ({
  ...tc,
  status: { ...tc.status, tikv: { failureStores: { '2': { podName: 'basic-tikv-1', storeID: '2', pvcUIDSet: { u: {} } } } } },
});
const pdFailing = (tc: TidbCluster, memberDeleted: boolean): TidbCluster => ({
  ...tc,
  status: { ...tc.status, pd: { failureMembers: { 'basic-pd-0': { podName: 'basic-pd-0', memberID: '7', pvcUIDSet: { u: {} }, memberDeleted } } } },
});
const gets = (): number => s.server.requestCounts.get('GET') ?? 0;
const PODS = owned(pod('basic-tikv-0', 'tikv', 'n1'), pod('basic-tikv-1', 'tikv', 'n2'), pod('basic-tikv-2', 'tikv', 'n1'), pod('basic-tikv-3', 'tikv'), pod('basic-pd-0', 'pd', 'n3'));

describe("reading the nodes of a cluster's TiKV pods for store labels", () => {
  it.each<{ name: string; tc: TidbCluster; pd: ReturnType<typeof located> | undefined; want: string[] | undefined; requests: number; detect?: boolean }>([
    { name: 'no label wanted: nothing is read', tc: tidbCluster(), pd: located([]), want: undefined, requests: 0 },
    { name: 'PD location-labels: one GET per distinct node of a scheduled TiKV pod', tc: tidbCluster(), pd: located(['zone']), want: ['n1', 'n2'], requests: 2 },
    { name: 'spec.tikv.storeLabels alone, PD not read', tc: tidbCluster(withStoreLabels(['rack'])), pd: undefined, want: ['n1', 'n2'], requests: 2 },
    { name: 'no TiKV in the spec: nothing', tc: tidbCluster(changeSpec((spec) => ({ ...spec, tikv: undefined }))), pd: located(['zone']), want: undefined, requests: 0 },
    { name: 'detectNodeFailure: the node of a failure store’s pod is read', tc: failing(tidbCluster()), pd: located([]), want: ['n2'], requests: 1, detect: true },
    { name: 'detectNodeFailure off: a failure store’s node is not read', tc: failing(tidbCluster()), pd: located([]), want: undefined, requests: 0, detect: false },
    { name: 'detectNodeFailure: the node of a PD failure member’s pod is read', tc: pdFailing(tidbCluster(), false), pd: located([]), want: ['n3'], requests: 1, detect: true },
    { name: 'detectNodeFailure: a deleted PD failure member’s node is not read', tc: pdFailing(tidbCluster(), true), pd: located([]), want: undefined, requests: 0, detect: true },
  ])('$name', async ({ tc, pd, want, requests, detect }) => {
    // Prepare
    for (const name of ['n1', 'n2', 'n3']) s.store.create('Node', { metadata: { name, labels: { 'topology.kubernetes.io/zone': `zone-${name}` } } });
    const before = gets();

    // Act
    const nodes = await readStoreNodes(kube, storeNodeNames(tc, PODS, pd, detect), new AbortController().signal);

    // Assess
    expect(nodes?.map((n) => n.metadata?.name)).toEqual(want);
    expect(gets() - before).toBe(requests);
  });

  it('a node deleted meanwhile is left out, not an error', async () => {
    // Prepare
    s.store.create('Node', { metadata: { name: 'n1' } });

    // Act
    const nodes = await readStoreNodes(kube, ['n1', 'gone'], new AbortController().signal);

    // Assess
    expect(nodes?.map((n) => n.metadata?.name)).toEqual(['n1']);
  });
});

describe("reading the nodes of a cluster's TiDB pods for server labels", () => {
  /** A TiDB pod on `nodeName` whose `tidb` container runs, with the server-labels annotation when `posted`. */
  const server = (name: string, nodeName: string, posted?: string[]): IPod => {
    const p = pod(name, 'tidb', nodeName);
    const annotations: Record<string, string> = posted === undefined ? {} : { [SERVER_LABELS_ANNOTATION]: JSON.stringify({ restartCount: 0, locationLabels: posted }) };
    return { ...p, metadata: { ...p.metadata, annotations }, status: { containerStatuses: [{ name: 'tidb', image: 'pingcap/tidb:v8.5.0', imageID: '', ready: true, restartCount: 0 }] } };
  };
  const HEALTHY: TidbView = { servers: { 'basic-tidb-0': { healthy: true }, 'basic-tidb-1': { healthy: true } } };

  it.each<{ name: string; pods: IPod[]; pd: ReturnType<typeof located>; tidb: TidbView | undefined; want: string[] | undefined; requests: number }>([
    { name: 'servers still to be labelled: one GET per distinct node', pods: [server('basic-tidb-0', 'n1'), server('basic-tidb-1', 'n2')], pd: located(['zone', 'host']), tidb: HEALTHY, want: ['n1', 'n2'], requests: 2 },
    { name: 'at rest (every server labelled for these keys): nothing is read', pods: [server('basic-tidb-0', 'n1', ['zone', 'host']), server('basic-tidb-1', 'n2', ['zone', 'host'])], pd: located(['zone', 'host']), tidb: HEALTHY, want: undefined, requests: 0 },
    { name: 'no zone key among the location labels: nothing is read', pods: [server('basic-tidb-0', 'n1')], pd: located(['host']), tidb: HEALTHY, want: undefined, requests: 0 },
    { name: 'TiDB not read: nothing is read', pods: [server('basic-tidb-0', 'n1')], pd: located(['zone']), tidb: undefined, want: undefined, requests: 0 },
    { name: 'an unhealthy server: its node is not read', pods: [server('basic-tidb-0', 'n1')], pd: located(['zone']), tidb: { servers: { 'basic-tidb-0': { healthy: false } } }, want: undefined, requests: 0 },
  ])('$name', async ({ pods, pd, tidb, want, requests }) => {
    // Prepare
    for (const name of ['n1', 'n2']) s.store.create('Node', { metadata: { name, labels: { 'topology.kubernetes.io/zone': `zone-${name}` } } });
    const before = gets();

    // Act
    const nodes = await readStoreNodes(kube, serverNodeNames(tidbCluster(), owned(...pods), pd, tidb), new AbortController().signal);

    // Assess
    expect(nodes?.map((n) => n.metadata?.name)).toEqual(want);
    expect(gets() - before).toBe(requests);
  });
});
