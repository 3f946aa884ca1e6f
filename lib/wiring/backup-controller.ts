/**
 * The Backup controller as a deployment runs it: its reads (the Backup, the TidbCluster `br.cluster`
 * names, this Backup's Jobs, the key names of its S3 Secret) through the `ObjectReader` port, and the
 * Backup recipe (`lib/reconcile/backup/recipe.ts`) to decide. Reads only; every call is bounded by the
 * step's clients' deadline.
 */

import type { ObjectReader } from '../kube/port.js';
import type { TidbCluster } from '../model/kube.js';
import { DEFAULT_BACKUP_MANAGER_IMAGE } from '../reconcile/backup/job.js';
import { planBackup } from '../reconcile/backup/recipe.js';
import type { BackupSnapshot } from '../reconcile/backup/snapshot.js';
import type { Backup, Job } from '../reconcile/backup/types.js';
import { observeWith, type Controller } from '../step/controller.js';
import type { PdEtcdPort } from '../pd/etcd.js';
import { logKernelKeys, logKernelStateOf } from '../reconcile/backup/log-kernel.js';
import { logTrackDueAtMs, type LogKernelObservation } from '../reconcile/backup/log-tracker.js';
import type { ClusterTarget } from './clients.js';

/**
 * What the backup controllers are built with: the reader, the backup-manager image (the operator's
 * `--tidb-backup-manager-image`), and for the Backup controller's log-backup tracker the reads of a
 * cluster's PD etcd (without them a log backup's checkpoint is not tracked).
 */
export type BackupControllerOptions = { readonly objects: ObjectReader; readonly managerImage?: string; readonly pdEtcd?: (target: ClusterTarget) => PdEtcdPort };

/** The Backup controller. */
export function backupController(options: BackupControllerOptions): Controller<BackupSnapshot> {
  return {
    kind: 'Backup',
    observe: (ctx) => observeWith(() => observeBackup(options, ctx.ref.namespace, ctx.ref.name, ctx.ports.clock.nowMs.bind(ctx.ports.clock), ctx.claimed.nextWakeAtMs)),
    decide: planBackup,
    subject: (snap) => ({ cluster: undefined, gone: snap.backup === undefined }),
  };
}

async function observeBackup(options: BackupControllerOptions, ns: string, name: string, now: () => number, storedWakeAtMs: number | undefined): Promise<BackupSnapshot> {
  const { objects } = options;
  const managerImage = options.managerImage ?? DEFAULT_BACKUP_MANAGER_IMAGE;
  const backup = (await objects.getObject('Backup', ns, name)) as Backup | undefined;
  if (backup === undefined) return { nowMs: now(), backup, tc: undefined, jobs: {}, s3SecretKeys: undefined, managerImage };
  const br = backup.spec?.br;
  const [tc, jobs, s3SecretKeys, tidbSecretKeys] = await Promise.all([
    br?.cluster ? (objects.getObject('TidbCluster', br.clusterNamespace || ns, br.cluster) as Promise<TidbCluster | undefined>) : Promise.resolve(undefined),
    objects.listObjects('Job', ns, { 'tidb.pingcap.com/backup': name }),
    backup.spec?.s3?.secretName ? objects.secretKeys(ns, backup.spec.s3.secretName) : Promise.resolve(undefined),
    backup.spec?.from?.secretName ? objects.secretKeys(ns, backup.spec.from.secretName) : Promise.resolve(undefined),
  ]);
  const logKernel = await observeLogKernel(options, backup, tc, now(), storedWakeAtMs);
  return { nowMs: now(), backup, tc, jobs: byName(jobs as Job[]), s3SecretKeys, ...(tidbSecretKeys ? { tidbSecretKeys } : {}), managerImage, ...(logKernel ? { logKernel } : {}) };
}

/**
 * The log-backup task's keys in the cluster's PD etcd, when the tracker is due (log-tracker.ts). A
 * failed read is an observation, not a failed step: the rule reports it and reads again an interval
 * later. Each read is bounded by the component caller's timeout and the step's deadline.
 */
async function observeLogKernel(options: BackupControllerOptions, backup: Backup, tc: TidbCluster | undefined, nowMs: number, storedWakeAtMs: number | undefined): Promise<LogKernelObservation | undefined> {
  const dueAtMs = logTrackDueAtMs(backup, storedWakeAtMs, nowMs);
  if (dueAtMs === undefined || options.pdEtcd === undefined || tc === undefined) return undefined;
  if (dueAtMs > nowMs) return { kind: 'notDue', dueAtMs };
  const tls = (tc.spec as { tlsCluster?: { enabled?: boolean } } | undefined)?.tlsCluster?.enabled === true;
  const etcd = options.pdEtcd({ namespace: tc.metadata.namespace ?? '', tcName: tc.metadata.name ?? '', tls });
  const keys = logKernelKeys(backup.metadata.name ?? '');
  try {
    const [checkpoint, info, pause] = await Promise.all([etcd.get(keys.checkpoint, true), etcd.get(keys.info, false), etcd.get(keys.pause, false)]);
    return { kind: 'read', state: logKernelStateOf({ checkpoint: checkpoint[0]?.value, info: info[0]?.value, pause: pause[0]?.value }) };
  } catch (err) {
    return { kind: 'failed', message: err instanceof Error ? err.message : String(err) };
  }
}

/** Jobs by name. */
export function byName(jobs: readonly Job[]): Record<string, Job> {
  return Object.fromEntries(jobs.map((job) => [job.metadata.name ?? '', job]));
}
