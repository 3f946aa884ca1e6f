/**
 * The objects of a TidbDashboard, as TiDB Operator v1 builds them (release-1.6
 * `pkg/manager/tidbdashboard/manager.go`, `fixture.go`): the Service `<td>-tidb-dashboard-exposed`
 * (port 12333, the user's type and load-balancer settings) and the StatefulSet `<td>-tidb-dashboard`
 * whose one container runs TiDB Dashboard against the cluster's PD (`--pd=http(s)://<tc>-pd.<ns>:2379`),
 * with the cluster client certificates (`<td>-tc-cluster-client-tls`) under cluster TLS and the TiDB
 * client certificates (`<td>-tc-mysql-client-tls`) when TiDB's client TLS is on.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../model/kube.js';
import { withServiceRecord } from '../member/apply.js';
import { companionLabels, companionOwnerRef } from '../companion/meta.js';
import { companionStatefulSet } from '../companion/statefulset.js';
import { isTlsCluster } from '../cluster/tls.js';
import type { TidbDashboard } from './types.js';

/** TiDB Dashboard's port (v1's `port`). */
export const DASHBOARD_PORT = 12333;
/** The data volume and where it is mounted (also `--data-dir` and `--temp-dir`). */
export const DASHBOARD_DATA = { volume: 'tidb-dashboard-data', mountPath: '/var/lib/tidb-dashboard-data' } as const;
const CLUSTER_TLS = { volume: 'cluster-client-tls', mountPath: '/var/lib/cluster-client-tls' } as const;
const MYSQL_TLS = { volume: 'mysql-client-tls', mountPath: '/var/lib/mysql-client-tls' } as const;
/** The annotation v1 reads to skip TLS when connecting to TiDB (`label.AnnSkipTLSWhenConnectTiDB`). */
const SKIP_TLS_WHEN_CONNECT_TIDB = 'tidb.tidb.pingcap.com/skip-tls-when-connect-tidb';

/** The StatefulSet's name. */
export const dashboardStatefulSetName = (td: string): string => `${td}-tidb-dashboard`;
/** The Service's name. */
export const dashboardServiceName = (td: string): string => `${td}-tidb-dashboard-exposed`;
/** The Secret holding a copy of the TidbCluster's cluster client certificates. */
export const dashboardClusterTlsSecretName = (td: string): string => `${td}-tc-cluster-client-tls`;
/** The Secret holding a copy of the TidbCluster's TiDB client certificates. */
export const dashboardMysqlTlsSecretName = (td: string): string => `${td}-tc-mysql-client-tls`;

/** Whether the dashboard reaches TiDB over TLS: TiDB client TLS on and not skipped by annotation (v1's `mysqlTLSEnabled`). */
export function isMysqlTls(tc: TidbCluster): boolean {
  const tidb = tc.spec.tidb as { tlsClient?: { enabled?: boolean } } | undefined;
  return tidb?.tlsClient?.enabled === true && tc.metadata.annotations?.[SKIP_TLS_WHEN_CONNECT_TIDB] === undefined;
}

/** The TiDB client certificate Secret of the cluster v1 copies (`<tc>-tidb-client-secret`). */
export const tidbClientSecretName = (tc: string): string => `${tc}-tidb-client-secret`;

/** The image: `baseImage` wins, its tag replaced by `version` (or `version` appended); else `image` (v1's `EnsureImage`). */
export function dashboardImage(td: TidbDashboard): string {
  const spec = td.spec ?? {};
  const base = spec.baseImage ?? '';
  if (base === '') return spec.image ?? '';
  const version = spec.version ?? '';
  if (version === '') return base;
  const colon = base.lastIndexOf(':');
  // A colon after the last slash is a tag; one before it is a registry port (`registry:30000/pingcap/tidb-dashboard`).
  return colon >= 0 && colon > base.lastIndexOf('/') ? `${base.slice(0, colon + 1)}${version}` : `${base}:${version}`;
}

