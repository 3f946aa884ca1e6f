/**
 * The initializer's ConfigMap and Job exactly as v1 builds them (`getTiDBInitConfigMap`,
 * `makeTiDBInitJob`, `getInitMeta`; `pkg/manager/member/tidb_init_manager.go` on release-1.6). Both
 * are named `<cluster>-tidb-initializer` (`controller.TiDBInitializerMemberName`), labelled
 * `app.kubernetes.io/component=initializer`, `managed-by=tidb-operator`, `instance=<ti>`,
 * `tidb.pingcap.com/initializer=<ti>` and then the initializer's own labels, annotated with its
 * annotations, and owned (controller) by it. The Job: `backoffLimit: 0`, `restartPolicy: Never`,
 * `automountServiceAccountToken: false`; init container `wait` (`sh init_start_script.sh`) and
 * container `mysql-client` (`python start_script.py`), both of `spec.image` with `TZ` from
 * `spec.timezone`; mounts: the scripts (subPath), `passwordSecret` at /etc/tidb/password, the SQL at
 * /data/init.sql (`initSqlConfigMap` winning over `initSql`), the TiDB client certificate at
 * /var/lib/tidb-client-tls when the cluster's TiDB serves clients over TLS.
 */

import type { KubeObject, TidbCluster } from '../../model/kube.js';
import { initStartScript, startScript, TIDB_CLIENT_TLS_PATH } from './scripts.js';
import type { TidbInitializer } from './types.js';

/** v1's names: the key and mount of each volume (`tidb_init_manager.go:39-52`). */
export const INIT = {
  initContainer: 'wait',
  container: 'mysql-client',
  passwordKey: 'password',
  passwordPath: '/etc/tidb/password',
  sqlKey: 'init-sql',
  sqlDir: '/data',
  sqlPath: 'init.sql',
  scriptDir: '/usr/local/bin',
  startKey: 'start-script',
  startPath: 'start_script.py',
  initStartKey: 'init-start-script',
  initStartPath: 'init_start_script.sh',
} as const;

/** v1's annotation that makes the operator's own clients skip TLS towards TiDB (`SkipTLSWhenConnectTiDB`). */
export const SKIP_TLS_ANNOTATION = 'tidb.pingcap.com/skip-tls-when-connect-tidb';

/** `<cluster>-tidb-initializer`: the ConfigMap's and the Job's name. */
export function initializerMemberName(clusterName: string): string {
  return `${clusterName}-tidb-initializer`;
}

/** v1's `GetServicePort`: `spec.tidb.service.port`, else 4000. */
export function tidbServicePort(tc: TidbCluster): number {
  const port = (tc.spec.tidb?.service as { port?: number } | undefined)?.port;
  return typeof port === 'number' ? port : 4000;
}

/** Whether the initializer talks TLS to TiDB: `tidb.tlsClient.enabled` and not the skip annotation. */
export function initializerTls(tc: TidbCluster): { skipCA: boolean } | undefined {
  const client = tc.spec.tidb?.tlsClient as { enabled?: boolean; skipInternalClientCA?: boolean } | undefined;
  if (client?.enabled !== true || tc.metadata.annotations?.[SKIP_TLS_ANNOTATION] === 'true') return undefined;
  return { skipCA: client.skipInternalClientCA === true };
}

/** The labels v1 gives the ConfigMap, the Job and its pod, then the initializer's own (which win). */
export function initializerLabels(ti: TidbInitializer): Record<string, string> {
  const name = ti.metadata.name ?? '';
  return {
    'app.kubernetes.io/component': 'initializer',
    'app.kubernetes.io/managed-by': 'tidb-operator',
    'app.kubernetes.io/instance': name,
    'tidb.pingcap.com/initializer': name,
    ...(ti.metadata.labels ?? {}),
  };
}

function metaOf(ti: TidbInitializer): KubeObject['metadata'] {
  const name = ti.metadata.name ?? '';
  return {
    name: initializerMemberName(ti.spec?.cluster?.name ?? ''),
    namespace: ti.metadata.namespace ?? '',
    labels: initializerLabels(ti),
    annotations: { ...(ti.metadata.annotations ?? {}) },
    ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbInitializer', name, uid: ti.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
  };
}

