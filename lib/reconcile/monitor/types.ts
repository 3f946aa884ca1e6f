/**
 * TidbMonitor (`tidbmonitors.pingcap.com`, short name `tm`) as its controller reads it: the fields of
 * TiDB Operator v1's `TidbMonitorSpec` / `TidbMonitorStatus` (release-1.6
 * `pkg/apis/pingcap/v1alpha1/tidbmonitor_types.go`) the reconciler uses; everything else is kept as
 * the API server sent it (the object is written back whole: the CRD declares no status subresource).
 */

import type { KubeObject } from '../../model/kube.js';

/** `spec.clusters[]` / `spec.dm.clusters[]` (`ClusterRef`): `namespace` defaults to the monitor's. */
export type ClusterRef = { readonly name?: string; readonly namespace?: string; readonly clusterDomain?: string };

/** A component's Service (`ServiceSpec`): the fields v1's monitor Services read. */
export type MonitorServiceSpec = {
  readonly type?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly loadBalancerIP?: string;
  readonly loadBalancerSourceRanges?: readonly string[];
  readonly portName?: string;
};

/** The image and pod knobs every monitor container shares (`MonitorContainer`). */
export type MonitorContainer = {
  readonly baseImage?: string;
  readonly version?: string;
  readonly imagePullPolicy?: string;
  readonly requests?: Readonly<Record<string, unknown>>;
  readonly limits?: Readonly<Record<string, unknown>>;
  readonly securityContext?: unknown;
};

/** `spec.prometheus.remoteWrite[]` (`RemoteWriteSpec`), as v1 renders it into prometheus.yml. */
export type RemoteWriteSpec = {
  readonly url?: string;
  readonly name?: string;
  readonly remoteTimeout?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly writeRelabelConfigs?: readonly Readonly<Record<string, unknown>>[];
  readonly basicAuth?: unknown;
  readonly bearerToken?: string;
  readonly bearerTokenFile?: string;
  readonly proxyUrl?: string;
  readonly queueConfig?: Readonly<Record<string, unknown>>;
  readonly metadataConfig?: { readonly send?: boolean; readonly sendInterval?: string };
};

/** `spec.prometheus` (`PrometheusSpec`). */
export type PrometheusSpec = MonitorContainer & {
  readonly logLevel?: string;
  readonly service?: MonitorServiceSpec;
  readonly reserveDays?: number;
  readonly retentionTime?: string;
  readonly ingress?: unknown;
  readonly config?: {
    readonly configMapRef?: { readonly name?: string; readonly namespace?: string };
    readonly commandOptions?: readonly string[];
    readonly ruleConfigRef?: { readonly name?: string; readonly namespace?: string };
  };
  readonly disableCompaction?: boolean;
  readonly remoteWrite?: readonly RemoteWriteSpec[];
  readonly additionalVolumeMounts?: readonly unknown[];
};

/** `spec.grafana` (`GrafanaSpec`). */
export type GrafanaSpec = MonitorContainer & {
  readonly logLevel?: string;
  readonly service?: MonitorServiceSpec;
  readonly username?: string;
  readonly password?: string;
  readonly usernameSecret?: { readonly name?: string; readonly key?: string };
  readonly passwordSecret?: { readonly name?: string; readonly key?: string };
  readonly envs?: Readonly<Record<string, string>>;
  readonly ingress?: unknown;
  readonly additionalVolumeMounts?: readonly unknown[];
};

/** `spec` (`TidbMonitorSpec`): `initializer`, `prometheus` and `reloader` are required by the CRD. */
export type TidbMonitorSpec = {
  readonly clusters?: readonly ClusterRef[];
  readonly dm?: { readonly clusters?: readonly ClusterRef[] };
  readonly prometheus?: PrometheusSpec;
  readonly grafana?: GrafanaSpec;
  readonly reloader?: MonitorContainer & { readonly service?: MonitorServiceSpec };
  readonly initializer?: MonitorContainer & { readonly envs?: Readonly<Record<string, string>> };
  readonly prometheusReloader?: MonitorContainer;
  readonly thanos?: unknown;
  readonly pvReclaimPolicy?: string;
  readonly imagePullPolicy?: string;
  readonly imagePullSecrets?: readonly unknown[];
  readonly persistent?: boolean;
  readonly storageClassName?: string;
  readonly storage?: string;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly unknown[];
  readonly podSecurityContext?: unknown;
  readonly kubePrometheusURL?: string;
  readonly alertmanagerURL?: string;
  readonly alertManagerRulesVersion?: string;
  readonly additionalContainers?: readonly unknown[];
  readonly clusterScoped?: boolean;
  readonly externalLabels?: Readonly<Record<string, string>>;
  readonly replicaExternalLabelName?: string;
  readonly replicas?: number;
  readonly shards?: number;
  readonly additionalVolumes?: readonly unknown[];
  readonly enableAlertRules?: boolean;
  readonly timezone?: string;
  readonly preferIPv6?: boolean;
  readonly automountServiceAccountToken?: boolean;
};

/** `status` (`TidbMonitorStatus`): the first shard's StatefulSet status, copied; v1's legacy `deploymentStorageStatus`. */
export type TidbMonitorStatus = {
  readonly statefulSet?: Readonly<Record<string, unknown>>;
  readonly deploymentStorageStatus?: unknown;
  readonly [field: string]: unknown;
};

/** A TidbMonitor as read. */
export type TidbMonitor = KubeObject & { readonly spec?: TidbMonitorSpec; readonly status?: TidbMonitorStatus };

/** v1's finalizer on every TidbMonitor (`label.TiDBMonitorProtectionFinalizer`). */
export const MONITOR_FINALIZER = 'tidb.pingcap.com/monitor-protection';

/** `GetShards`: `spec.shards` when above 1, else 1. */
export function shardsOf(tm: TidbMonitor): number {
  const shards = tm.spec?.shards;
  return shards !== undefined && shards > 1 ? Math.floor(shards) : 1;
}

/** `Timezone()`: `spec.timezone`, default UTC. */
export function timezoneOf(tm: TidbMonitor): string {
  return tm.spec?.timezone || 'UTC';
}

/** `defaultTidbMonitor`'s cluster refs: each `namespace` defaulted to the monitor's. */
export function clusterRefsOf(tm: TidbMonitor): { name: string; namespace: string; clusterDomain?: string }[] {
  const ns = tm.metadata.namespace ?? '';
  return (tm.spec?.clusters ?? []).map((c) => ({ name: c.name ?? '', namespace: c.namespace || ns, ...(c.clusterDomain ? { clusterDomain: c.clusterDomain } : {}) }));
}
