/**
 * Object keys: the identity of one object a controller reconciles, as the queue, the state table, the
 * timers and the logs carry it. As TiDB Operator's controller manager runs one work queue per
 * controller, every key names its kind: a TidbCluster's key is its cluster key unchanged
 * (`<k8sCluster>/<namespace>/<name>`, so every key and message that existed before keeps working), any
 * other kind's is prefixed with the kind (`Backup:<k8sCluster>/<namespace>/<name>`). `:` appears in no
 * part of a cluster key (see `key.ts`), so the two forms never overlap.
 */

import { quoteForEcho } from './echo.js';
import { formatClusterKey, parseClusterKey, type ClusterRef } from './key.js';

/** The kinds the controller manager reconciles, each with its own controller and recipe. */
export const CONTROLLER_KINDS = [
  'TidbCluster',
  'Backup',
  'Restore',
  'CompactBackup',
  'BackupSchedule',
  'TidbInitializer',
  'TidbMonitor',
  'TidbDashboard',
  'TidbNGMonitoring',
] as const;

/** One of `CONTROLLER_KINDS`. */
export type ControllerKind = (typeof CONTROLLER_KINDS)[number];

/** A parsed object key: the kind and the object's three parts. */
export type ObjectKeyRef = { readonly kind: ControllerKind; readonly ref: ClusterRef };

/** The result of parsing an object key: its kind and parts, or the first bad part with why. */
export type ObjectKeyResult =
  | { readonly ok: true; readonly kind: ControllerKind; readonly ref: ClusterRef }
  | { readonly ok: false; readonly field: string; readonly message: string };

/**
 * Parses a key of either form. Guarantees: never throws; a key without a kind prefix is a TidbCluster
 * key (exactly as `parseClusterKey` reads it); a prefix must be a controller kind other than
 * TidbCluster (whose key is never prefixed, so each object has one key); on failure `field` names the
 * first bad part (`kind`, `key`, `k8sCluster`, `namespace`, `name`).
 */
export function parseObjectKey(key: string): ObjectKeyResult {
  const colon = key.indexOf(':');
  const kind = colon < 0 ? 'TidbCluster' : key.slice(0, colon);
  if (!isControllerKind(kind) || (colon >= 0 && kind === 'TidbCluster')) {
    const known = CONTROLLER_KINDS.filter((k) => k !== 'TidbCluster').join(', ');
    return { ok: false, field: 'kind', message: `key kind must be one of ${known} (a TidbCluster key has no prefix), got ${quoteForEcho(kind)}` };
  }
  const parsed = parseClusterKey(colon < 0 ? key : key.slice(colon + 1));
  return parsed.ok ? { ok: true, kind, ref: parsed.ref } : parsed;
}

/** Builds the key of `ref` for `kind`; throws a `TypeError` naming the bad part, as `formatClusterKey`. */
export function formatObjectKey(kind: ControllerKind, ref: ClusterRef): string {
  const clusterKey = formatClusterKey(ref);
  return kind === 'TidbCluster' ? clusterKey : `${kind}:${clusterKey}`;
}

/** Whether `kind` is a controller kind (the queue's `kind`, a watch's kind). */
export function isControllerKind(kind: string): kind is ControllerKind {
  return (CONTROLLER_KINDS as readonly string[]).includes(kind);
}
