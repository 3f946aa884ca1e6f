/**
 * No-op detection. A watch MODIFIED event carries only the new object, so the exporter remembers a
 * fingerprint of each object's meaningful content and drops a MODIFIED whose fingerprint did not
 * change. The rules, per kind (ADDED and DELETED always count):
 *
 * - every kind: `metadata.resourceVersion` and `metadata.managedFields` never count;
 * - TidbCluster: `spec`, `metadata.generation`, labels, annotations, ownerReferences, finalizers and
 *   `deletionTimestamp` count; `status` does not — only the reconciler writes a TidbCluster's
 *   status, so a status-only change is the echo of its own step and must not trigger another one;
 * - Pod: labels, annotations, ownerReferences, finalizers, `deletionTimestamp`, `spec.nodeName`, the
 *   name and image of each (init) container; `status.phase`, `status.reason`, `status.podIP`, each
 *   condition's `type` and `status` (not its probe/transition times or message), and each (init)
 *   container status's `name`, `ready`, `started`, `restartCount` and state (`running`,
 *   `waiting:<reason>`, `terminated:<reason>`) — not timestamps, image IDs or container IDs;
 * - Backup, Restore and CompactBackup: labels, annotations, finalizers, `deletionTimestamp`, spec and status (the
 *   Job pod writes status: its progress is a trigger);
 * - TidbInitializer: as a TidbCluster (its Job's events carry the progress);
 * - TidbDashboard and TidbNGMonitoring: as a TidbCluster (their controller is their only status writer);
 * - Job: labels, ownerReferences, finalizers, `deletionTimestamp`, each condition's `type` and
 *   `status`, and `status.active`;
 * - Deployment (TiDB Operator's controller manager): labels, annotations, ownerReferences, finalizers,
 *   `deletionTimestamp`, `spec.replicas`, its first container's command and args (`-cluster-scoped`)
 *   and `status.readyReplicas` — what the coexistence verdict reads of it;
 * - StatefulSet and PersistentVolumeClaim: everything else, spec and status alike: a StatefulSet's
 *   status is the rolling update a step waits on, a PVC's status its binding and resize.
 *
 * An object not seen yet (first event after a restart) always counts: a duplicate trigger is
 * harmless, a lost one is not.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/port.js';
import type { WatchChange } from './ports.js';
import type { WatchedKind } from './resources.js';

type Json = unknown;

/** The part of `obj` whose change is worth a reconcile step, per the rules above. */
export function meaningfulView(kind: WatchedKind, obj: KubeObject): Json {
  switch (kind) {
    case 'TidbCluster':
    case 'TidbMonitor':
      return { meta: metaView(obj), generation: obj.metadata.generation, spec: obj.spec };
    case 'Pod':
      return { meta: metaView(obj), spec: podSpecView(obj.spec), status: podStatusView(obj.status) };
    case 'TidbInitializer':
      // Only its controller writes its status: a status-only change is the echo of its own step.
      return { meta: metaView(obj), generation: obj.metadata.generation, spec: obj.spec };
    case 'BackupSchedule':
      return { meta: metaView(obj), generation: obj.metadata.generation, spec: obj.spec, status: obj.status ?? null };
    case 'TidbDashboard':
    case 'TidbNGMonitoring':
      // Their controller is the only status writer: its own status write is no trigger.
      return { meta: metaView(obj), generation: obj.metadata.generation, spec: obj.spec };
    case 'Backup':
    case 'Restore':
    case 'CompactBackup':
      // The Job pod writes their status (v1's second status writer): its progress is a trigger.
      return { meta: metaView(obj), generation: obj.metadata.generation, spec: obj.spec, status: obj.status ?? null };
    case 'Job':
      return { meta: metaView(obj), conditions: asArray(obj.status?.conditions).map((c) => ({ type: field(c, 'type'), status: field(c, 'status') })), active: obj.status?.active ?? null };
    case 'Deployment': {
      const container = asArray((obj.spec?.template as { spec?: { containers?: unknown } } | undefined)?.spec?.containers)[0];
      return { meta: metaView(obj), replicas: obj.spec?.replicas ?? null, command: field(container, 'command'), args: field(container, 'args'), readyReplicas: obj.status?.readyReplicas ?? null };
    }
    case 'StatefulSet':
    case 'PersistentVolumeClaim': {
      const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
      return { ...obj, metadata };
    }
    default:
      return assertNever(kind);
  }
}

