/**
 * CompactBackup (`compactbackups.pingcap.com`, short name `cpbk`) as its controller reads it: the
 * fields of TiDB Operator v1's `CompactSpec` / `CompactStatus` (release-1.6 `types.go:3680-3790`) the
 * reconciler uses, everything else kept as the API server sent it (the object is written back whole:
 * the CRD declares no status subresource).
 */

import type { KubeObject } from '../../model/kube.js';
import type { BrConfig, EnvVar, S3Storage } from '../backup/types.js';

/** `spec` (CRD defaults: `concurrency` 4, `maxRetryTimes` 6; absent in an object read without them counts as 0, as Go's zero value). */
export type CompactSpec = {
  readonly startTs?: string;
  readonly endTs?: string;
  readonly concurrency?: number;
  readonly maxRetryTimes?: number;
  /** The BR image (`br operator base64ify`); without a tag it gets the cluster's TiKV version. */
  readonly toolImage?: string;
  /** The TiKV image whose `tikv-ctl` compacts; without a tag it gets the cluster's TiKV version. */
  readonly tikvImage?: string;
  readonly br?: BrConfig;
  readonly s3?: S3Storage;
  readonly gcs?: unknown;
  readonly azblob?: unknown;
  readonly local?: unknown;
  readonly env?: readonly EnvVar[];
  readonly serviceAccount?: string;
  readonly useKMS?: boolean;
  readonly resources?: unknown;
  readonly tolerations?: unknown;
  readonly affinity?: unknown;
  readonly imagePullSecrets?: unknown;
  readonly priorityClassName?: string;
  readonly podSecurityContext?: unknown;
  readonly automountServiceAccountToken?: boolean;
  readonly additionalVolumes?: readonly unknown[];
  readonly additionalVolumeMounts?: readonly unknown[];
};

/** One record of `status.backoffRetryStatus` (`CompactRetryRecord`): `retryNum` counts from 0. */
export type CompactRetryRecord = { readonly retryNum?: number; readonly detectFailedAt?: string; readonly retryReason?: string };

/**
 * `status` (`CompactStatus`): `state` reuses the Backup phase strings (Scheduled, Prepare, Running,
 * RetryFailed, Complete, Failed); `progress` is `[READ_META(a/b),COMPACT_WORK(c/d)]`; `endTs` the
 * largest input ts compacted so far.
 */
export type CompactStatus = {
  readonly state?: string;
  readonly progress?: string;
  readonly message?: string;
  readonly endTs?: string;
  readonly backoffRetryStatus?: readonly CompactRetryRecord[];
  readonly [field: string]: unknown;
};

/** A CompactBackup as read. */
export type CompactBackup = KubeObject & { readonly spec?: CompactSpec; readonly status?: CompactStatus };

