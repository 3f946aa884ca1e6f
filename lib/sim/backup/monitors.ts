/**
 * The backup world's invariant monitors, reported beside the TiDB ones (`{name, violations}`):
 * - `backup-data-deleted-only-by-policy`: an S3 object under a Backup's storage prefix was deleted
 *   by anything but what v1 allows to delete it — the Backup's own clean Job (`clean-<name>`) while
 *   the Backup is being deleted under cleanPolicy Delete (or OnFailure after it failed), its own
 *   backup Job re-running (v1's cleanSnapshotBackupEnv wipes the prefix before BR < v6.5.1 retries),
 *   or its own `log-truncate` Job removing log metadata. A Backup deleted under Retain leaves its
 *   prefix owned: nothing may delete it later. Prefixes match whole path segments (`a/b` does not
 *   own `a/bc/…`).
 * - `restore-matches-backup`: a Restore reached Complete while its target cluster's dataset
 *   (lib/sim/backup/dataset.ts) differs from the backup it read — the `backupmeta`'s dataset for a
 *   snapshot restore; for PiTR, the source's dataset at `pitrRestoredTs`.
 * - `no-restore-into-live-data`: a restore Job was created for a target cluster that holds data
 *   while its Restore is not annotated `tidb.pingcap.com/restore-into-existing-data: "true"`.
 * - `backup-schedule-no-overlap`: a snapshot Backup of a BackupSchedule (label
 *   `tidb.pingcap.com/backup-schedule`) was created while another snapshot Backup of the same
 *   schedule had not finished (Complete, Failed or Invalid) — two scheduled runs at once; likewise a
 *   CompactBackup of a schedule created while another of the same schedule had not ended (state
 *   Complete or Failed) — two compactions of one log at once.
 */
import type { Clock } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import type { ObjectStore, StoreEvent } from '../store.js';
import { type Datasets, msOfTs } from './dataset.js';
import type { S3Deletion, SimS3 } from './s3.js';
import { BACKUPMETA } from './snapshot.js';
import { keyUnder, s3LocationOf } from './storage.js';

/** One violation, as the TiDB monitors report it. */
type Violation = { atMs: number; message: string };

/** The monitors' names, in report order. */
export const BACKUP_INVARIANT_NAMES = ['backup-data-deleted-only-by-policy', 'restore-matches-backup', 'no-restore-into-live-data', 'backup-schedule-no-overlap'] as const;

type Name = (typeof BACKUP_INVARIANT_NAMES)[number];

/** The annotation that lets a Restore target a cluster holding data (the Restore controller's). */
const ALLOW_RESTORE_INTO_DATA = 'tidb.pingcap.com/restore-into-existing-data';

/** A Backup as last seen (kept after it is gone: its prefix stays its own). */
type SeenBackup = { readonly namespace: string; readonly name: string; readonly bucket: string; readonly prefix: string; readonly object: KubeObject };

/** What the monitors watch. */
export type BackupMonitorDeps = { readonly store: ObjectStore; readonly s3: SimS3; readonly datasets: Datasets; readonly clock: Clock };

