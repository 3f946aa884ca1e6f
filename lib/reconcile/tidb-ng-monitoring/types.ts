/**
 * TidbNGMonitoring (`tidbngmonitorings.pingcap.com`, short name `tngm`) as its controller reads it:
 * the fields of TiDB Operator v1's `TidbNGMonitoringSpec` / `TidbNGMonitoringStatus` (release-1.6
 * `tidbngmonitoring_types.go`) the reconciler uses; everything else is kept as the API server sent
 * it. Status is written through the status subresource.
 */

import type { KubeObject } from '../../model/kube.js';
import type { StorageVolume } from '../companion/statefulset.js';
import type { CompanionComponentSpec, CompanionStatus, TidbClusterRef } from '../companion/types.js';

/** `spec.ngMonitoring` (CRD default: `baseImage` pingcap/ng-monitoring). */
export type NGMonitoringSpec = CompanionComponentSpec & {
  readonly baseImage?: string;
  readonly storageClassName?: string;
  readonly storageVolumes?: readonly StorageVolume[];
  readonly retentionPeriod?: string;
  /** TOML text or a map (v1's `GenericConfig`, schemaless). */
  readonly config?: unknown;
};

/** `spec` (CRD default: `pvReclaimPolicy` Retain). */
export type TidbNGMonitoringSpec = CompanionComponentSpec & {
  readonly clusters?: readonly TidbClusterRef[];
  readonly paused?: boolean;
  readonly pvReclaimPolicy?: string;
  readonly clusterDomain?: string;
  readonly ngMonitoring?: NGMonitoringSpec;
  readonly preferIPv6?: boolean;
};

/** `status`: the ng-monitoring component's. */
export type TidbNGMonitoringStatus = { readonly ngMonitoring?: CompanionStatus };

/** A TidbNGMonitoring as read. */
export type TidbNGMonitoring = KubeObject & { readonly spec?: TidbNGMonitoringSpec; readonly status?: TidbNGMonitoringStatus };
