/**
 * BackupSchedule (`pingcap.com/v1alpha1`, `bks`) as the controller reads it: the fields of TiDB
 * Operator v1's `BackupScheduleSpec` / `BackupScheduleStatus` (`types.go:2672-2735`) this reconciler
 * uses; everything else is kept as the API server sent it (the object is written back whole: the CRD
 * declares no status subresource).
 */

import type { KubeObject } from '../../model/kube.js';
import type { BackupSpec } from '../backup/types.js';
import type { CompactSpec } from '../compact-backup/types.js';

/** `BackupSchedule.spec`. */
export type BackupScheduleSpec = {
  readonly schedule?: string;
  readonly pause?: boolean;
  readonly maxBackups?: number;
  readonly maxReservedTime?: string;
  readonly backupTemplate?: BackupSpec;
  readonly logBackupTemplate?: BackupSpec;
  /** A Go duration: how often a compaction of the log backup is created (compact.ts). */
  readonly compactInterval?: string;
  readonly compactBackupTemplate?: CompactSpec;
  /** TSO or datetime: no compaction starts before it. */
  readonly minCompactStartTs?: string;
  readonly storageClassName?: string;
  readonly volumeAttributesClassName?: string;
  readonly storageSize?: string;
  readonly imagePullSecrets?: unknown;
  readonly [field: string]: unknown;
};

/** `BackupSchedule.status`. */
export type BackupScheduleStatus = {
  readonly lastBackup?: string;
  readonly lastBackupTime?: string;
  readonly allBackupCleanTime?: string;
  readonly logBackup?: string;
  readonly logBackupStartTs?: string;
  readonly lastCompact?: string;
  readonly lastCompactProgress?: string;
  readonly lastCompactExecutionTs?: string;
  readonly [field: string]: unknown;
};

/** A BackupSchedule as read. */
export type BackupSchedule = KubeObject & { readonly spec?: BackupScheduleSpec; readonly status?: BackupScheduleStatus };
