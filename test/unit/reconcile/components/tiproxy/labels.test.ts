import { describe, expect, it } from '@jest/globals';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { TIPROXY_LABELS_ANNOTATION } from '../../../../../lib/reconcile/components/tiproxy/labels.js';
import { tiproxyRules } from '../../../../../lib/reconcile/components/tiproxy/recipe.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { pdViewOf, snapshot, testPod, tidbCluster, withCluster, withOwned, withPd, withSpec } from '../../../../support/fixtures.js';
import { memberWorld } from '../../../../support/member-world.js';
import { testNode, withNodes } from '../../../../support/tikv-rules.js';

const NODE_A = testNode('node-a', { 'topology.kubernetes.io/zone': 'us-west-2a', 'kubernetes.io/hostname': 'node-a', rack: 'r1' });
const NODE_B = testNode('node-b', { 'topology.kubernetes.io/zone': 'us-west-2b', 'kubernetes.io/hostname': 'node-b', rack: 'r2' });
const ZONE_HOST = ['zone', 'host'];

const tiproxyOnly = (version: string) => withSpec({ pd: undefined, tikv: undefined, tidb: undefined, tiproxy: { baseImage: 'pingcap/tiproxy', version, replicas: 2 } });

/** A running TiProxy pod on `node`, its container restarted `restarts` times, with what the annotation says was set. */
function proxy(ordinal: number, node: string, o: { restarts?: number; posted?: { restartCount: number; locationLabels: string[] } } = {}): IPod {
  const pod = testPod(`basic-tiproxy-${ordinal}`, { component: 'tiproxy', revision: 'rev-1', nodeName: node });
  const annotations: Record<string, string> = o.posted === undefined ? {} : { [TIPROXY_LABELS_ANNOTATION]: JSON.stringify(o.posted) };
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations },
    status: { ...pod.status, containerStatuses: [{ name: 'tiproxy', image: 'pingcap/tiproxy', imageID: '', ready: true, restartCount: o.restarts ?? 0 }] },
  };
}

/** TiProxy `version` with `pods`, healthy as `healthy` says, PD's location labels as given. */
function world(version: string, locationLabels: string[], pods: IPod[], healthy: boolean[] = [true, true]): Snapshot {
  const tc = tidbCluster(tiproxyOnly(version));
  const built = memberWorld(tiproxyRules, tc);
  const pd = { ...pdViewOf([]), config: { replication: { maxReplicas: 3, locationLabels } } };
  const health = Object.fromEntries(
    pods.map((p, i) => {
      const podName = p.metadata?.name ?? '';
      return [podName, healthy[i] === true ? { podName, healthy: true as const, info: '{}' } : { podName, healthy: false as const, detail: 'HTTP 502' }];
    }),
  );
  const withHealth = (s: Snapshot): Snapshot => ({ ...s, components: { ...s.components, tiproxy: { ...s.components.tiproxy, view: { members: health } } } });
  return snapshot(withCluster(tc), ...built.changes, withPd(pd), withOwned('Pod', ...pods), withNodes(NODE_A, NODE_B), withHealth);
}

const setsOf = (s: Snapshot) => planStep(s, tiproxyRules).actions.flatMap((a) => (a.kind === 'tiproxy.setLabels' ? [[a.pod, a.labels]] : []));

describe('TiProxy labels (v1.6 setLabelsForTiProxy), once per process', () => {
  it.each<{ name: string; s: Snapshot; expected: unknown[] }>([
    {
      name: "each healthy member gets its node's location labels plus zone",
      s: world('v1.2.0', ZONE_HOST, [proxy(0, 'node-a'), proxy(1, 'node-b')]),
      expected: [
        ['basic-tiproxy-0', { zone: 'us-west-2a', host: 'node-a' }],
        ['basic-tiproxy-1', { zone: 'us-west-2b', host: 'node-b' }],
      ],
    },
    {
      name: 'a Kubernetes zone key among the location labels is read by its own name, and copied to zone',
      s: world('v1.2.0', ['topology.kubernetes.io/zone', 'rack'], [proxy(0, 'node-a')], [true]),
      expected: [['basic-tiproxy-0', { 'topology.kubernetes.io/zone': 'us-west-2a', rack: 'r1', zone: 'us-west-2a' }]],
    },
    { name: 'TiProxy below 1.1.0: nothing', s: world('v1.0.0', ZONE_HOST, [proxy(0, 'node-a')], [true]), expected: [] },
    { name: 'a pre-release of 1.1.0 counts as 1.1.0 (as v1)', s: world('v1.1.0-alpha', ZONE_HOST, [proxy(0, 'node-a')], [true]), expected: [['basic-tiproxy-0', { zone: 'us-west-2a', host: 'node-a' }]] },
    { name: 'a commit tag that is no version: nothing (as v1)', s: world('abcdefj', ZONE_HOST, [proxy(0, 'node-a')], [true]), expected: [] },
    { name: 'no zone key among the location labels: nothing', s: world('v1.2.0', ['rack', 'host'], [proxy(0, 'node-a')], [true]), expected: [] },
    { name: 'an unhealthy member: skipped', s: world('v1.2.0', ZONE_HOST, [proxy(0, 'node-a'), proxy(1, 'node-b')], [true, false]), expected: [['basic-tiproxy-0', { zone: 'us-west-2a', host: 'node-a' }]] },
    { name: 'a pod on a node that was not read: skipped', s: world('v1.2.0', ZONE_HOST, [proxy(0, 'node-x')], [true]), expected: [] },
    {
      name: 'already set on this process for these location labels: nothing',
      s: world('v1.2.0', ZONE_HOST, [proxy(0, 'node-a', { posted: { restartCount: 0, locationLabels: ZONE_HOST } })], [true]),
      expected: [],
    },
    {
      name: 'the container restarted since: set again',
      s: world('v1.2.0', ZONE_HOST, [proxy(0, 'node-a', { restarts: 1, posted: { restartCount: 0, locationLabels: ZONE_HOST } })], [true]),
      expected: [['basic-tiproxy-0', { zone: 'us-west-2a', host: 'node-a' }]],
    },
  ])('$name', ({ s, expected }) => {
    expect(setsOf(s)).toEqual(expected);
  });

  it('a set is remembered on the pod only once TiProxy took it, and a refusal is a Warning', () => {
    // Act
    const [action] = planStep(world('v1.2.0', ZONE_HOST, [proxy(0, 'node-a')], [true]), tiproxyRules).actions.filter((a) => a.kind === 'tiproxy.setLabels');
    // Assess
    expect(action).toMatchObject({
      onSuccess: { kind: 'patch', ref: { kind: 'Pod', name: 'basic-tiproxy-0' }, patch: { metadata: { annotations: { [TIPROXY_LABELS_ANNOTATION]: JSON.stringify({ restartCount: 0, locationLabels: ZONE_HOST }) } } } },
      onError: { kind: 'event', type: 'Warning', reason: 'FailedSetTiProxyLabels' },
    });
  });
});
