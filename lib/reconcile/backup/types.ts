/**
 * Backup and Restore (`pingcap.com/v1alpha1`) as the backup controllers read them: the fields of
 * TiDB Operator v1's `pkg/apis/pingcap/v1alpha1/types.go` the reconciler uses, everything else kept as the API server
 * sent it (these objects are written back whole: the CRDs declare no status subresource).
 */

import type { KubeObject } from '../../model/kube.js';

/** One condition; Backup and Restore keep one entry per type (`UpdateBackupCondition`). */
export type BackupCondition = {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly command?: string;
};

/** S3 storage (`spec.s3`); `path` wins over bucket+prefix when given, as `GetBackupDataPath`. */
export type S3Storage = {
  readonly provider?: string;
  readonly region?: string;
  readonly bucket?: string;
  readonly prefix?: string;
  readonly path?: string;
  readonly endpoint?: string;
  readonly secretName?: string;
  readonly acl?: string;
  readonly storageClass?: string;
  readonly sse?: string;
  readonly forcePathStyle?: boolean;
};

/** `spec.br`. */
export type BrConfig = {
  readonly cluster?: string;
  readonly clusterNamespace?: string;
  readonly db?: string;
  readonly table?: string;
  readonly logLevel?: string;
  readonly sendCredToTikv?: boolean;
  readonly options?: readonly string[];
  readonly checkRequirements?: boolean;
};

/** One env entry of `spec.env` (a value, or a reference as Kubernetes has it). */
export type EnvVar = { readonly name: string; readonly value?: string; readonly valueFrom?: unknown };

/** `spec.backoffRetryPolicy` (CRD defaults apply only when the object is present, §1.1). */
export type BackoffRetryPolicy = { readonly minRetryDuration?: string; readonly maxRetryTimes?: number; readonly retryTimeout?: string };

/** One record of `status.backoffRetryStatus` (§1.10). */
export type BackoffRetryRecord = {
  readonly retryNum: number;
  readonly detectFailedAt?: string;
  readonly expectedRetryAt?: string;
  readonly realRetryAt?: string;
  readonly retryReason?: string;
  readonly originalReason?: string;
};

/** The spec fields shared by Backup and Restore that shape the Job. */
export type JobShapingSpec = {
  readonly br?: BrConfig;
  readonly s3?: S3Storage;
  readonly gcs?: unknown;
  readonly azblob?: unknown;
  readonly local?: unknown;
  readonly from?: { readonly host?: string; readonly secretName?: string; readonly tlsClientSecretName?: string };
  readonly env?: readonly EnvVar[];
  readonly toolImage?: string;
  readonly serviceAccount?: string;
  readonly tableFilter?: readonly string[];
  readonly resources?: unknown;
  readonly tolerations?: unknown;
  readonly affinity?: unknown;
  readonly imagePullSecrets?: unknown;
  readonly priorityClassName?: string;
  readonly podSecurityContext?: unknown;
  readonly useKMS?: boolean;
};

/** `Backup.spec`. */
export type BackupSpec = JobShapingSpec & {
  readonly backupMode?: 'snapshot' | 'log' | 'volume-snapshot' | string;
  readonly backupType?: string;
  readonly commitTs?: string;
  readonly logSubcommand?: string;
  readonly logStop?: boolean;
  readonly logTruncateUntil?: string;
  readonly cleanPolicy?: 'Retain' | 'OnFailure' | 'Delete' | string;
  readonly backoffRetryPolicy?: BackoffRetryPolicy;
  readonly storageSize?: string;
};

/** One entry of `status.logSubCommandStatuses`. */
export type LogSubCommandStatus = {
  readonly command?: string;
  readonly phase?: string;
  readonly timeStarted?: string;
  readonly timeCompleted?: string;
  readonly logTruncatingUntil?: string;
  readonly conditions?: readonly BackupCondition[];
};

/** `Backup.status` (§1.2). */
export type BackupStatus = {
  readonly phase?: string;
  readonly conditions?: readonly BackupCondition[];
  readonly backupPath?: string;
  readonly commitTs?: string;
  readonly timeStarted?: string;
  readonly timeCompleted?: string;
  readonly logSuccessTruncateUntil?: string;
  readonly logSubCommandStatuses?: Readonly<Record<string, LogSubCommandStatus>>;
  readonly backoffRetryStatus?: readonly BackoffRetryRecord[];
  readonly [field: string]: unknown;
};

/** A Backup as read. */
export type Backup = KubeObject & { readonly spec?: BackupSpec; readonly status?: BackupStatus };

/** `Restore.spec` (§2.1). */
export type RestoreSpec = JobShapingSpec & {
  readonly to?: { readonly host?: string; readonly secretName?: string; readonly tlsClientSecretName?: string };
  readonly restoreMode?: 'snapshot' | 'pitr' | 'volume-snapshot' | string;
  readonly backupType?: string;
  readonly pitrRestoredTs?: string;
  readonly logRestoreStartTs?: string;
  readonly pitrFullBackupStorageProvider?: { readonly s3?: S3Storage; readonly [field: string]: unknown };
  readonly backoffLimit?: number;
  readonly storageSize?: string;
};

/** `Restore.status`. */
export type RestoreStatus = {
  readonly phase?: string;
  readonly conditions?: readonly BackupCondition[];
  readonly [field: string]: unknown;
};

/** A Restore as read. */
export type Restore = KubeObject & { readonly spec?: RestoreSpec; readonly status?: RestoreStatus };

/** A batch/v1 Job as the controllers read it (name, uid, deletion, conditions). */
export type Job = KubeObject & {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason?: string; readonly message?: string }[]; readonly active?: number };
};
