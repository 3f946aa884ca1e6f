/**
 * How the simulated backup-manager reads and writes its Backup / Restore through the API server, as
 * the pod's service account (`system:serviceaccount:<ns>:<sa>`, RBAC enforced: TiDB Operator's
 * backup-rbac.yaml grants get/update on backups and restores), and the condition bookkeeping of
 * v1's second status writer: one entry per condition type, `status.phase` = the type of the last
 * condition written except for `Restart` (UpdateBackupCondition, pkg/apis/pingcap/v1alpha1/backup.go:131-171,
 * UpdateRestoreCondition, restore.go:66-96), `timeTaken` recomputed whenever `timeCompleted` is
 * written; writes are full-object Updates (these CRDs have no /status) retried on conflict
 * (retry.DefaultRetry, 5 steps).
 */
import { ApiError } from '../api-error.js';
import { type KubeObject, rfc3339 } from '../object.js';
import { type RbacUser, authorize } from '../rbac.js';
import type { ObjectStore } from '../store.js';

/** A condition of a Backup / Restore (command set for log sub-commands). */
export type CrCondition = { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string; command?: string };

const PLURALS: Readonly<Record<string, string>> = { Backup: 'backups', Restore: 'restores', CompactBackup: 'compactbackups' };

/** A write the pod's service account may not make, or an object that is gone: the process exits non-zero with this message. */
export class CrAccessError extends Error {
  override readonly name = 'CrAccessError';
}

/** The pod's view of its custom resource through the API server. */
export class CrClient {
  private events = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly user: RbacUser,
  ) {}

  /** The service account user of a pod. */
  static userOf(pod: KubeObject): RbacUser {
    const ns = pod.metadata.namespace ?? '';
    const sa = typeof pod.spec?.serviceAccountName === 'string' && pod.spec.serviceAccountName ? pod.spec.serviceAccountName : 'default';
    return { name: `system:serviceaccount:${ns}:${sa}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] };
  }

  /** GET the object; Forbidden / NotFound as the API server words them. */
  get(kind: string, namespace: string, name: string): KubeObject {
    this.check('get', kind, namespace, name);
    const obj = this.store.get(kind, namespace, name);
    if (!obj) throw new CrAccessError(`${PLURALS[kind] ?? kind}.pingcap.com "${name}" not found`);
    return obj;
  }

  /** Re-reads the object, applies `change` to its status, and Updates it; retried on conflict (5 steps). */
  updateStatus(kind: string, namespace: string, name: string, change: (status: Record<string, unknown>) => Record<string, unknown>): void {
    for (let attempt = 0; ; attempt++) {
      const fresh = this.get(kind, namespace, name);
      this.check('update', kind, namespace, name);
      try {
        this.store.update(kind, { ...fresh, status: change(structuredClone(fresh.status ?? {})) });
        return;
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409) || attempt >= 4) throw err;
      }
    }
  }

  /**
   * Records an Event on the custom resource as the pod's recorder does (component `component`):
   * best effort — a refused or failed create is dropped, as client-go's recorder drops it.
   */
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, component: string): void {
    const ns = obj.metadata.namespace ?? '';
    if (!authorize(this.store, this.user, { verb: 'create', apiGroup: '', resource: 'events', name: '', namespace: ns }).allowed) return;
    const at = rfc3339(this.store.clock.nowMs());
    try {
      this.store.create('Event', {
        // client-go's recorder names an Event `<object>.<unix nanoseconds in hex>`.
        metadata: { name: `${obj.metadata.name ?? ''}.${(BigInt(this.store.clock.nowMs()) * 1_000_000n + BigInt(this.events++)).toString(16)}`, namespace: ns },
        involvedObject: { kind: obj.kind, apiVersion: obj.apiVersion, namespace: ns, name: obj.metadata.name, uid: obj.metadata.uid },
        type,
        reason,
        message,
        source: { component },
        reportingComponent: component,
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      });
    } catch {
      // client-go's recorder never fails its caller.
    }
  }

  private check(verb: string, kind: string, namespace: string, name: string): void {
    const resource = PLURALS[kind] ?? kind.toLowerCase();
    const decision = authorize(this.store, this.user, { verb, apiGroup: 'pingcap.com', resource, name, namespace });
    if (!decision.allowed) {
      throw new CrAccessError(`${resource}.pingcap.com "${name}" is forbidden: User "${this.user.name}" cannot ${verb} resource "${resource}" in API group "pingcap.com" in the namespace "${namespace}"`);
    }
  }
}

/**
 * `status` with `condition` recorded as v1 does: replaces the entry of the same type (its
 * lastTransitionTime kept unless the status flips), appends a new type; phase follows unless the
 * type is Restart. `extra` status fields are merged, and timeTaken follows timeCompleted.
 */
export function withCrCondition(status: Record<string, unknown>, condition: CrCondition, nowMs: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const conditions = ((status.conditions ?? []) as CrCondition[]).slice();
  const i = conditions.findIndex((c) => c.type === condition.type);
  const before = i >= 0 ? conditions[i] : undefined;
  const at = before && before.status === condition.status && before.lastTransitionTime ? before.lastTransitionTime : rfc3339(nowMs);
  const entry: CrCondition = { ...condition, lastTransitionTime: at };
  if (i >= 0) conditions[i] = entry;
  else conditions.push(entry);
  const next: Record<string, unknown> = { ...status, ...extra, conditions };
  if (condition.type !== 'Restart') next.phase = condition.type;
  return withTimeTaken(next);
}

/** `timeTaken` = timeCompleted − timeStarted as a Go duration rounded to seconds (`1m30s`), when both are set. */
export function withTimeTaken(status: Record<string, unknown>): Record<string, unknown> {
  const started = Date.parse(String(status.timeStarted ?? ''));
  const completed = Date.parse(String(status.timeCompleted ?? ''));
  if (Number.isNaN(started) || Number.isNaN(completed)) return status;
  return { ...status, timeTaken: goDuration(Math.round((completed - started) / 1000)) };
}

/** A whole number of seconds as Go's time.Duration prints it (`0s`, `45s`, `2m5s`, `1h0m3s`). */
export function goDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

/** Bytes as go-humanize's Bytes (SI units, as v1's backupSizeReadable): `0 B`, `977 kB`, `1.2 GB`. */
export function humanBytes(bytes: number): string {
  if (bytes < 10) return `${bytes} B`;
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  const e = Math.min(Math.floor(Math.log(bytes) / Math.log(1000)), units.length - 1);
  const v = bytes / 1000 ** e;
  return `${v < 10 ? (Math.round(v * 10) / 10).toFixed(1) : Math.round(v)} ${units[e]}`;
}
