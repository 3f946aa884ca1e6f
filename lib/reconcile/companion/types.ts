/**
 * What TiDB Operator v1's TidbDashboard and TidbNGMonitoring share (release-1.6
 * `tidbdashboard_types.go`, `tidbngmonitoring_types.go`): the reference to the one TidbCluster they
 * serve (`spec.clusters`), the component status they report (`synced`, `phase`, a copy of their
 * StatefulSet's status), and the few `ComponentSpec` fields their pod template takes.
 */

import type { KubeObject } from '../../model/kube.js';

/** One entry of `spec.clusters` (`TidbClusterRef`); `namespace` defaults to the object's own. */
export type TidbClusterRef = { readonly name?: string; readonly namespace?: string; readonly clusterDomain?: string };

/** The `ComponentSpec` fields these controllers put on their pod template (everything else is kept unread). */
export type CompanionComponentSpec = {
  readonly image?: string;
  readonly version?: string;
  readonly imagePullPolicy?: string;
  readonly imagePullSecrets?: readonly unknown[];
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly unknown[];
  readonly affinity?: unknown;
  readonly priorityClassName?: string;
  readonly schedulerName?: string;
  readonly env?: readonly unknown[];
  readonly podSecurityContext?: unknown;
  readonly additionalContainers?: readonly unknown[];
  readonly additionalVolumes?: readonly unknown[];
  readonly additionalVolumeMounts?: readonly unknown[];
  readonly serviceAccount?: string;
  readonly requests?: Readonly<Record<string, unknown>>;
  readonly limits?: Readonly<Record<string, unknown>>;
};

/** `MemberPhase` values these controllers write. */
export type CompanionPhase = 'Normal' | 'Upgrade';

/** `NGMonitoringStatus` / `TidbDashboardStatus`: written only once the StatefulSet exists. */
export type CompanionStatus = {
  readonly synced?: boolean;
  readonly phase?: CompanionPhase;
  readonly statefulSet?: unknown;
};

/** An object with `spec.clusters` and a status subresource (TidbDashboard, TidbNGMonitoring). */
export type CompanionObject = KubeObject & { readonly spec?: { readonly clusters?: readonly TidbClusterRef[] } };
