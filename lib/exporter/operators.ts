/**
 * TiDB Operator seen by watching, per EKS cluster (docs/adr/0024): the exporter watches the
 * Deployments labelled as TiDB Operator's controller manager (`OPERATOR_DEPLOYMENT_SELECTOR`, one
 * watch per EKS cluster, or per watched namespace), and a meaningful change of one (added, scaled, a
 * replica becoming ready, its flags changed, deleted) — or a relist that finds one — steps the
 * TidbClusters it may manage with `checkTidbOperator`, so their verdict is re-checked at once rather
 * than on a per-cluster poll. Which clusters: every TidbCluster the exporter knows for a
 * cluster-scoped operator (`-cluster-scoped`, the chart's default), those of its namespace otherwise
 * (TiDB Operator's informers then watch that namespace only).
 *
 * The exporter knows its TidbClusters from its own TidbCluster watches (`ClusterDirectory`): the
 * LIST a watch starts or resumes with, then every event. A watch delivers every change after the
 * resourceVersion it starts from, in order, and a relist after 410 Gone replaces the whole set
 * (Kubernetes API concepts, "Efficient detection of changes":
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes), so
 * the directory is complete once each TidbCluster watch has its starting point; the Deployment
 * watches wait for that (`whenComplete`) before they deliver anything.
 */
import type { KubeObject } from '../kube/port.js';
import { clusterScopedOf, isControllerManager } from '../model/tidb-operator.js';
import type { Remembered } from './meaningful.js';
import type { WatchChange } from './ports.js';

/** The reason a controller manager's change gives the steps it asks for. */
export function operatorReason(deployment: KubeObject, what: string): string {
  return `TiDB Operator Deployment ${deployment.metadata.namespace ?? ''}/${deployment.metadata.name ?? ''} ${what}`;
}

/**
 * The TidbCluster keys the exporter knows, by namespace. Guarantees: `reset` replaces the keys of
 * the namespace it covers (every namespace when undefined); `observe` adds on ADDED and MODIFIED and
 * removes on DELETED; `whenComplete` resolves once `complete` was called as many times as there are
 * TidbCluster watches (`expected`), and at once when there are none.
 */
export class ClusterDirectory {
  private readonly byNamespace = new Map<string, Set<string>>();
  private pending: number;
  private readonly done: Promise<void>;
  private resolve: () => void = () => undefined;

  constructor(expected: number) {
    this.pending = expected;
    this.done = new Promise<void>((resolve) => (this.resolve = resolve));
    if (expected <= 0) this.resolve();
  }

  /** Replaces the keys of `namespace` (all when undefined) with `keyed`, a LIST's TidbClusters and their keys. */
  reset(namespace: string | undefined, keyed: readonly { object: KubeObject; key: string | undefined }[]): void {
    if (namespace === undefined) this.byNamespace.clear();
    else this.byNamespace.delete(namespace);
    for (const { object, key } of keyed) if (key !== undefined) this.add(object.metadata.namespace ?? '', key);
  }

  /** Takes keys carried by a session that stopped where this one resumes (a ChangeFilter's entries, `namespace/name`). */
  restore(entries: Iterable<[string, Remembered]>): void {
    for (const [id, { key }] of entries) if (key !== undefined) this.add(id.slice(0, id.indexOf('/')), key);
  }

  /** One TidbCluster change and its key. */
  observe(change: WatchChange, key: string | undefined): void {
    if (key === undefined) return;
    const namespace = change.object.metadata.namespace ?? '';
    if (change.type === 'DELETED') this.byNamespace.get(namespace)?.delete(key);
    else this.add(namespace, key);
  }

  /** One TidbCluster watch has its starting point. */
  complete(): void {
    this.pending -= 1;
    if (this.pending === 0) this.resolve();
  }

  /** Resolves once every TidbCluster watch has its starting point. */
  whenComplete(): Promise<void> {
    return this.done;
  }

  /** The keys a controller manager in `namespace` manages: all when `clusterScoped`, else that namespace's. Sorted. */
  keysFor(namespace: string, clusterScoped: boolean): string[] {
    const sets = clusterScoped ? [...this.byNamespace.values()] : [this.byNamespace.get(namespace) ?? new Set<string>()];
    return sets.flatMap((set) => [...set]).sort();
  }

  private add(namespace: string, key: string): void {
    const set = this.byNamespace.get(namespace) ?? new Set<string>();
    set.add(key);
    this.byNamespace.set(namespace, set);
  }
}

/**
 * The TidbCluster keys to step with a re-check for a Deployment the controller-manager watch
 * delivered: none unless it is named as TiDB Operator's controller manager (`isControllerManager`);
 * else those it may manage (`ClusterDirectory.keysFor`, its `-cluster-scoped` flag read from the
 * object as delivered).
 */
export function operatorTargets(deployment: KubeObject, directory: ClusterDirectory): string[] {
  if (!isControllerManager(deployment)) return [];
  return directory.keysFor(deployment.metadata.namespace ?? '', clusterScopedOf(deployment));
}
