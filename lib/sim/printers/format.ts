/**
 * The building blocks of server-side printing: a printer's shape, the column definitions every
 * kind shares (NAME, AGE), and the cell formats of Kubernetes' printers (pkg/printers/internalversion):
 * ages as `duration.HumanDuration`, label maps and selectors as `labels.String()`, access modes
 * as RWO/ROX/RWX/RWOP.
 */
import { humanDuration } from '../../platform/duration.js';
import type { KubeObject } from '../object.js';

export { humanDuration };

/** A column as a meta.k8s.io Table declares it; `priority` > 0 is shown only by `kubectl get -o wide`. */
export type TableColumn = { readonly name: string; readonly type: string; readonly format?: string; readonly description?: string; readonly priority?: number };

/** A table cell: what the real server puts in `rows[].cells` (kubectl prints null as an empty cell). */
export type Cell = string | number | boolean | null;

/** A row condition (pods only: Completed for Succeeded and Failed pods). */
export type RowCondition = { type: string; status: string; reason: string; message: string };

/**
 * How one kind prints: its column definitions and, per object, one cell per column (the server
 * always computes the wide cells; kubectl hides priority > 0 columns unless `-o wide`).
 */
export type TablePrinter = {
  readonly columns: readonly TableColumn[];
  readonly cells: (obj: KubeObject, nowMs: number) => Cell[];
  readonly conditions?: (obj: KubeObject) => RowCondition[] | undefined;
};

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The NAME column every printer starts with (format `name`, so kubectl can prefix `kind/`). */
export const NAME_COLUMN: TableColumn = { name: 'Name', type: 'string', format: 'name', description: NAME_DOC };

/** The AGE column of the built-in printers (a string cell: the age already formatted). */
export const AGE_COLUMN: TableColumn = { name: 'Age', type: 'string', description: CREATED_DOC };

/** The description of `metadata.creationTimestamp`, for date columns built elsewhere. */
export const CREATION_TIMESTAMP_DOC = CREATED_DOC;

/** A plain string column; `priority` 1 makes it a wide column. */
export function column(name: string, priority = 0, type = 'string'): TableColumn {
  return priority > 0 ? { name, type, priority } : { name, type };
}

/** The age of an RFC 3339 timestamp at `nowMs` (`translateTimestampSince`); `<unknown>` when unset. */
export function since(timestamp: unknown, nowMs: number): string {
  const at = typeof timestamp === 'string' && timestamp !== '' ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(at) ? '<unknown>' : humanDuration(nowMs - at);
}

/** The object's age at `nowMs`, as the AGE column prints it. */
export function ageOf(obj: KubeObject, nowMs: number): string {
  return since(obj.metadata.creationTimestamp, nowMs);
}

/** `v` when it is a string, '' otherwise (a missing field prints as an empty cell). */
export function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** `v` when it is a number, 0 otherwise (Go's zero value of an unset count). */
export function count(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** `v` when it is a list, [] otherwise. */
export function list<T = Record<string, unknown>>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** `v` when it is a plain object, {} otherwise. */
export function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

const ACCESS_MODES: readonly [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** Access modes as `GetAccessModesAsString`: each present mode once, in the fixed order RWO, ROX, RWX, RWOP. */
export function accessModes(modes: unknown): string {
  const present = new Set(list<string>(modes));
  return ACCESS_MODES.filter(([mode]) => present.has(mode)).map(([, short]) => short).join(',');
}

/** A label map as `labels.FormatLabels`: `k=v` sorted by key, comma-separated; `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(record(labels)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

/**
 * A LabelSelector as `metav1.LabelSelectorAsSelector(...).String()`: requirements sorted by key,
 * `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; '' for an empty or missing selector.
 */
export function formatSelector(selector: unknown): string {
  const sel = record(selector);
  const reqs: [string, string][] = Object.entries(record(sel.matchLabels)).map(([k, v]) => [k, `${k}=${String(v)}`]);
  for (const e of list(sel.matchExpressions)) {
    const key = text(e.key);
    const values = [...new Set(list<string>(e.values))].sort().join(',');
    const op = text(e.operator);
    if (op === 'In') reqs.push([key, `${key} in (${values})`]);
    else if (op === 'NotIn') reqs.push([key, `${key} notin (${values})`]);
    else if (op === 'Exists') reqs.push([key, key]);
    else if (op === 'DoesNotExist') reqs.push([key, `!${key}`]);
  }
  return reqs
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r)
    .join(',');
}

/** The container names and images of a pod template, comma-separated (`layoutContainerCells`). */
export function containerCells(template: unknown): [string, string] {
  const containers = list(record(record(template).spec).containers);
  return [containers.map((c) => text(c.name)).join(','), containers.map((c) => text(c.image)).join(',')];
}

/** The creation time as RFC 3339 in UTC (Go's zero time when unset), as the Role printer and the default table print it. */
export function createdAt(obj: KubeObject): string {
  const at = Date.parse(text(obj.metadata.creationTimestamp));
  return Number.isNaN(at) ? '0001-01-01T00:00:00Z' : new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
