/**
 * Store labels from the topology of the nodes TiKV pods run on, as TiDB Operator v1's
 * `setStoreLabelsForTiKV` (§2.2): once TiKV is bootstrapped, the label keys are PD's
 * `replication.location-labels` followed by `spec.tikv.storeLabels`; for each of this cluster's live
 * stores, the node of its pod gives a value for each key it has (the key itself, or for the short
 * names `region`, `zone` and `host` the Kubernetes topology labels), and when the store's labels
 * differ on those keys PD is asked to set them. A refusal is a Warning `FailedSetStoreLabels` and
 * the step goes on, as v1.
 */

import type { INode } from 'kubernetes-models/v1/Node';

import type { Action } from '../../../model/action.js';
import type { PdStore, PdView } from '../../../model/pd.js';
import { clusterWarning, EVENT_REASON } from '../../cluster/events.js';
import { observedNodes, observedPd } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import type { TidbCluster } from '../../../model/kube.js';
import { isOwnTikvStoreAddress } from './status.js';

/** As v1's `shortLabelNameToK8sLabel`: the node labels a short store label name is read from, in order. */
export const SHORT_LABEL_NAMES: Readonly<Record<string, readonly string[]>> = {
  region: ['topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'],
  zone: ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'],
  host: ['kubernetes.io/hostname'],
};

/** The store label keys: PD's `location-labels`, then `spec.tikv.storeLabels` (empty: no labels wanted). */
export function tikvStoreLabelKeys(tc: TidbCluster, view: PdView | undefined): string[] {
  return [...new Set([...(view?.config?.replication.locationLabels ?? []), ...(tc.spec.tikv?.storeLabels ?? [])])];
}

/**
 * As v1's `getNodeLabels`: for each key, the node's label of that name, else (a short name) the
 * first of its Kubernetes topology labels the node has; keys the node has no value for are left out.
 */
export function nodeStoreLabels(nodeLabels: Readonly<Record<string, string>> | undefined, keys: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const key of keys) {
    const name = [key, ...(SHORT_LABEL_NAMES[key] ?? [])].find((n) => nodeLabels?.[n] !== undefined);
    const value = name === undefined ? undefined : nodeLabels?.[name];
    if (value !== undefined) labels[key] = value;
  }
  return labels;
}

/** As v1's `storeLabelsEqualNodeLabels`: the store's labels, on the keys the node gives, equal the node's. */
export function areStoreLabelsCurrent(store: Readonly<Record<string, string>>, wanted: Readonly<Record<string, string>>): boolean {
  return Object.entries(wanted).every(([key, value]) => store[key] === value);
}

/** Go's `%v` of a string map (keys sorted), as v1's event message prints the labels. */
const goMap = (labels: Readonly<Record<string, string>>): string =>
  `map[${Object.keys(labels).sort().map((k) => `${k}:${labels[k] ?? ''}`).join(' ')}]`;

function labelAction(input: MemberInput, store: PdStore, podName: string, labels: Record<string, string>): Action {
  const ns = input.cluster.metadata.namespace ?? '';
  const message = `failed to set labels ${goMap(labels)} for store (id: ${store.id}, pod: ${ns}/${podName}): `;
  return { kind: 'pd.setStoreLabels', storeId: store.id, labels, onError: clusterWarning(input.cluster, EVENT_REASON.failedSetStoreLabels, message) };
}

/** The label write one store needs, or undefined (its pod or node not observed, no value, or already labelled). */
function planStore(input: MemberInput, store: PdStore, keys: readonly string[], nodes: readonly INode[]): Action | undefined {
  const podName = store.address.split('.')[0] ?? '';
  const nodeName = input.scope.pod(podName)?.spec?.nodeName;
  const node = nodes.find((n) => n.metadata?.name === nodeName);
  if (!node) return undefined;
  const labels = nodeStoreLabels(node.metadata?.labels, keys);
  if (Object.keys(labels).length === 0 || areStoreLabelsCurrent(store.labels, labels)) return undefined;
  return labelAction(input, store, podName, labels);
}

/**
 * The `TikvStoreLabels` rule. Guarantees: nothing before TiKV is bootstrapped, while PD is not read
 * or when no label is wanted; otherwise one `pd.setStoreLabels` per live store of this cluster whose
 * labels differ from its node's (each with its `FailedSetStoreLabels` Warning on refusal); completes.
 */
export function planTikvStoreLabels(input: MemberInput): MemberDecision {
  const view = observedPd(input.snapshot);
  if (!view || input.status.tikv?.bootStrapped !== true) return nothing();
  const keys = tikvStoreLabelKeys(input.cluster, view);
  if (keys.length === 0) return nothing();
  const nodes = observedNodes(input.snapshot);
  const live = view.stores.filter((s) => s.state !== 'Tombstone' && isOwnTikvStoreAddress(input, s.address));
  const actions = live.flatMap((store) => planStore(input, store, keys, nodes) ?? []);
  return { actions, outcome: complete(actions.length === 0 ? undefined : `setting the labels of ${actions.length} TiKV store(s)`) };
}
