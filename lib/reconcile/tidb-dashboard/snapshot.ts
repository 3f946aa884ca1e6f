/**
 * What one TidbDashboard step reads: the object, the TidbCluster `spec.clusters[0]` names, the
 * dashboard's Service and StatefulSet (by name), its pods (by label, for the upgrade phase), and
 * whether the certificate Secrets exist — the cluster's, to copy, and the dashboard's copies. Only
 * Secret existence crosses into a snapshot, never a key or value.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../model/kube.js';
import type { TidbDashboard } from './types.js';

/** Which Secrets exist, by name (a name not listed was not looked up). */
export type SecretPresence = Readonly<Record<string, boolean>>;

/** One step's reads. */
export type DashboardSnapshot = {
  readonly nowMs: number;
  readonly td: TidbDashboard | undefined;
  readonly tc: TidbCluster | undefined;
  readonly service: IService | undefined;
  readonly sts: IStatefulSet | undefined;
  readonly pods: readonly IPod[];
  /** Its claims (by label) and the PersistentVolumes they are bound to (by name). */
  readonly claims?: readonly IPersistentVolumeClaim[];
  readonly volumes?: readonly IPersistentVolume[];
  readonly secrets: SecretPresence;
};
