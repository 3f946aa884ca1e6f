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

/** What the backup controllers are built with: the reader and the backup-manager image (the operator's `--tidb-backup-manager-image`). */
export type BackupControllerOptions = { readonly objects: ObjectReader; readonly managerImage?: string };

/** The Backup controller. */
export function backupController(options: BackupControllerOptions): Controller<BackupSnapshot> {
  return {
    kind: 'Backup',
    observe: (ctx) => observeWith(() => observeBackup(options, ctx.ref.namespace, ctx.ref.name, ctx.ports.clock.nowMs.bind(ctx.ports.clock))),
    decide: planBackup,
    subject: (snap) => ({ cluster: undefined, gone: snap.backup === undefined }),
  };
}

async function observeBackup(options: BackupControllerOptions, ns: string, name: string, now: () => number): Promise<BackupSnapshot> {
  const { objects } = options;
  const managerImage = options.managerImage ?? DEFAULT_BACKUP_MANAGER_IMAGE;
  const backup = (await objects.getObject('Backup', ns, name)) as Backup | undefined;
  if (backup === undefined) return { nowMs: now(), backup, tc: undefined, jobs: {}, s3SecretKeys: undefined, managerImage };
  const br = backup.spec?.br;
  const [tc, jobs, s3SecretKeys] = await Promise.all([
    br?.cluster ? (objects.getObject('TidbCluster', br.clusterNamespace || ns, br.cluster) as Promise<TidbCluster | undefined>) : Promise.resolve(undefined),
    objects.listObjects('Job', ns, { 'tidb.pingcap.com/backup': name }),
    backup.spec?.s3?.secretName ? objects.secretKeys(ns, backup.spec.s3.secretName) : Promise.resolve(undefined),
  ]);
  return { nowMs: now(), backup, tc, jobs: byName(jobs as Job[]), s3SecretKeys, managerImage };
}

/** Jobs by name. */
export function byName(jobs: readonly Job[]): Record<string, Job> {
  return Object.fromEntries(jobs.map((job) => [job.metadata.name ?? '', job]));
}