/** Evaluates the backup invariants as the world changes. */
export class BackupMonitors {
  private readonly violations = new Map<Name, Violation[]>(BACKUP_INVARIANT_NAMES.map((n) => [n, []]));
  private readonly backups = new Map<string, SeenBackup>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: BackupMonitorDeps) {
    deps.s3.onDelete((d) => this.onDelete(d));
    this.unsubscribe = deps.store.subscribe((ev) => this.onEvent(ev));
  }

  /** Every monitor's violations so far. */
  report(): { name: string; violations: Violation[] }[] {
    return BACKUP_INVARIANT_NAMES.map((name) => ({ name, violations: [...(this.violations.get(name) ?? [])] }));
  }

  /** Stops watching the store. */
  stop(): void {
    this.unsubscribe();
  }

  private violate(name: Name, message: string): void {
    this.violations.get(name)?.push({ atMs: this.deps.clock.nowMs(), message });
  }

  private onEvent(ev: StoreEvent): void {
    const ns = ev.object.metadata.namespace ?? '';
    const name = ev.object.metadata.name ?? '';
    if (ev.kind === 'Backup' && ev.type !== 'DELETED') {
      const loc = s3LocationOf(ev.object.spec);
      if (loc) this.backups.set(`${ns}/${name}`, { namespace: ns, name, bucket: loc.bucket, prefix: loc.prefix, object: ev.object });
    }
    if (ev.kind === 'Restore' && ev.type === 'MODIFIED' && phaseOf(ev.object) === 'Complete' && phaseOf(ev.previous) !== 'Complete') this.checkRestored(ev.object);
    if (ev.kind === 'Job' && ev.type === 'ADDED' && name.startsWith('restore-')) this.checkRestoreJob(ns, name.slice('restore-'.length));
    if (ev.kind === 'Backup' && ev.type === 'ADDED') this.checkScheduledRun(ev.object);
    if (ev.kind === 'CompactBackup' && ev.type === 'ADDED') this.checkScheduledCompaction(ev.object);
  }

  /** A scheduled CompactBackup appeared: no other one of its schedule may still be running. */
  private checkScheduledCompaction(compact: KubeObject): void {
    const schedule = compact.metadata.labels?.[SCHEDULE_LABEL];
    if (schedule === undefined) return;
    const ns = compact.metadata.namespace ?? '';
    const running = this.deps.store
      .list('CompactBackup', ns)
      .filter((c) => c.metadata.labels?.[SCHEDULE_LABEL] === schedule && c.metadata.name !== compact.metadata.name)
      .filter((c) => !['Complete', 'Failed'].includes(((c.status as { state?: string } | undefined)?.state ?? '')));
    for (const other of running) this.violate('backup-schedule-no-overlap', `BackupSchedule ${ns}/${schedule} created CompactBackup ${compact.metadata.name ?? ''} while its CompactBackup ${other.metadata.name ?? ''} was still ${((other.status as { state?: string } | undefined)?.state ?? '') || 'new'}`);
  }

  /** A scheduled snapshot Backup appeared: no other one of its schedule may still be running. */
  private checkScheduledRun(backup: KubeObject): void {
    const schedule = backup.metadata.labels?.[SCHEDULE_LABEL];
    if (schedule === undefined || isLogBackup(backup)) return;
    const ns = backup.metadata.namespace ?? '';
    const running = this.deps.store
      .list('Backup', ns)
      .filter((b) => b.metadata.labels?.[SCHEDULE_LABEL] === schedule && b.metadata.name !== backup.metadata.name && !isLogBackup(b))
      .filter((b) => !['Complete', 'Failed', 'Invalid'].some((t) => hasCondition(b, t)));
    for (const other of running) this.violate('backup-schedule-no-overlap', `BackupSchedule ${ns}/${schedule} created Backup ${backup.metadata.name ?? ''} while its Backup ${other.metadata.name ?? ''} was still ${phaseOf(other) ?? 'new'}`);
  }

  private onDelete(d: S3Deletion): void {
    for (const owner of this.backups.values()) {
      if (owner.bucket !== d.bucket || !(owner.prefix === '' || d.key.startsWith(`${owner.prefix}/`))) continue;
      if (this.mayDelete(owner, d)) continue;
      const policy = (owner.object.spec?.cleanPolicy as string | undefined) ?? 'Retain';
      this.violate('backup-data-deleted-only-by-policy', `s3://${d.bucket}/${d.key} of Backup ${owner.namespace}/${owner.name} (cleanPolicy ${policy}) deleted by ${d.by ?? 'an unknown requester'}`);
    }
  }

  /** Whether the pod that deleted `d` may delete data of `owner` (see the file comment). */
  private mayDelete(owner: SeenBackup, d: S3Deletion): boolean {
    const job = d.by === undefined ? undefined : this.jobOfPod(d.by);
    if (job === undefined || job.namespace !== owner.namespace) return false;
    const backup = this.deps.store.get('Backup', owner.namespace, owner.name) ?? owner.object;
    const policy = (backup.spec?.cleanPolicy as string | undefined) ?? 'Retain';
    if (job.name === `clean-${owner.name}`) {
      const failed = phaseOf(backup) === 'Failed';
      return backup.metadata.deletionTimestamp !== undefined && (policy === 'Delete' || (policy === 'OnFailure' && failed));
    }
    if (job.name === `backup-${owner.name}`) return hasCondition(backup, 'Restart');
    return job.name === `backup-${owner.name}-log-truncate` && d.key.startsWith(keyUnder(owner, 'v1/backupmeta/'));
  }

  /** The Job a pod `namespace/name` belongs to (its controller owner), if any. */
  private jobOfPod(podId: string): { namespace: string; name: string } | undefined {
    const [namespace = '', name = ''] = podId.split('/');
    const pod = this.deps.store.get('Pod', namespace, name);
    const owner = (pod?.metadata.ownerReferences ?? []).find((o) => o.kind === 'Job' && o.controller === true);
    return owner ? { namespace, name: owner.name } : undefined;
  }

  private checkRestored(restore: KubeObject): void {
    const target = targetOf(restore);
    const pitr = restore.spec?.restoreMode === 'pitr';
    const loc = s3LocationOf(pitr ? restore.spec?.pitrFullBackupStorageProvider : restore.spec);
    const meta = loc ? this.deps.s3.objectsOf(loc.bucket)?.find((o) => o.key === keyUnder(loc, BACKUPMETA))?.body : undefined;
    const source = (meta as { dataset?: { lineage?: string; checksum?: string } } | undefined)?.dataset;
    if (!source?.checksum || !source.lineage) return;
    let expected = source.checksum;
    if (pitr) {
      const restoredMs = msOfTs(String(restore.spec?.pitrRestoredTs ?? ''));
      const [lns = '', lname = ''] = source.lineage.split('/');
      const then = restoredMs === undefined ? undefined : this.deps.datasets.at(lns, lname, restoredMs);
      if (!then || then.lineage !== source.lineage) return;
      expected = then.checksum;
    }
    const actual = this.deps.datasets.at(target.namespace, target.name).checksum;
    if (actual !== expected) {
      this.violate('restore-matches-backup', `Restore ${restore.metadata.namespace ?? ''}/${restore.metadata.name ?? ''} is Complete but ${target.namespace}/${target.name} holds dataset ${actual}, not the backup's ${expected}`);
    }
  }

  private checkRestoreJob(namespace: string, restoreName: string): void {
    const restore = this.deps.store.get('Restore', namespace, restoreName);
    if (!restore || restore.metadata.annotations?.[ALLOW_RESTORE_INTO_DATA] === 'true') return;
    const target = targetOf(restore);
    if (this.deps.datasets.hasData(target.namespace, target.name)) {
      this.violate('no-restore-into-live-data', `restore Job for Restore ${namespace}/${restoreName} created while ${target.namespace}/${target.name} holds data, without ${ALLOW_RESTORE_INTO_DATA}: "true"`);
    }
  }
}

/** The label a BackupSchedule puts on the Backups it creates. */
const SCHEDULE_LABEL = 'tidb.pingcap.com/backup-schedule';

function isLogBackup(o: KubeObject): boolean {
  return (o.spec as { backupMode?: string } | undefined)?.backupMode === 'log';
}

function phaseOf(o: KubeObject | undefined): string | undefined {
  return (o?.status as { phase?: string } | undefined)?.phase;
}

function hasCondition(o: KubeObject, type: string): boolean {
  return ((o.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** The cluster a Restore writes into: `br.cluster` in `br.clusterNamespace` (default the Restore's namespace). */
function targetOf(restore: KubeObject): { namespace: string; name: string } {
  const br = (restore.spec?.br ?? {}) as { cluster?: string; clusterNamespace?: string };
  return { namespace: br.clusterNamespace || (restore.metadata.namespace ?? ''), name: br.cluster ?? '' };
}
