/**
 * The simulated cluster's nodes: `node-0..node-N-1`, spread over zones zone-a/b/c round robin,
 * labelled like EKS worker nodes, and the Ready/NotReady switch the node lifecycle controller flips
 * when a kubelet stops posting status.
 */
import type { KubeObject } from './object.js';
import { rfc3339 } from './object.js';
import type { ObjectStore } from './store.js';

/** The node's own name as a label: what hostname node affinity and anti-affinity select on. */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/** The node's zone (zone-a/b/c here): what zone spreading and volume pinning use. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** The taint the node lifecycle controller puts on a node whose kubelet stopped posting status. */
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;

type NodeCondition = { type: string; status: string; reason: string; message: string; lastHeartbeatTime: string; lastTransitionTime: string };

/** `node-<index>`. */
export function nodeName(index: number): string {
  return `node-${index}`;
}

/** The Node object for `index` (zone round robin, capacity of a mid-size EKS worker), Ready at `nowMs`. */
export function newNode(index: number, nowMs: number): KubeObject {
  const name = nodeName(index);
  const zone = ZONES[index % ZONES.length] ?? 'zone-a';
  const resources = { cpu: '16', memory: '64Gi', pods: '110', 'ephemeral-storage': '200Gi' };
  return {
    metadata: {
      name,
      labels: {
        [HOSTNAME_LABEL]: name,
        [ZONE_LABEL]: zone,
        'topology.kubernetes.io/region': 'sim-region-1',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'm5.4xlarge',
      },
    },
    spec: { providerID: `sim:///${zone}/${name}` },
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [readyCondition(true, nowMs, nowMs)],
      addresses: [
        { type: 'InternalIP', address: `192.168.${index >> 8}.${(index & 255) + 10}` },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: { kubeletVersion: 'v1.30.0-sim', operatingSystem: 'linux', architecture: 'amd64', containerRuntimeVersion: 'sim://1.0' },
    },
  };
}

/** Creates the nodes `node-0..node-(count-1)` that do not exist yet; returns their names. */
export function createNodes(store: ObjectStore, count: number): string[] {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    names.push(nodeName(i));
    if (store.get('Node', undefined, nodeName(i))) continue;
    store.create('Node', newNode(i, store.clock.nowMs()), { keepStatus: true });
  }
  return names;
}

/** Whether the node's Ready condition is True (a NotReady node runs nothing and gets no new pods). */
export function isNodeReady(node: KubeObject): boolean {
  const conditions = (node.status?.conditions ?? []) as NodeCondition[];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The node's InternalIP (the pods' hostIP), or '' when it has none. */
export function nodeInternalIP(node: KubeObject): string {
  const addresses = (node.status?.addresses ?? []) as { type: string; address: string }[];
  return addresses.find((a) => a.type === 'InternalIP')?.address ?? '';
}

/**
 * Marks a node Ready or NotReady as the node lifecycle controller does when its kubelet stops (or
 * resumes) posting status: Ready=Unknown with reason NodeStatusUnknown, plus the `unreachable`
 * NoSchedule/NoExecute taints so the scheduler avoids it; both are undone when it comes back.
 */
export function setNodeReady(store: ObjectStore, name: string, ready: boolean): void {
  const node = store.mustGet('Node', undefined, name);
  const others = ((node.spec?.taints ?? []) as { key: string }[]).filter((t) => t.key !== UNREACHABLE_TAINT);
  const nowIso = rfc3339(store.clock.nowMs());
  const taints = ready ? others : [...others, { key: UNREACHABLE_TAINT, effect: 'NoSchedule', timeAdded: nowIso }, { key: UNREACHABLE_TAINT, effect: 'NoExecute', timeAdded: nowIso }];
  const withTaints = store.update('Node', { ...node, spec: { ...node.spec, taints: taints.length > 0 ? taints : undefined } });
  const conditions = ((withTaints.status?.conditions ?? []) as NodeCondition[]).filter((c) => c.type !== 'Ready');
  const previous = ((withTaints.status?.conditions ?? []) as NodeCondition[]).find((c) => c.type === 'Ready');
  const changed = previous === undefined || (previous.status === 'True') !== ready;
  const sinceMs = changed ? store.clock.nowMs() : Date.parse(previous.lastTransitionTime);
  conditions.push(readyCondition(ready, store.clock.nowMs(), sinceMs));
  store.update('Node', { ...withTaints, status: { ...withTaints.status, conditions } }, { subresource: 'status' });
}

function readyCondition(ready: boolean, nowMs: number, sinceMs: number): NodeCondition {
  return ready
    ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: rfc3339(nowMs), lastTransitionTime: rfc3339(sinceMs) }
    : { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: rfc3339(sinceMs), lastTransitionTime: rfc3339(sinceMs) };
}
