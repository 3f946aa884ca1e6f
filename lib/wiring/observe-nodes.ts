/**
 * Reading the Nodes store and server labels are taken from (TiDB Operator v1 reads them through its
 * node lister): only when labels are wanted — PD's `location-labels` or `spec.tikv.storeLabels` — and
 * then one GET per distinct node a TiKV pod of the cluster is scheduled on; the nodes of healthy
 * TiDB servers whose running process still needs its server labels (TiDB ≥ 6.3 with a zone location
 * label; once posted, none), and likewise of healthy TiProxy ≥ 1.1 pods; and, with `detectNodeFailure`, the nodes of the pods TiKV's and
 * TiFlash's failure stores and PD's undeleted failure members name (host-down detection reads their
 * conditions). A steady cluster
 * without location labels or failure stores reads no Node at all.
 */

import type { INode } from 'kubernetes-models/v1/Node';

import type { KubePort } from '../kube/port.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import { LABEL } from '../model/labels.js';
import type { PdView } from '../model/pd.js';
import type { TidbView } from '../model/tidb.js';
import { NotFoundError } from '../platform/errors.js';
import { serverLabelNodeNames } from '../reconcile/components/tidb/server-labels.js';
import { tiproxyLabelNodeNames } from '../reconcile/components/tiproxy/labels.js';
import type { TiproxyView } from '../model/tiproxy.js';
import { tikvStoreLabelKeys } from '../reconcile/components/tikv/store-labels.js';
import { withinBudget } from './abortable.js';
import { plainJson } from './plain-json.js';

/**
 * The names of the nodes to read: those of the cluster's TiKV pods, when any store label is wanted,
 * and with `detectNodeFailure` those of the pods named by TiKV's and TiFlash's failure stores and
 * PD's failure members not yet deleted.
 */
export function storeNodeNames(cluster: TidbCluster, owned: OwnedObjects, pd: PdView | undefined, detectNodeFailure = false): string[] {
  const labelled = cluster.spec.tikv !== undefined && tikvStoreLabelKeys(cluster, pd).length > 0;
  const tikvPods = labelled ? owned.Pod.filter((p) => p.metadata?.labels?.[LABEL.component] === 'tikv') : [];
  const failing = detectNodeFailure ? failureStorePods(cluster) : new Set<string>();
  const failingPods = owned.Pod.filter((p) => failing.has(p.metadata?.name ?? ''));
  return [...new Set([...tikvPods, ...failingPods].flatMap((p) => (p.spec?.nodeName ? [p.spec.nodeName] : [])))].sort();
}

/**
 * The names of the nodes of the cluster's TiDB pods whose server needs its labels, healthy by the
 * step's `/status` read (none when TiDB was not read): see `serverLabelNodeNames`.
 */
export function serverNodeNames(cluster: TidbCluster, owned: OwnedObjects, pd: PdView | undefined, tidb: TidbView | undefined): string[] {
  if (!tidb) return [];
  const tidbPods = owned.Pod.filter((p) => p.metadata?.labels?.[LABEL.component] === 'tidb');
  return [...new Set(serverLabelNodeNames(cluster, pd, tidbPods, (name) => tidb.servers[name]?.healthy === true))].sort();
}

/**
 * The names of the nodes of the cluster's TiProxy pods that still need their labels, healthy by the
 * step's health read (none when TiProxy was not read): see `tiproxyLabelNodeNames`.
 */
export function tiproxyNodeNames(cluster: TidbCluster, owned: OwnedObjects, pd: PdView | undefined, tiproxy: TiproxyView | undefined): string[] {
  if (!tiproxy) return [];
  const pods = owned.Pod.filter((p) => p.metadata?.labels?.[LABEL.component] === 'tiproxy');
  return [...new Set(tiproxyLabelNodeNames(cluster, pd, pods, (name) => tiproxy.members[name]?.healthy === true))].sort();
}

/** The pod names TiKV's and TiFlash's `failureStores` record, and PD's `failureMembers` not yet deleted. */
function failureStorePods(cluster: TidbCluster): Set<string> {
  const failures = [cluster.status?.tikv?.failureStores, cluster.status?.tiflash?.failureStores].flatMap((f) => Object.values(f ?? {}));
  const members = Object.values(cluster.status?.pd?.failureMembers ?? {}).filter((m) => m.memberDeleted !== true);
  return new Set([...failures, ...members].flatMap((f) => (f.podName ? [f.podName] : [])));
}

/**
 * The Nodes named, in name order. Guarantees: undefined (nothing read) when none is named; a node
 * deleted meanwhile is left out, not an error; every GET ends with the step's budget signal.
 */
export async function readStoreNodes(kube: KubePort, names: readonly string[], signal: AbortSignal): Promise<INode[] | undefined> {
  if (names.length === 0) return undefined;
  const nodes = await Promise.all(names.map((name) => withinBudget(signal, `get Node ${name}`, () => getIfExists(kube, name))));
  return plainJson<INode[]>(nodes.filter((n) => n !== undefined));
}

async function getIfExists(kube: KubePort, name: string) {
  try {
    return await kube.getNode(name);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}
