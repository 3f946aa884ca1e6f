import { describe, expect, it } from '@jest/globals';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { planTidbServerLabels, SERVER_LABELS_ANNOTATION, serverLabelNodeNames } from '../../../../../lib/reconcile/components/tidb/server-labels.js';
import { changeSpec, changeStatus, pdViewOf, ruleInputOf, snapshot, tidbCluster, withCluster, withOwned, withPd, type Change } from '../../../../support/fixtures.js';
import { tidbInputOf, tidbPod, tidbSetOf } from '../../../../support/tidb-rules.js';
import { testNode, withNodes } from '../../../../support/tikv-rules.js';

const NODE_A = testNode('node-a', { 'topology.kubernetes.io/zone': 'us-west-2a', 'kubernetes.io/hostname': 'node-a', rack: 'r1' });
const NODE_B = testNode('node-b', { 'topology.kubernetes.io/zone': 'us-west-2b', 'kubernetes.io/hostname': 'node-b', rack: 'r2' });

/** Members of `status.tidb` with the given health, by ordinal. */
const members = (...health: boolean[]): Change<TidbCluster> =>
  changeStatus((s) => ({ ...s, tidb: { phase: 'Normal', members: Object.fromEntries(health.map((h, i) => [`basic-tidb-${i}`, { name: `basic-tidb-${i}`, health: h }])) } }));
const version = (v: string): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, version: v }));

/** A running TiDB pod on `node`, its `tidb` container restarted `restarts` times, with what the annotation says was posted. */
function server(ordinal: number, node: string, o: { restarts?: number; posted?: { restartCount: number; locationLabels: string[] } | string; deleting?: boolean } = {}): IPod {
  const pod = tidbPod(ordinal, { node, ...(o.deleting === true ? { deleting: true } : {}) });
  const annotation: Record<string, string> = o.posted === undefined ? {} : { [SERVER_LABELS_ANNOTATION]: typeof o.posted === 'string' ? o.posted : JSON.stringify(o.posted) };
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations: annotation },
    status: { ...pod.status, containerStatuses: [{ name: 'tidb', image: 'pingcap/tidb:v8.5.0', imageID: '', ready: true, restartCount: o.restarts ?? 0 }] },
  };
}

function world(tc: TidbCluster, locationLabels: string[], pods: IPod[], ...changes: Change<Snapshot>[]): Snapshot {
  const view = pdViewOf([]);
  const pd = { ...view, config: { replication: { maxReplicas: 3, locationLabels } } };
  return snapshot(withCluster(tc), withPd(pd), withOwned('StatefulSet', tidbSetOf(tc)), withOwned('Pod', ...pods), withNodes(NODE_A, NODE_B), ...changes);
}

const ZONE_HOST = ['zone', 'host'];
const postsOf = (s: Snapshot) => planTidbServerLabels(tidbInputOf(ruleInputOf(s))).actions.map((a) => (a.kind === 'tidb.setLabels' ? [a.pod, a.labels] : [a.kind]));