/** A short stable digest of `meaningfulView` (key order does not matter). */
export function fingerprint(kind: WatchedKind, obj: KubeObject): string {
  return createHash('sha1').update(canonicalJson(meaningfulView(kind, obj))).digest('base64');
}

function metaView(obj: KubeObject): Json {
  const m = obj.metadata;
  return {
    labels: m.labels ?? {},
    annotations: m.annotations ?? {},
    ownerReferences: m.ownerReferences ?? [],
    finalizers: m.finalizers ?? [],
    deletionTimestamp: m.deletionTimestamp ?? null,
  };
}

function podSpecView(spec: Record<string, unknown> | undefined): Json {
  const containers = (list: unknown): Json => asArray(list).map((c) => ({ name: field(c, 'name'), image: field(c, 'image') }));
  return { nodeName: spec?.nodeName ?? null, containers: containers(spec?.containers), initContainers: containers(spec?.initContainers) };
}

function podStatusView(status: Record<string, unknown> | undefined): Json {
  return {
    phase: status?.phase ?? null,
    reason: status?.reason ?? null,
    podIP: status?.podIP ?? null,
    conditions: asArray(status?.conditions).map((c) => ({ type: field(c, 'type'), status: field(c, 'status') })),
    containers: asArray(status?.containerStatuses).map(containerStatusView),
    initContainers: asArray(status?.initContainerStatuses).map(containerStatusView),
  };
}

function containerStatusView(c: unknown): Json {
  return { name: field(c, 'name'), ready: field(c, 'ready'), started: field(c, 'started'), restartCount: field(c, 'restartCount'), state: stateOf(field(c, 'state')) };
}

/** `running`, `waiting:<reason>` or `terminated:<reason>`: what changed, without its timestamps. */
function stateOf(state: unknown): string | null {
  if (typeof state !== 'object' || state === null) return null;
  for (const phase of ['running', 'waiting', 'terminated']) {
    const detail = (state as Record<string, unknown>)[phase];
    if (detail === undefined) continue;
    const reason = field(detail, 'reason');
    return typeof reason === 'string' ? `${phase}:${reason}` : phase;
  }
  return null;
}

function field(obj: unknown, name: string): Json {
  return typeof obj === 'object' && obj !== null ? ((obj as Record<string, unknown>)[name] ?? null) : null;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** JSON with object keys sorted, so two equal views always hash alike. */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function assertNever(kind: never): never {
  throw new Error(`unhandled kind ${String(kind)}`);
}

/** What the filter remembers of one object: its fingerprint and the key it mapped to. */
export type Remembered = { fingerprint: string; key: string | undefined };

/**
 * The fingerprints of one watched resource's objects, by `namespace/name`, as of the last event the
 * exporter handled for that resource. Valid only together with that resource's position: a watch
 * resumed from another position must start from an empty filter (see `Exporter`'s carry-over).
 */
export class ChangeFilter {
  private readonly seen: Map<string, Remembered>;

  constructor(
    private readonly kind: WatchedKind,
    entries: Iterable<[string, Remembered]> = [],
  ) {
    this.seen = new Map(entries);
  }

  /** Records `change` (mapped to `key`) and says whether it is meaningful under the rules above. */
  observe(change: WatchChange, key: string | undefined): boolean {
    const id = objectId(change.object);
    if (change.type === 'DELETED') {
      this.seen.delete(id);
      return true;
    }
    const next = fingerprint(this.kind, change.object);
    const before = this.seen.get(id);
    this.seen.set(id, { fingerprint: next, key });
    return change.type === 'ADDED' || before === undefined || before.fingerprint !== next || before.key !== key;
  }

  /**
   * Replaces everything with a LIST's items (each with its key) and returns the keys of objects that
   * were remembered but are gone: deleted while the watch could not see it, so their clusters need
   * a step too.
   */
  reset(items: readonly { object: KubeObject; key: string | undefined }[]): string[] {
    const before = new Map(this.seen);
    this.seen.clear();
    for (const { object, key } of items) {
      const id = objectId(object);
      this.seen.set(id, { fingerprint: fingerprint(this.kind, object), key });
      before.delete(id);
    }
    return [...new Set([...before.values()].flatMap((r) => (r.key === undefined ? [] : [r.key])))];
  }

  /** The remembered entries, to carry into a later session that resumes from the same position. */
  entries(): [string, Remembered][] {
    return [...this.seen];
  }
}

function objectId(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}
