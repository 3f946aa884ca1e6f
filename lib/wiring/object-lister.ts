/**
 * The sweep's listing of the backup kinds (`SWEPT_KINDS`: Backups, Restores, CompactBackups), so that
 * one whose exporter event was missed (the exporter down, a relist gap) is still stepped: every
 * object of each kind in every namespace (or each of `WATCH_NAMESPACES`), page by page as the
 * TidbCluster listing (`lister.ts`), kept only when its controller has something to do — the
 * exporter's own rules (`shouldEnqueueBackup`, `shouldEnqueueRestore`, `shouldEnqueueCompact`), so a
 * finished one is never stepped — as object keys carrying the kind (`Backup:<k8sCluster>/<ns>/<name>`).
 * BackupSchedules are left out: EventBridge Scheduler wakes them, not events.
 */

import { restartOnExpiredContinue } from '../kube/pager.js';
import type { KubeObject, ObjectPager } from '../kube/port.js';
import { formatObjectKey, type ControllerKind } from '../model/object-key.js';
import { parseClusterKey } from '../model/key.js';
import { NotFoundError } from '../platform/errors.js';
import type { Logger } from '../platform/logger.js';
import { shouldEnqueueBackup, shouldEnqueueRestore } from '../reconcile/backup/enqueue.js';
import type { Backup, Restore } from '../reconcile/backup/types.js';
import { shouldEnqueueCompact } from '../reconcile/compact-backup/enqueue.js';
import type { CompactBackup } from '../reconcile/compact-backup/types.js';
import { withinBudget } from './abortable.js';
import { SWEEP_PAGE_LIMIT } from './lister.js';

/** The kinds the sweep lists besides TidbClusters, in listing order. */
export const SWEPT_KINDS = ['Backup', 'Restore', 'CompactBackup'] as const;

/** One of `SWEPT_KINDS`. */
export type SweptKind = (typeof SWEPT_KINDS)[number];

/** Whether a listed object of `kind` is unfinished: its controller's event rule would enqueue it. */
export function isUnfinished(kind: SweptKind, object: KubeObject): boolean {
  if (kind === 'Backup') return shouldEnqueueBackup(object as unknown as Backup);
  if (kind === 'Restore') return shouldEnqueueRestore(object as unknown as Restore);
  return shouldEnqueueCompact(object as unknown as CompactBackup);
}

/** Whether `reader` can page through a kind (the API server's client can; a narrower test reader may not). */
export function isObjectPager(reader: unknown): reader is ObjectPager {
  return typeof (reader as Partial<ObjectPager> | undefined)?.listObjectPage === 'function';
}

/** Lists the keys of the unfinished objects of `SWEPT_KINDS`. */
export class KubeObjectKeyLister {
  constructor(
    private readonly objects: ObjectPager,
    private readonly k8sCluster: string,
    private readonly logger: Logger,
    private readonly pageLimit = SWEEP_PAGE_LIMIT,
    /** The namespaces to list in, one LIST each per kind; undefined lists every namespace at once. */
    private readonly namespaces?: readonly string[],
  ) {}

  /**
   * The keys, kind by kind. Guarantees: pages are followed to the end (an expired continue token
   * starts that kind's listing over, as the TidbCluster listing); a kind the API server does not
   * serve (404: its CRD not installed) is logged and skipped, not failed; an object whose key would
   * not parse is logged and skipped; any other error propagates.
   */
  async listKeys(signal?: AbortSignal): Promise<string[]> {
    const keys: string[] = [];
    for (const kind of SWEPT_KINDS) {
      const listed = await restartOnExpiredContinue(
        () => this.listKind(kind, signal),
        (restarts) => this.logger.info('sweep list restarted: its continue token expired', { kind, restarts }),
      );
      keys.push(...listed);
    }
    return keys;
  }

  private async listKind(kind: SweptKind, signal: AbortSignal | undefined): Promise<string[]> {
    const keys: string[] = [];
    try {
      for (const namespace of this.namespaces ?? [undefined]) {
        let next: string | undefined;
        do {
          const request = { limit: this.pageLimit, ...(namespace === undefined ? {} : { namespace }), ...(next === undefined ? {} : { continue: next }) };
          const page = await (signal ? withinBudget(signal, `list ${kind}s`, () => this.objects.listObjectPage(kind, request)) : this.objects.listObjectPage(kind, request));
          for (const object of page.items) {
            if (!isUnfinished(kind, object)) continue;
            const key = this.keyOf(kind, object);
            if (key !== undefined) keys.push(key);
          }
          next = page.continue;
        } while (next);
      }
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      this.logger.warn('sweep skipped a kind the API server does not serve (its CRD is not installed)', { kind });
      return [];
    }
    return keys;
  }

  private keyOf(kind: ControllerKind, object: KubeObject): string | undefined {
    const ref = { k8sCluster: this.k8sCluster, namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '' };
    const parsed = parseClusterKey(`${ref.k8sCluster}/${ref.namespace}/${ref.name}`);
    if (parsed.ok) return formatObjectKey(kind, parsed.ref);
    this.logger.error('sweep skipped an object whose key does not parse', { kind, field: parsed.field, error: parsed.message });
    return undefined;
  }
}
