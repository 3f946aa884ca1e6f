/**
 * Key encoding for the state table (docs/ARCHITECTURE.md, State). Every partition and sort key the adapter writes is
 * built here, so the layout can be read in one place and checked by a table test.
 */

import { CONTROLLER_KINDS } from '../model/object-key.js';
import { TerminalError } from '../platform/errors.js';

/** The three parts of a cluster key `<k8sCluster>/<namespace>/<name>`. */
export type ClusterKeyParts = { k8sCluster: string; namespace: string; name: string };

/** The sort key of the per-cluster state item (lease, fence, dirty, failures, next wake-up,
 * deadlines). */
export const STATE_SK = 'state';

/** The sort key of an exporter checkpoint item. */
export const CHECKPOINT_SK = 'checkpoint';

/** Sort-key prefix shared by every history item of a cluster; used to Query them newest first. */
export const HISTORY_PREFIX = 'history#';

// 15 digits keep epoch milliseconds sortable as text far past any realistic date.
const TS_DIGITS = 15;
// Fences are per-key step counters; 12 digits is a trillion steps per cluster.
const SEQ_DIGITS = 12;

/**
 * Splits and validates a cluster key. Each part must be non-empty and free of `#` and `/`, because
 * `#` separates key parts in the table and a stray one would let two clusters share an item.
 * Throws `TerminalError` for a malformed key: retrying cannot fix it.
 */
export function parseClusterKey(key: string): ClusterKeyParts {
  const parts = key.split('/');
  const [k8sCluster, namespace, name] = parts;
  if (parts.length !== 3 || k8sCluster === undefined || namespace === undefined || name === undefined) {
    throw new TerminalError(`cluster key ${JSON.stringify(key)} is not <k8sCluster>/<namespace>/<name>`, {
      field: 'key',
    });
  }
  for (const part of parts) assertSegment(part, 'cluster key');
  return { k8sCluster, namespace, name };
}

/**
 * The partition key of an object key (`object-key.ts`): a TidbCluster's `tc#<cluster>#<ns>#<name>`
 * (unchanged), another controller kind's `<kind lower-cased>#<cluster>#<ns>#<name>`, so a Backup and
 * a TidbCluster of one name never share an item. Validates the key first.
 */
export function clusterPk(key: string): string {
  const colon = key.indexOf(':');
  const kind = colon < 0 ? undefined : key.slice(0, colon);
  if (kind !== undefined && !PREFIXED_KINDS.has(kind)) {
    throw new TerminalError(`object key ${JSON.stringify(key)} names kind ${JSON.stringify(kind)}, not a controller kind`, { field: 'key' });
  }
  const { k8sCluster, namespace, name } = parseClusterKey(colon < 0 ? key : key.slice(colon + 1));
  return `${kind === undefined ? 'tc' : kind.toLowerCase()}#${k8sCluster}#${namespace}#${name}`;
}

// The kinds whose keys carry a prefix (every controller kind but TidbCluster), as `object-key.ts`.
const PREFIXED_KINDS: ReadonlySet<string> = new Set(CONTROLLER_KINDS.filter((k) => k !== 'TidbCluster'));

/** The entry of one deadline in the state item's deadlines map: `<component>#<member>#<kind>`. */
export function deadlineId(component: string, member: string, kind: string): string {
  for (const part of [component, member, kind]) assertSegment(part, 'deadline');
  return `${component}#${member}#${kind}`;
}

/** The entry of one pod's store id in the state item's `storeIds` map: `<component>#<podName>`. */
export function storeIdEntry(component: string, podName: string): string {
  for (const part of [component, podName]) assertSegment(part, 'store id');
  return `${component}#${podName}`;
}

/**
 * The sort key of one history record: `history#<ts>#<seq>`, both zero-padded so that text order is
 * time order and a descending Query returns the newest record first.
 */
export function historySk(atMs: number, seq: number): string {
  return `${HISTORY_PREFIX}${pad(atMs, TS_DIGITS, 'atMs')}#${pad(seq, SEQ_DIGITS, 'seq')}`;
}

/** The partition key of an exporter checkpoint: `exporter#<cluster>#<resource>`. */
export function checkpointPk(k8sCluster: string, resource: string): string {
  assertSegment(k8sCluster, 'checkpoint');
  assertSegment(resource, 'checkpoint');
  return `exporter#${k8sCluster}#${resource}`;
}

function assertSegment(part: string, what: string): void {
  if (part === '' || part.includes('#') || part.includes('/')) {
    throw new TerminalError(`${what} part ${JSON.stringify(part)} must be non-empty without '#' or '/'`);
  }
}

function pad(n: number, digits: number, what: string): string {
  if (!Number.isSafeInteger(n) || n < 0 || String(n).length > digits) {
    throw new TerminalError(`${what} ${n} is not a non-negative integer of at most ${digits} digits`);
  }
  return String(n).padStart(digits, '0');
}
