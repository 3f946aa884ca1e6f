/**
 * Server-side printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), which `kubectl get`
 * asks for, for the storage kinds whose columns say what a user checks: PersistentVolumes (reclaim
 * policy, status, claim), PersistentVolumeClaims and StorageClasses, with the real server's columns.
 * Other kinds answer in their plain form, which kubectl prints as NAME and AGE.
 */
import type { KubeObject } from './object.js';

type Column = { name: string; type: string; format?: string; priority?: number };
type Printer = { columns: Column[]; cells: (obj: KubeObject, nowMs: number) => unknown[] };

const MODES: Readonly<Record<string, string>> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
const modes = (list: unknown): string => ((Array.isArray(list) ? list : []) as string[]).map((m) => MODES[m] ?? m).join(',');
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const name = (c: string): Column => ({ name: c, type: 'string', format: c === 'Name' ? 'name' : '' });
const age: Column = { name: 'Age', type: 'string' };

/** A duration as kubectl prints an age (`duration.HumanDuration`): 45s, 3m20s, 2h15m, 3d4h, 20d. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (h < 3) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

const ageOf = (obj: KubeObject, nowMs: number): string => {
  const created = Date.parse(text(obj.metadata.creationTimestamp));
  return Number.isNaN(created) ? '<unknown>' : humanDuration(nowMs - created);
};

const PRINTERS: Readonly<Record<string, Printer>> = {
  PersistentVolume: {
    columns: ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason'].map(name).concat(age),
    cells: (pv, nowMs) => {
      const ref = pv.spec?.claimRef as { namespace?: string; name?: string } | undefined;
      const claim = ref?.name ? `${ref.namespace ?? ''}/${ref.name}` : '';
      return [pv.metadata.name, text(pv.spec?.capacity?.storage), modes(pv.spec?.accessModes), text(pv.spec?.persistentVolumeReclaimPolicy), text(pv.status?.phase), claim, text(pv.spec?.storageClassName), '<unset>', text(pv.status?.reason), ageOf(pv, nowMs)];
    },
  },
  PersistentVolumeClaim: {
    columns: ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass'].map(name).concat(age),
    cells: (pvc, nowMs) => {
      const bound = pvc.status?.phase === 'Bound';
      return [pvc.metadata.name, text(pvc.status?.phase), text(pvc.spec?.volumeName), bound ? text(pvc.status?.capacity?.storage) : '', bound ? modes(pvc.status?.accessModes) : '', text(pvc.spec?.storageClassName), '<unset>', ageOf(pvc, nowMs)];
    },
  },
  StorageClass: {
    columns: ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion'].map(name).concat(age),
    cells: (sc, nowMs) => {
      const isDefault = sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true';
      return [`${sc.metadata.name ?? ''}${isDefault ? ' (default)' : ''}`, text(sc.provisioner), text(sc.reclaimPolicy), text(sc.volumeBindingMode), sc.allowVolumeExpansion === true, ageOf(sc, nowMs)];
    },
  },
};

/** Whether the request's Accept header asks for a Table first (what `kubectl get` sends). */
export function wantsTable(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0] ?? '';
  return /as=Table/.test(first) && /g=meta\.k8s\.io/.test(first);
}

/**
 * `body` (one object or a list of `kind`) as a meta.k8s.io/v1 Table, or undefined when `kind` has
 * no printer here. `includeObject` is the query parameter: `None`, `Object`, or (default) `Metadata`.
 */
export function asTable(kind: string, body: unknown, nowMs: number, includeObject: string | null): Record<string, unknown> | undefined {
  const printer = PRINTERS[kind];
  if (!printer || typeof body !== 'object' || body === null) return undefined;
  const list = body as { items?: KubeObject[]; metadata?: Record<string, unknown> };
  const items = Array.isArray(list.items) ? list.items : [body as KubeObject];
  const rows = items.map((obj) => ({ cells: printer.cells(obj, nowMs), ...rowObject(obj, includeObject) }));
  const metadata = Array.isArray(list.items) ? (list.metadata ?? {}) : { resourceVersion: (body as KubeObject).metadata.resourceVersion };
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions: printer.columns.map((c) => ({ description: '', priority: 0, format: '', ...c })), rows };
}

function rowObject(obj: KubeObject, includeObject: string | null): Record<string, unknown> {
  if (includeObject === 'None') return {};
  if (includeObject === 'Object') return { object: obj };
  return { object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata } };
}
