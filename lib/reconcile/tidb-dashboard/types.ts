/**
 * TidbDashboard (`tidbdashboards.pingcap.com`, short name `td`) as its controller reads it: the
 * fields of TiDB Operator v1's `TidbDashboardSpec` / `TidbDashboardStatus` (release-1.6
 * `tidbdashboard_types.go`) the reconciler uses; everything else is kept as the API server sent it.
 * Status is written through the status subresource.
 */

import type { CompanionComponentSpec, CompanionStatus, TidbClusterRef } from '../companion/types.js';
import type { KubeObject } from '../../model/kube.js';

/** The dashboard Service (`ServiceSpec`): type, port name, load-balancer settings, extra labels and annotations. */
export type DashboardServiceSpec = {
  readonly type?: string;
  readonly portName?: string;
  readonly loadBalancerIP?: string;
  readonly loadBalancerSourceRanges?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
};

/** `spec` (CRD defaults: `baseImage` pingcap/tidb-dashboard, `pvReclaimPolicy` Retain). */
export type TidbDashboardSpec = CompanionComponentSpec & {
  readonly clusters?: readonly TidbClusterRef[];
  readonly baseImage?: string;
  readonly pvReclaimPolicy?: string;
  readonly storageClassName?: string;
  readonly storageVolumes?: readonly { readonly name?: string; readonly storageSize?: string; readonly mountPath?: string; readonly storageClassName?: string }[];
  readonly pathPrefix?: string;
  readonly service?: DashboardServiceSpec;
  readonly telemetry?: boolean;
  readonly experimental?: boolean;
  readonly preferIPv6?: boolean;
  readonly listenOnLocalhostOnly?: boolean;
  readonly disableKeyVisualizer?: boolean;
};

/** A TidbDashboard as read. */
export type TidbDashboard = KubeObject & { readonly spec?: TidbDashboardSpec; readonly status?: CompanionStatus };
