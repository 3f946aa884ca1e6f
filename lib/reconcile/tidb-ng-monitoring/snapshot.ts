/**
 * What one TidbNGMonitoring step reads: the object, the TidbCluster `spec.clusters[0]` names, its
 * Service, ConfigMaps and pods (by label), its StatefulSet (by name), and which certificate Secrets
 * exist (the cluster's client certificate, and its own copy). Only Secret existence crosses into a
 * snapshot, never a key or value.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../model/kube.js';
import type { TidbNGMonitoring } from './types.js';

/** One step's reads. */
export type NgMonitoringSnapshot = {
  readonly nowMs: number;
  readonly tngm: TidbNGMonitoring | undefined;
  readonly tc: TidbCluster | undefined;
  readonly service: IService | undefined;
  readonly configMaps: readonly IConfigMap[];
  readonly sts: IStatefulSet | undefined;
  readonly pods: readonly IPod[];
  /** Its claims (by label) and the PersistentVolumes they are bound to (by name). */
  readonly claims?: readonly IPersistentVolumeClaim[];
  readonly volumes?: readonly IPersistentVolume[];
  /** Which Secrets exist, by name (a name not listed was not looked up). */
  readonly secrets: Readonly<Record<string, boolean>>;
};
