/**
 * The sweep's `ClusterLister` over the Kubernetes API: every TidbCluster in every namespace (or, in
 * namespace-scoped mode, `WATCH_NAMESPACES`, in each watched namespace: one paged LIST each), page by
 * page (a LIST with `limit` and `continue`), as cluster keys of the configured Kubernetes cluster.
 * While listing it tallies the fleet's health from the objects it already has (Ready condition,
 * `spec.paused`), so the sweep reports it without another request.
 */

import { restartOnExpiredContinue } from '../kube/pager.js';
import type { KubeObject, KubePort } from '../kube/port.js';
import { parseClusterKey, type ClusterKey } from '../model/key.js';
import type { Logger } from '../platform/logger.js';
import type { ClusterLister } from '../step/sweep.js';
import type { ListedCluster } from '../step/sweep-rest.js';
import { withinBudget } from './abortable.js';

/** TidbClusters per LIST page: small enough for one response, large enough for few round trips. */
export const SWEEP_PAGE_LIMIT = 200;

/** What the listed TidbClusters look like: how many, how many not Ready, how many paused. */
export type FleetTally = { listed: number; ready: number; notReady: number; paused: number };

/** Lists cluster keys; `tally` describes the clusters of the last `listClusterKeys`. */
export class KubeClusterLister implements ClusterLister {
  tally: FleetTally = { listed: 0, ready: 0, notReady: 0, paused: 0 };
  private identities: ReadonlyMap<ClusterKey, ListedCluster> = new Map();

  constructor(
    private readonly kube: KubePort,
    private readonly k8sCluster: string,
    private readonly logger: Logger,
    private readonly pageLimit = SWEEP_PAGE_LIMIT,
    /** The namespaces to list in, one LIST each; undefined lists every namespace at once. */
    private readonly namespaces?: readonly string[],
  ) {}

  /**
   * Every TidbCluster's key. Guarantees: pages are followed to the end, one snapshot; a continue
   * token that expired between pages (410 Expired) starts the listing over, at most
   * `MAX_LIST_RESTARTS` times (then it fails as a `TransientError`: the next sweep starts over); an
   * object whose key would not parse is logged and skipped, never enqueued.
   */
  async listClusterKeys(signal?: AbortSignal): Promise<ClusterKey[]> {
    return restartOnExpiredContinue(
      () => this.listOnce(signal),
      (restarts) => this.logger.info('sweep list restarted: its continue token expired', { restarts }),
    );
  }

  /** The uid and generation of each TidbCluster of the last listing (one without both is left out). */
  listed(): ReadonlyMap<ClusterKey, ListedCluster> {
    return this.identities;
  }

  private async listOnce(signal: AbortSignal | undefined): Promise<ClusterKey[]> {
    const keys: ClusterKey[] = [];
    const tally: FleetTally = { listed: 0, ready: 0, notReady: 0, paused: 0 };
    const identities = new Map<ClusterKey, ListedCluster>();
    for (const namespace of this.namespaces ?? [undefined]) await this.listIn(namespace, keys, tally, identities, signal);
    this.tally = tally;
    this.identities = identities;
    return keys;
  }

  private async listIn(namespace: string | undefined, keys: ClusterKey[], tally: FleetTally, identities: Map<ClusterKey, ListedCluster>, signal: AbortSignal | undefined): Promise<void> {
    let next: string | undefined;
    do {
      const request = { limit: this.pageLimit, ...(namespace === undefined ? {} : { namespace }), ...(next === undefined ? {} : { continue: next }) };
      const page = await (signal ? withinBudget(signal, 'list TidbClusters', () => this.kube.listTidbClusters(request)) : this.kube.listTidbClusters(request));
      for (const object of page.items) {
        const key = this.keyOf(object);
        if (key === undefined) continue;
        keys.push(key);
        count(tally, object);
        const { uid, generation } = object.metadata;
        if (typeof uid === 'string' && typeof generation === 'number') identities.set(key, { uid, generation });
      }
      next = page.continue;
    } while (next);
  }

  private keyOf(object: KubeObject): ClusterKey | undefined {
    const key = `${this.k8sCluster}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
    const parsed = parseClusterKey(key);
    if (parsed.ok) return key;
    this.logger.error('sweep skipped a TidbCluster whose key does not parse', { key, field: parsed.field, error: parsed.message });
    return undefined;
  }
}

function count(tally: FleetTally, object: KubeObject): void {
  tally.listed++;
  if (object.spec?.paused === true) tally.paused++;
  const conditions: unknown = object.status?.conditions;
  const ready = Array.isArray(conditions) && conditions.some((c: { type?: unknown; status?: unknown }) => c.type === 'Ready' && c.status === 'True');
  if (ready) tally.ready++;
  else tally.notReady++;
}
