/**
 * The simulated cluster's nodes: `node-0..node-N-1` (or node pools, `<pool>-0..<pool>-N-1`, each
 * with its own labels, taints and zones), spread over zones round robin (zone-a/b/c unless a pool
 * names its own), labelled like EKS worker nodes, and the Ready/NotReady switch the node lifecycle
 * controller flips when a kubelet stops posting status.
 */
import type { KubeObject } from './object.js';
import { rfc3339 } from './object.js';
import type { ObjectStore } from './store.js';
import { SIM_VERSION } from './discovery.js';

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

/** A taint a node pool puts on its nodes. */
export type NodeTaint = { readonly key: string; readonly value?: string; readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' };

/**
 * A group of like nodes (an EKS managed node group): `count` nodes `<name>-0..<name>-(count-1)`
 * with `labels` added to the standard ones, `taints`, and zones round robin over `zones` (default
 * zone-a/b/c).
 */
export type NodePool = {
  readonly name: string;
  readonly count: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly NodeTaint[];
  readonly zones?: readonly string[];
};

/** The nodes of a world: a count (`node-0..node-N-1`) or node pools. */
export type NodesSpec = number | readonly NodePool[];

/** What makes one node: its name, zone, pool labels and taints, and its place among all nodes (for its IP). */
type NodeShape = { name: string; zone: string; index: number; labels?: Readonly<Record<string, string>>; taints?: readonly NodeTaint[] };

/** The nodes `spec` describes, in order: a count is one pool `node` over zone-a/b/c. */
export function nodeShapes(spec: NodesSpec): NodeShape[] {
  const pools: readonly NodePool[] = typeof spec === 'number' ? [{ name: 'node', count: spec }] : spec;
  const shapes: NodeShape[] = [];
  for (const pool of pools) {
    const zones = pool.zones && pool.zones.length > 0 ? pool.zones : ZONES;
    for (let i = 0; i < pool.count; i++) {
      shapes.push({ name: `${pool.name}-${i}`, zone: zones[i % zones.length] ?? 'zone-a', index: shapes.length, labels: pool.labels, taints: pool.taints });
    }
  }
  return shapes;
}

/** The names of the nodes `spec` describes, in order. */
export function nodeNames(spec: NodesSpec): string[] {
  return nodeShapes(spec).map((n) => n.name);
}

/** The Node object for `index` (zone round robin, capacity of a mid-size EKS worker), Ready at `nowMs`. */
export function newNode(index: number, nowMs: number): KubeObject {
  return nodeObject({ name: nodeName(index), zone: ZONES[index % ZONES.length] ?? 'zone-a', index }, nowMs);
}

function nodeObject(shape: NodeShape, nowMs: number): KubeObject {
  const { name, zone, index } = shape;
  const resources = { cpu: '16', memory: '64Gi', pods: '110', 'ephemeral-storage': '200Gi' };
  const taints = shape.taints && shape.taints.length > 0 ? { taints: shape.taints.map((t) => ({ ...t })) } : {};
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
        ...(shape.labels ?? {}),
      },
    },
    spec: { providerID: `sim:///${zone}/${name}`, ...taints },
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [readyCondition(true, nowMs, nowMs)],
      addresses: [
        { type: 'InternalIP', address: `192.168.${index >> 8}.${(index & 255) + 10}` },
        { type: 'Hostname', address: name },
      ],
      // The kubelet reports the same release as the control plane (`/version`), as a freshly created EKS node group does.
      nodeInfo: {
        kubeletVersion: SIM_VERSION.gitVersion,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
        osImage: 'Amazon Linux 2023',
        kernelVersion: '6.1.0-sim',
        containerRuntimeVersion: 'sim://1.0',
        machineID: `sim-${name}`,
        systemUUID: `sim-${name}`,
        bootID: `sim-${name}`,
      },
    },
  };
}

/** Creates the nodes `spec` describes (a count: `node-0..node-(count-1)`) that do not exist yet; returns their names. */
export function createNodes(store: ObjectStore, spec: NodesSpec): string[] {
  const shapes = nodeShapes(spec);
  for (const shape of shapes) {
    if (store.get('Node', undefined, shape.name)) continue;
    store.create('Node', nodeObject(shape, store.clock.nowMs()), { keepStatus: true });
  }
  return shapes.map((s) => s.name);
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
