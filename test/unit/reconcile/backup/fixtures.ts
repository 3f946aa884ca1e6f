/**
 * Builders for Backup and Restore rule tests: a Backup / Restore / Job base plus small changes, and a
 * snapshot around them (a Ready TidbCluster `basic` in `demo`, TiKV v8.5.0, no Jobs).
 */

import type { TidbCluster } from '../../../../lib/model/kube.js';
import type { Action, CreateAction } from '../../../../lib/model/action.js';
import type { Plan } from '../../../../lib/model/plan.js';
import type { BackupSnapshot } from '../../../../lib/reconcile/backup/snapshot.js';
import type { Backup, BackupSpec, Job, Restore, RestoreSpec } from '../../../../lib/reconcile/backup/types.js';
import type { RestoreSnapshot } from '../../../../lib/reconcile/restore/snapshot.js';
import { T0, tidbCluster } from '../../../support/fixtures.js';

/** A Ready TidbCluster `demo/basic`. */
export function readyTc(...changes: ((tc: TidbCluster) => TidbCluster)[]): TidbCluster {
  const tc = tidbCluster((t) => ({ ...t, status: { conditions: [{ type: 'Ready', status: 'True' }] } }) as TidbCluster);
  return changes.reduce((t, c) => c(t), tc);
}

/** A BR snapshot Backup `demo/<name>` to `s3://backups/<name>` with IRSA (no Secret). */
export function backup(spec: Partial<BackupSpec> = {}, over: Partial<Backup> = {}, name = 'b1'): Backup {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'Backup',
    metadata: { name, namespace: 'demo', uid: `uid-${name}`, resourceVersion: '7', ...(over.metadata ?? {}) },
    spec: { br: { cluster: 'basic' }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: name }, ...spec },
    ...(over.status ? { status: over.status } : {}),
  };
}

/** A BR Restore `demo/<name>` from `s3://backups/b1`. */
export function restore(spec: Partial<RestoreSpec> = {}, over: Partial<Restore> = {}, name = 'r1'): Restore {
  return {
    apiVersion: 'pingcap.com/v1alpha1',
    kind: 'Restore',
    metadata: { name, namespace: 'demo', uid: `uid-${name}`, resourceVersion: '9', ...(over.metadata ?? {}) },
    spec: { br: { cluster: 'basic', clusterNamespace: 'demo' }, s3: { provider: 'aws', region: 'us-west-2', bucket: 'backups', prefix: 'b1' }, ...spec },
    ...(over.status ? { status: over.status } : {}),
  };
}

/** A Job `demo/<name>`: running, or with a True condition of `condition`, optionally being deleted. */
export function job(name: string, condition?: 'Complete' | 'Failed', deleting = false): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'demo', uid: `uid-${name}`, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    status: condition === undefined ? { active: 1 } : { conditions: [{ type: condition, status: 'True', reason: condition === 'Failed' ? 'BackoffLimitExceeded' : 'Completed' }] },
  };
}

/** A Backup snapshot at T0 (plus `atMs`). */
export function backupSnap(b: Backup | undefined, over: Partial<BackupSnapshot> = {}): BackupSnapshot {
  return { nowMs: T0, backup: b, tc: readyTc(), jobs: {}, s3SecretKeys: undefined, managerImage: 'pingcap/tidb-backup-manager:v1.6.6', ...over };
}

/** A Restore snapshot at T0 into an empty target. */
export function restoreSnap(r: Restore | undefined, over: Partial<RestoreSnapshot> = {}): RestoreSnapshot {
  return { nowMs: T0, restore: r, tc: readyTc(), jobs: {}, s3SecretKeys: undefined, targetData: { kind: 'empty' }, tikvGcRatioThreshold: undefined, managerImage: 'pingcap/tidb-backup-manager:v1.6.6', ...over };
}

/** Jobs by name. */
export function jobs(...list: Job[]): Record<string, Job> {
  return Object.fromEntries(list.map((j) => [j.metadata.name ?? '', j]));
}

/** The object the plan writes back (its one `update` of the Backup or Restore). */
export function written(plan: Plan): { metadata: { finalizers?: string[] }; status: Record<string, unknown> & { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] } } | undefined {
  const update = plan.actions.find((a) => a.kind === 'update');
  return update?.kind === 'update' ? (update.object as never) : undefined;
}

/** The Jobs the plan creates. */
export function created(plan: Plan): CreateAction[] {
  return plan.actions.filter((a): a is CreateAction => a.kind === 'create');
}

/** The kinds and names of the plan's actions, e.g. `create Job backup-b1`. */
export function summary(plan: Plan): string[] {
  return plan.actions.map((a: Action) => ('ref' in a ? `${a.kind} ${a.ref.kind} ${a.ref.name}` : a.kind === 'event' ? `event ${a.reason}` : a.kind));
}

/** The env of a created Job's first container as name → value (or `ref:<secret>/<key>`). */
export function envOf(action: CreateAction): Record<string, string> {
  const containers = ((action.object as { spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[] }[] } } } }).spec?.template?.spec?.containers ?? []);
  const env = containers[0]?.env ?? [];
  return Object.fromEntries(env.map((e) => [e.name, e.value ?? `ref:${e.valueFrom?.secretKeyRef?.name}/${e.valueFrom?.secretKeyRef?.key}`]));
}

/** The args of a created Job's first container. */
export function argsOf(action: CreateAction): string[] {
  return ((action.object as { spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } }).spec?.template?.spec?.containers?.[0]?.args ?? []);
}

export { T0 };
