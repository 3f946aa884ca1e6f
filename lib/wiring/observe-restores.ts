/**
 * The TidbCluster step's read of the PiTR Restores into its cluster (TiKV's `gc.ratio-threshold = -1`
 * while one is pending, lib/reconcile/components/tikv/pitr-gc.ts): as v1's TiKV member manager lists
 * every Restore (its informer's cache), one paged LIST of Restores in every namespace — or, namespace
 * scoped, in the cluster's own namespace — kept to the pending PiTR ones naming this cluster.
 */

import type { ObjectPager } from '../kube/port.js';
import type { TidbCluster } from '../model/kube.js';
import { NotFoundError } from '../platform/errors.js';
import { isPendingPitrRestoreFor } from '../reconcile/components/tikv/pitr-gc.js';
import { withinBudget } from './abortable.js';
import { SWEEP_PAGE_LIMIT } from './lister.js';

/**
 * The pending PiTR Restores into `tc` (`<namespace>/<name>`). Guarantees: every page read (an error
 * propagates, the step retries); an API server without the Restore CRD (404) has none.
 */
export async function readPendingPitrRestores(pager: ObjectPager, tc: TidbCluster, scope: 'cluster' | 'namespace', signal: AbortSignal): Promise<string[]> {
  const pending: string[] = [];
  const namespace = scope === 'namespace' ? tc.metadata.namespace : undefined;
  let next: string | undefined;
  try {
    do {
      const request = { limit: SWEEP_PAGE_LIMIT, ...(namespace === undefined ? {} : { namespace }), ...(next === undefined ? {} : { continue: next }) };
      const page = await withinBudget(signal, 'list Restores', () => pager.listObjectPage('Restore', request));
      for (const restore of page.items) if (isPendingPitrRestoreFor(restore, tc)) pending.push(`${restore.metadata.namespace ?? ''}/${restore.metadata.name ?? ''}`);
      next = page.continue;
    } while (next);
  } catch (err) {
    if (err instanceof NotFoundError) return [];
    throw err;
  }
  return pending;
}
