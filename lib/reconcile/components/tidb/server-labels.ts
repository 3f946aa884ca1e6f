/**
 * TiDB server labels from the topology of the nodes TiDB pods run on, as TiDB Operator v1's
 * `setServerLabels` (§2.4): for TiDB ≥ 6.3.0 (the image tag, compared as v1's cmpver; a tag that is
 * no version skips it), when PD's `replication.location-labels` holds a zone key (`zone`,
 * `topology.kubernetes.io/zone`, `failure-domain.beta.kubernetes.io/zone`, the first found in that
 * order), each healthy member gets `POST /labels` with its node's values for the location labels
 * (short names read from the Kubernetes topology labels, as TiKV's store labels) plus `zone` — TiDB
 * uses that one for follower reads. A refusal is a Warning `FailedSetServerLabels` and the step goes on.
 *
 * Beyond v1, which posts on every sync, a post is made once per running process. TiDB keeps server
 * labels only in memory, so what was posted is remembered on the pod itself, in the annotation
 * `SERVER_LABELS_ANNOTATION`: the restart count of the `tidb` container and the location labels
 * posted, written only after TiDB accepted the post. A new pod (an upgrade, a recreation) starts
 * without the annotation and a container restart moves the count, so a new process is always asked
 * again, and nothing stale can match it. The pod was chosen over the state table because the
 * observer already lists the pods: it can tell from them alone which Nodes this rule needs, and reads
 * none at rest; and over TiDB's `/labels` because TiDB answers only POST there — reading the labels
 * back would be one call per server on every step (docs/adr/0013). A node's labels changing under a
 * running server are followed at its next restart (a node's zone and region do not change in practice).
 */

import type { INode } from 'kubernetes-models/v1/Node';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action, PatchAction, TidbSetLabelsAction } from '../../../model/action.js';
import type { TidbCluster } from '../../../model/kube.js';
import type { PdView } from '../../../model/pd.js';
import { clusterWarning, EVENT_REASON } from '../../cluster/events.js';
import { observedNodes, observedPd } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import { imageTagOf, isVersionAtLeast } from '../../member/cmpver.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { isTerminating, nothing } from '../../member/members.js';
import { nodeStoreLabels } from '../tikv/store-labels.js';
import { tidbImage } from './pod-template.js';

/** The pod annotation recording what was posted to the pod's running TiDB process (see the module comment). */
export const SERVER_LABELS_ANNOTATION = 'tidb-reconciler/server-labels';

/** As v1's `topologyZoneLabels`: the location labels that name a zone, in the order they are looked for. */
export const TIDB_ZONE_KEYS: readonly string[] = ['zone', 'topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];

/** The first TiDB version that takes server labels (v1's `tidbSupportLabelsMinVersin`). */
const MIN_VERSION = 'v6.3.0';

/** What the rule asks of every server: PD's location labels, and which of them is the zone. */
export type ServerLabelKeys = { readonly locationLabels: readonly string[]; readonly zoneKey: string };

/** What the annotation records: the container restart count and the location labels of the post. */
type Posted = { readonly restartCount: number; readonly locationLabels: readonly string[] };

/** Which process a pod annotation remembers labels for: its container, and the annotation key (TiProxy has its own). */
export type LabelledProcess = { readonly container: string; readonly annotation: string };

/** TiDB's: the `tidb` container, `SERVER_LABELS_ANNOTATION`. */
export const TIDB_LABELLED: LabelledProcess = { container: 'tidb', annotation: SERVER_LABELS_ANNOTATION };

/** As v1: PD's location labels and the first zone key among them, or undefined when PD was not read or has none. */
export function zoneLabelKeys(pd: PdView | undefined): ServerLabelKeys | undefined {
  const locationLabels = pd?.config?.replication.locationLabels ?? [];
  const zoneKey = TIDB_ZONE_KEYS.find((key) => locationLabels.includes(key));
  return zoneKey === undefined ? undefined : { locationLabels, zoneKey };
}

/**
 * The keys to post, or undefined when no server label is wanted: TiDB older than 6.3.0 (or a tag
 * that is no version), PD not read, or no zone key among PD's location labels.
 */
export function serverLabelKeys(tc: TidbCluster, pd: PdView | undefined): ServerLabelKeys | undefined {
  if (!tc.spec.tidb || isVersionAtLeast(imageTagOf(tidbImage(tc)), MIN_VERSION) !== true) return undefined;
  return zoneLabelKeys(pd);
}

/** The restart count of the pod's container of `process` (default `tidb`), or undefined before it has a status. */
export function restartCountOf(pod: IPod, process: LabelledProcess = TIDB_LABELLED): number | undefined {
  return pod.status?.containerStatuses?.find((c) => c.name === process.container)?.restartCount;
}

function postedOf(pod: IPod, process: LabelledProcess): Posted | undefined {
  const raw = pod.metadata?.annotations?.[process.annotation];
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<Posted>;
    const { restartCount, locationLabels } = value;
    const valid = typeof restartCount === 'number' && Array.isArray(locationLabels) && locationLabels.every((l) => typeof l === 'string');
    return valid ? { restartCount, locationLabels } : undefined;
  } catch {
    // Not ours to trust: asked again.
    return undefined;
  }
}