/** The dashboard's arguments, in v1's order (`dashboardStartArgs`). */
export function dashboardArgs(td: TidbDashboard, tc: TidbCluster): string[] {
  const spec = td.spec ?? {};
  const pd = `${tc.metadata.name ?? ''}-pd.${tc.metadata.namespace ?? ''}:2379`;
  const args = [
    `-h=${spec.listenOnLocalhostOnly === true ? '127.0.0.1' : '0.0.0.0'}`,
    `-p=${DASHBOARD_PORT}`,
    `--data-dir=${DASHBOARD_DATA.mountPath}`,
    `--temp-dir=${DASHBOARD_DATA.mountPath}`,
    `--path-prefix=${spec.pathPrefix ?? ''}`,
    `--feature-version=${String(tc.spec.version ?? '')}`,
    `--experimental=${spec.experimental === true}`,
    `--telemetry=${spec.telemetry !== false}`,
  ];
  // Only a disabled key visualizer is passed: v1 keeps the arguments of dashboards that leave it on unchanged.
  if (spec.disableKeyVisualizer === true) args.push('--keyviz=false');
  if (isTlsCluster(tc)) {
    args.push(`--pd=https://${pd}`, `--cluster-ca=${CLUSTER_TLS.mountPath}/ca.crt`, `--cluster-cert=${CLUSTER_TLS.mountPath}/tls.crt`, `--cluster-key=${CLUSTER_TLS.mountPath}/tls.key`);
  } else {
    args.push(`--pd=http://${pd}`);
  }
  if (isMysqlTls(tc)) args.push(`--tidb-ca=${MYSQL_TLS.mountPath}/ca.crt`, `--tidb-cert=${MYSQL_TLS.mountPath}/tls.crt`, `--tidb-key=${MYSQL_TLS.mountPath}/tls.key`);
  return args;
}

/** The Service, its spec recorded in the last-applied annotation (v1's `generateTiDBDashboardService`). */
export function dashboardService(td: TidbDashboard): IService {
  const name = td.metadata.name ?? '';
  const service = td.spec?.service ?? {};
  const selector = companionLabels('TidbDashboard', name);
  const annotations = service.annotations === undefined ? undefined : { ...service.annotations };
  const loadBalancer = service.type === 'LoadBalancer';
  return withServiceRecord({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: dashboardServiceName(name),
      namespace: td.metadata.namespace ?? '',
      labels: { ...selector, ...(service.labels ?? {}) },
      ...(annotations === undefined ? {} : { annotations }),
      ownerReferences: [companionOwnerRef('TidbDashboard', td)],
    },
    spec: {
      ...(service.type === undefined ? {} : { type: service.type as NonNullable<IService['spec']>['type'] }),
      ports: [{ name: service.portName || 'tidb-dashboard', port: DASHBOARD_PORT, targetPort: DASHBOARD_PORT, protocol: 'TCP' }],
      selector,
      publishNotReadyAddresses: true,
      ...(loadBalancer && service.loadBalancerIP !== undefined ? { loadBalancerIP: service.loadBalancerIP } : {}),
      ...(loadBalancer && service.loadBalancerSourceRanges !== undefined ? { loadBalancerSourceRanges: [...service.loadBalancerSourceRanges] } : {}),
    },
  });
}

/** The StatefulSet (v1's `generateTiDBDashboardStatefulSet`), with its last-applied record. */
export function dashboardStatefulSet(td: TidbDashboard, tc: TidbCluster): IStatefulSet {
  const name = td.metadata.name ?? '';
  const spec = td.spec ?? {};
  const clusterTls = isTlsCluster(tc);
  const mysqlTls = isMysqlTls(tc);
  const mounts: NonNullable<IContainer['volumeMounts']> = [{ name: DASHBOARD_DATA.volume, mountPath: DASHBOARD_DATA.mountPath }];
  const volumes: IVolume[] = [];
  if (clusterTls) {
    mounts.push({ name: CLUSTER_TLS.volume, mountPath: CLUSTER_TLS.mountPath, readOnly: true });
    volumes.push({ name: CLUSTER_TLS.volume, secret: { secretName: dashboardClusterTlsSecretName(name) } });
  }
  if (mysqlTls) {
    mounts.push({ name: MYSQL_TLS.volume, mountPath: MYSQL_TLS.mountPath, readOnly: true });
    volumes.push({ name: MYSQL_TLS.volume, secret: { secretName: dashboardMysqlTlsSecretName(name) } });
  }
  const container: IContainer = {
    name: 'tidb-dashboard',
    image: dashboardImage(td),
    imagePullPolicy: (spec.imagePullPolicy ?? 'IfNotPresent') as IContainer['imagePullPolicy'],
    args: dashboardArgs(td, tc),
    ports: [{ name: 'tidb-dashboard', containerPort: DASHBOARD_PORT }],
    volumeMounts: mounts,
  };
  return companionStatefulSet({
    kind: 'TidbDashboard',
    obj: td,
    component: spec,
    common: spec,
    name: dashboardStatefulSetName(name),
    serviceName: dashboardServiceName(name),
    container,
    volumes,
    claimName: DASHBOARD_DATA.volume,
    storage: String(spec.requests?.['storage'] ?? ''),
    storageClassName: spec.storageClassName,
    storageVolumes: spec.storageVolumes ?? [],
    memberType: 'tidb-dashboard',
  });
}