describe('TiDB server labels (v1 setServerLabels, §2.4), once per process', () => {
  it.each<{ name: string; s: Snapshot; expected: unknown[] }>([
    {
      name: "each healthy member gets its node's location labels plus zone",
      s: world(tidbCluster(members(true, true)), ZONE_HOST, [server(0, 'node-a'), server(1, 'node-b')]),
      expected: [
        ['basic-tidb-0', { zone: 'us-west-2a', host: 'node-a' }],
        ['basic-tidb-1', { zone: 'us-west-2b', host: 'node-b' }],
      ],
    },
    {
      name: 'a Kubernetes zone key among the location labels is read by its own name, and copied to zone',
      s: world(tidbCluster(members(true)), ['topology.kubernetes.io/zone', 'rack'], [server(0, 'node-a')]),
      expected: [['basic-tidb-0', { 'topology.kubernetes.io/zone': 'us-west-2a', rack: 'r1', zone: 'us-west-2a' }]],
    },
    { name: 'TiDB below 6.3.0: nothing', s: world(tidbCluster(members(true), version('v6.2.0')), ZONE_HOST, [server(0, 'node-a')]), expected: [] },
    { name: 'TiDB at 6.3.0: posted', s: world(tidbCluster(members(true), version('v6.3.0')), ZONE_HOST, [server(0, 'node-a')]), expected: [['basic-tidb-0', { zone: 'us-west-2a', host: 'node-a' }]] },
    { name: 'a tag that is no version: nothing (as v1, which skips it)', s: world(tidbCluster(members(true), version('my-build')), ZONE_HOST, [server(0, 'node-a')]), expected: [] },
    { name: 'no zone key among the location labels: nothing', s: world(tidbCluster(members(true)), ['rack', 'host'], [server(0, 'node-a')]), expected: [] },
    { name: 'an unhealthy member: nothing', s: world(tidbCluster(members(false)), ZONE_HOST, [server(0, 'node-a')]), expected: [] },
    {
      name: 'already posted to this container instance for these location labels: nothing',
      s: world(tidbCluster(members(true)), ZONE_HOST, [server(0, 'node-a', { restarts: 2, posted: { restartCount: 2, locationLabels: ZONE_HOST } })]),
      expected: [],
    },
    {
      name: 'posted before the container restarted: posted again',
      s: world(tidbCluster(members(true)), ZONE_HOST, [server(0, 'node-a', { restarts: 3, posted: { restartCount: 2, locationLabels: ZONE_HOST } })]),
      expected: [['basic-tidb-0', { zone: 'us-west-2a', host: 'node-a' }]],
    },
    {
      name: 'posted for other location labels: posted again',
      s: world(tidbCluster(members(true)), ['zone', 'rack'], [server(0, 'node-a', { posted: { restartCount: 0, locationLabels: ZONE_HOST } })]),
      expected: [['basic-tidb-0', { zone: 'us-west-2a', rack: 'r1' }]],
    },
    { name: 'an annotation that is not ours to read: posted again', s: world(tidbCluster(members(true)), ZONE_HOST, [server(0, 'node-a', { posted: 'not json' })]), expected: [['basic-tidb-0', { zone: 'us-west-2a', host: 'node-a' }]] },
    { name: 'a pod being deleted: nothing', s: world(tidbCluster(members(true)), ZONE_HOST, [server(0, 'node-a', { deleting: true })]), expected: [] },
    { name: 'the node was not read: nothing', s: world(tidbCluster(members(true)), ZONE_HOST, [server(0, 'node-x')]), expected: [] },
    { name: 'PD not read: nothing', s: world(tidbCluster(members(true)), ZONE_HOST, [server(0, 'node-a')], withPd(undefined, 'PD down')), expected: [] },
  ])('$name', ({ s, expected }) => {
    // Act / Assess
    expect(postsOf(s)).toEqual(expected);
  });

  it('a post carries its Warning for a refusal and, for success only, the annotation naming the restart count and location labels', () => {
    // Prepare
    const s = world(tidbCluster(members(true)), ZONE_HOST, [server(0, 'node-a', { restarts: 4 })]);

    // Act
    const [action] = planTidbServerLabels(tidbInputOf(ruleInputOf(s))).actions;

    // Assess
    expect(action).toEqual({
      kind: 'tidb.setLabels',
      pod: 'basic-tidb-0',
      labels: { zone: 'us-west-2a', host: 'node-a' },
      onError: {
        kind: 'event',
        type: 'Warning',
        reason: 'FailedSetServerLabels',
        message: 'failed to set server labels {"zone":"us-west-2a","host":"node-a"} for TiDB pod demo/basic-tidb-0: ',
        object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
      },
      onSuccess: {
        kind: 'patch',
        ref: { kind: 'Pod', namespace: 'demo', name: 'basic-tidb-0' },
        patchType: 'merge',
        patch: { metadata: { annotations: { [SERVER_LABELS_ANNOTATION]: '{"restartCount":4,"locationLabels":["zone","host"]}' } } },
        resourceVersion: '7',
      },
    });
  });

  it.each<{ name: string; healthy: string[]; pods: IPod[]; expected: string[] }>([
    { name: 'the nodes of healthy servers still to be labelled', healthy: ['basic-tidb-0', 'basic-tidb-1'], pods: [server(0, 'node-a'), server(1, 'node-b')], expected: ['node-a', 'node-b'] },
    { name: 'none at rest: every running server has its labels', healthy: ['basic-tidb-0'], pods: [server(0, 'node-a', { posted: { restartCount: 0, locationLabels: ZONE_HOST } })], expected: [] },
    { name: 'none for an unhealthy server', healthy: [], pods: [server(0, 'node-a')], expected: [] },
  ])('the observer reads $name', ({ healthy, pods, expected }) => {
    // Act
    const names = serverLabelNodeNames(tidbCluster(), { ...pdViewOf([]), config: { replication: { maxReplicas: 3, locationLabels: ZONE_HOST } } }, pods, (pod) => healthy.includes(pod));

    // Assess
    expect(names).toEqual(expected);
  });
});