/**
 * Whether the process running in `pod` still needs its server labels: it is not being deleted, its
 * `tidb` container has started, and the annotation does not record a post to this container
 * instance (same restart count) for the same location labels.
 */
export function needsServerLabels(pod: IPod, keys: ServerLabelKeys, process: LabelledProcess = TIDB_LABELLED): boolean {
  const restartCount = restartCountOf(pod, process);
  if (isTerminating(pod) || restartCount === undefined) return false;
  const posted = postedOf(pod, process);
  const same = posted !== undefined && posted.restartCount === restartCount && posted.locationLabels.join('\u0000') === keys.locationLabels.join('\u0000');
  return !same;
}

/**
 * The nodes of the TiDB pods whose server needs its labels (healthy by `isHealthy`, see
 * `needsServerLabels`): what the observer reads for this rule — none when the rule does not apply
 * or every running server already has its labels.
 */
export function serverLabelNodeNames(tc: TidbCluster, pd: PdView | undefined, tidbPods: readonly IPod[], isHealthy: (podName: string) => boolean): string[] {
  const keys = serverLabelKeys(tc, pd);
  if (!keys) return [];
  const pods = tidbPods.filter((pod) => isHealthy(pod.metadata?.name ?? '') && needsServerLabels(pod, keys));
  return pods.flatMap((pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
}

/** As v1's `getNodeLabels` then `labels["zone"] = labels[zoneLabel]`; a node without a zone value gets no `zone` (v1 would post ""). */
export function serverLabelsOf(node: INode, keys: ServerLabelKeys): Record<string, string> {
  const labels = nodeStoreLabels(node.metadata?.labels, keys.locationLabels);
  const zone = labels[keys.zoneKey];
  return zone === undefined ? labels : { ...labels, zone };
}

/** The annotation patch recording a post to the pod's current process (under its resourceVersion). */
export function rememberPatch(pod: IPod, keys: ServerLabelKeys, restartCount: number, process: LabelledProcess = TIDB_LABELLED): PatchAction {
  const value = JSON.stringify({ restartCount, locationLabels: keys.locationLabels });
  const ref = { kind: 'Pod' as const, namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' };
  return { kind: 'patch', ref, patchType: 'merge', patch: { metadata: { annotations: { [process.annotation]: value } } }, resourceVersion: pod.metadata?.resourceVersion ?? '' };
}

function labelAction(input: MemberInput, pod: IPod, keys: ServerLabelKeys, labels: Record<string, string>): TidbSetLabelsAction {
  const podName = pod.metadata?.name ?? '';
  const ns = input.cluster.metadata.namespace ?? '';
  const message = `failed to set server labels ${JSON.stringify(labels)} for TiDB pod ${ns}/${podName}: `;
  return {
    kind: 'tidb.setLabels',
    pod: podName,
    labels,
    onError: clusterWarning(input.cluster, EVENT_REASON.failedSetServerLabels, message),
    onSuccess: rememberPatch(pod, keys, restartCountOf(pod) ?? 0),
  };
}

/** The post one healthy member needs, or undefined (no pod, already posted, node not read, no label value). */
function planMember(input: MemberInput, podName: string, keys: ServerLabelKeys, nodes: readonly INode[]): Action | undefined {
  const pod = input.scope.pod(podName);
  if (!pod || !needsServerLabels(pod, keys)) return undefined;
  const node = nodes.find((n) => n.metadata?.name === pod.spec?.nodeName);
  if (!node) return undefined;
  const labels = serverLabelsOf(node, keys);
  return Object.keys(labels).length === 0 ? undefined : labelAction(input, pod, keys, labels);
}

/**
 * The `TidbServerLabels` rule. Guarantees: nothing unless TiDB ≥ 6.3.0 and PD's location labels
 * have a zone key; otherwise one `tidb.setLabels` per healthy member whose running process has not
 * had its labels (each with its Warning on refusal, and the pod annotation written only on success);
 * completes.
 */
export function planTidbServerLabels(input: MemberInput): MemberDecision {
  const keys = serverLabelKeys(input.cluster, observedPd(input.snapshot));
  if (!keys) return nothing();
  const healthy = Object.values(input.status.tidb?.members ?? {}).filter((m) => m.health);
  const nodes = observedNodes(input.snapshot);
  const actions = healthy.flatMap((m) => planMember(input, m.name, keys, nodes) ?? []);
  return { actions, outcome: complete(actions.length === 0 ? undefined : `setting the server labels of ${actions.length} TiDB server(s)`) };
}
