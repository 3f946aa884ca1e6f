/**
 * What one Restore step reads. `targetData` is what the target cluster's TiDB says of its user
 * tables (`empty`, `holds-data`, or `unknown` when it could not be asked); `tikvGcRatioThreshold` the
 * `gc.ratio-threshold` of the TiKV config the `<tc>-tikv` StatefulSet mounts (undefined when unread
 * or unset) — the PiTR gate of §2.3 step 4.
 */

import type { TidbCluster } from '../../model/kube.js';
import type { Job, Restore } from '../backup/types.js';

/** What the target cluster holds, as far as the reconciler could tell. */
export type TargetData = { readonly kind: 'empty' } | { readonly kind: 'holds-data'; readonly tables: readonly string[] } | { readonly kind: 'unknown'; readonly why: string };

/** One Restore step's reads. */
export type RestoreSnapshot = {
  readonly nowMs: number;
  readonly restore: Restore | undefined;
  readonly tc: TidbCluster | undefined;
  readonly jobs: Readonly<Record<string, Job>>;
  readonly s3SecretKeys: readonly string[] | undefined;
  /** The key names of the `to.secretName` Secret (the TiDB password); absent when none is named or it does not exist. */
  readonly tidbSecretKeys?: readonly string[];
  readonly targetData: TargetData;
  readonly tikvGcRatioThreshold: number | undefined;
  readonly managerImage: string;
};

/**
 * The annotation by which a Restore says, explicitly, that it may restore into a cluster that already
 * holds user tables. v1 has none (it relies on BR's own check, §2.4); without it this reconciler
 * refuses such a restore.
 */
export const ALLOW_RESTORE_INTO_DATA = 'tidb.pingcap.com/restore-into-existing-data';