/** The ConfigMap: both scripts, and `init-sql` when the SQL is inline. */
export function buildInitConfigMap(ti: TidbInitializer, tc: TidbCluster): KubeObject {
  const spec = ti.spec ?? {};
  const cluster = spec.cluster?.name ?? '';
  const port = tidbServicePort(tc);
  const tls = initializerTls(tc);
  const model = {
    clusterName: cluster,
    permitHost: spec.permitHost || '%',
    passwordSet: spec.passwordSecret !== undefined,
    initSql: spec.initSql !== undefined || spec.initSqlConfigMap !== undefined,
    tidbServicePort: port,
    ...(tls === undefined ? {} : { tls }),
  };
  const data: Record<string, string> = { [INIT.initStartKey]: initStartScript(cluster, port), [INIT.startKey]: startScript(model) };
  if (spec.initSql !== undefined) data[INIT.sqlKey] = spec.initSql;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: metaOf(ti), data };
}

/** The Job. Guarantees: owned by the initializer; one pod, never restarted, never retried. */
export function buildInitJob(ti: TidbInitializer, tc: TidbCluster): KubeObject {
  const spec = ti.spec ?? {};
  const cluster = spec.cluster?.name ?? '';
  const jobName = initializerMemberName(cluster);
  const env = spec.timezone ? [{ name: 'TZ', value: spec.timezone }] : undefined;
  const mounts: Record<string, unknown>[] = [];
  const volumes: Record<string, unknown>[] = [];
  if (initializerTls(tc) !== undefined) {
    mounts.push({ name: 'tidb-client-tls', readOnly: true, mountPath: TIDB_CLIENT_TLS_PATH });
    volumes.push({ name: 'tidb-client-tls', secret: { secretName: spec.tlsClientSecretName ?? `${cluster}-tidb-client-secret` } });
  }
  mounts.push({ name: INIT.startKey, readOnly: true, mountPath: `${INIT.scriptDir}/${INIT.startPath}`, subPath: INIT.startPath });
  volumes.push({ name: INIT.startKey, configMap: { name: jobName, items: [{ key: INIT.startKey, path: INIT.startPath }] } });
  volumes.push({ name: INIT.initStartKey, configMap: { name: jobName, items: [{ key: INIT.initStartKey, path: INIT.initStartPath }] } });
  if (spec.passwordSecret !== undefined) {
    mounts.push({ name: INIT.passwordKey, readOnly: true, mountPath: INIT.passwordPath });
    volumes.push({ name: INIT.passwordKey, secret: { secretName: spec.passwordSecret } });
  }
  const sqlSource = spec.initSqlConfigMap ?? (spec.initSql !== undefined ? jobName : undefined);
  if (sqlSource !== undefined) {
    mounts.push({ name: INIT.sqlKey, readOnly: true, mountPath: INIT.sqlDir });
    volumes.push({ name: INIT.sqlKey, configMap: { name: sqlSource, items: [{ key: INIT.sqlKey, path: INIT.sqlPath }] } });
  }
  const common = {
    image: spec.image ?? '',
    ...(env ? { env } : {}),
    ...(spec.imagePullPolicy ? { imagePullPolicy: spec.imagePullPolicy } : {}),
    ...(spec.resources !== undefined ? { resources: spec.resources } : {}),
  };
  const meta = metaOf(ti);
  const podSpec: Record<string, unknown> = {
    ...(spec.imagePullSecrets !== undefined ? { imagePullSecrets: spec.imagePullSecrets } : {}),
    ...(spec.serviceAccountName ? { serviceAccountName: spec.serviceAccountName } : {}),
    ...(spec.podSecurityContext !== undefined ? { securityContext: spec.podSecurityContext } : {}),
    automountServiceAccountToken: false,
    initContainers: [{ name: INIT.initContainer, command: ['sh', `${INIT.scriptDir}/${INIT.initStartPath}`], volumeMounts: [{ name: INIT.initStartKey, readOnly: true, mountPath: `${INIT.scriptDir}/${INIT.initStartPath}`, subPath: INIT.initStartPath }], ...common }],
    containers: [{ name: INIT.container, command: ['python', `${INIT.scriptDir}/${INIT.startPath}`], volumeMounts: mounts, ...common }],
    restartPolicy: 'Never',
    volumes,
    ...(spec.tolerations !== undefined ? { tolerations: spec.tolerations } : {}),
    ...(spec.nodeSelector !== undefined ? { nodeSelector: spec.nodeSelector } : {}),
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta,
    spec: { backoffLimit: 0, template: { metadata: { labels: meta.labels, annotations: meta.annotations }, spec: podSpec } },
  };
}
