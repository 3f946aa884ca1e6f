/**
 * The CompactBackup controller as a deployment runs it: its reads (the CompactBackup, the TidbCluster
 * `br.cluster` names, the Job named like it, the key names of its S3 Secret) through the
 * `ObjectReader` port, and the recipe (`lib/reconcile/compact-backup/recipe.ts`) to decide. Reads
 * only; every call is bounded by the step's clients' deadline.
 *
 * One deliberate difference from v1: v1 looks the TidbCluster up in `br.clusterNamespace` literally,
 * so a CompactBackup without it never finds its cluster; here an empty `clusterNamespace` means the
 * CompactBackup's own namespace, as for a Backup.
 */

import type { ObjectReader } from '../kube/port.js';
import type { TidbCluster } from '../model/kube.js';
import { DEFAULT_BACKUP_MANAGER_IMAGE } from '../reconcile/backup/job.js';
import type { Job } from '../reconcile/backup/types.js';
import { planCompactBackup } from '../reconcile/compact-backup/recipe.js';
import type { CompactSnapshot } from '../reconcile/compact-backup/snapshot.js';
import type { CompactBackup } from '../reconcile/compact-backup/types.js';
import { observeWith, type Controller } from '../step/controller.js';
import type { BackupControllerOptions } from './backup-controller.js';

/** The CompactBackup controller. */
export function compactBackupController(options: BackupControllerOptions): Controller<CompactSnapshot> {
  return {
    kind: 'CompactBackup',
    observe: (ctx) => observeWith(() => observeCompact(options, ctx.ref.namespace, ctx.ref.name, ctx.ports.clock.nowMs.bind(ctx.ports.clock))),
    decide: planCompactBackup,
    subject: (snap) => ({ cluster: undefined, gone: snap.compact === undefined }),
  };
}

async function observeCompact(options: BackupControllerOptions, ns: string, name: string, now: () => number): Promise<CompactSnapshot> {
  const { objects } = options;
  const managerImage = options.managerImage ?? DEFAULT_BACKUP_MANAGER_IMAGE;
  const compact = (await objects.getObject('CompactBackup', ns, name)) as CompactBackup | undefined;
  if (compact === undefined) return { nowMs: now(), compact, tc: undefined, job: undefined, s3SecretKeys: undefined, managerImage };
  const spec = compact.spec ?? {};
  const cluster = spec.br?.cluster;
  const [tc, job, s3SecretKeys] = await Promise.all([
    cluster ? (objects.getObject('TidbCluster', spec.br?.clusterNamespace || ns, cluster) as Promise<TidbCluster | undefined>) : Promise.resolve(undefined),
    objects.getObject('Job', ns, name) as Promise<Job | undefined>,
    spec.s3?.secretName ? objects.secretKeys(ns, spec.s3.secretName) : Promise.resolve(undefined),
  ]);
  return { nowMs: now(), compact, tc, job, s3SecretKeys, managerImage };
}
