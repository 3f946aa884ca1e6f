/**
 * The Jobs the backup controllers create, shaped as v1 builds them (TiDB Operator v1's `backup_manager.go`
 * §1.11, §2.3): name, labels, owner reference, `backoffLimit`, the `br` init container copying the BR
 * binary, the `backup`/`restore`/`clean` container running `tidb-backup-manager` with its args and
 * env, the service account (IRSA / Pod Identity), and the cluster client TLS Secret when the cluster
 * has TLS. Pure: everything comes from the custom resource and the TidbCluster read.
 */

import type { KubeObject, TidbCluster } from '../../model/kube.js';
import { CLUSTER_CLIENT_TLS, clusterClientSecretName, isTlsCluster } from '../cluster/tls.js';
import { tikvImage } from '../components/tikv/pod-template.js';
import { initializerTls } from '../tidb-initializer/job.js';
import { jobEnv } from './env.js';
import type { EnvVar, JobShapingSpec } from './types.js';
import { imageTag } from './version.js';

/** v1's default service account of backup Jobs (`pkg/backup/constants`). */
export const DEFAULT_BACKUP_SERVICE_ACCOUNT = 'tidb-backup-manager';

/** The operator's `--tidb-backup-manager-image` default (`dependences.go:122`). */
export const DEFAULT_BACKUP_MANAGER_IMAGE = 'pingcap/tidb-backup-manager:latest';

const BR_BIN = { volume: 'br-bin', mountPath: '/var/lib/br-bin' } as const;

/** What a Job is for: its owner, its name, its labels' component and container, and its args. */
export type JobRequest = {
  readonly owner: KubeObject;
  readonly ownerKind: 'Backup' | 'Restore';
  readonly jobName: string;
  /** `app.kubernetes.io/name` and `component` (`backup`, `clean`, `restore`). */
  readonly component: 'backup' | 'clean' | 'restore';
  readonly container: 'backup' | 'restore';
  readonly args: readonly string[];
  readonly spec: JobShapingSpec;
  readonly tc: TidbCluster | undefined;
  readonly managerImage: string;
  readonly backoffLimit: number;
  /** The TiDB password Secret (`from`/`to`.secretName) when the pod connects to TiDB. */
  readonly tidbSecretName?: string;
  /** The TiDB client certificate Secret, when the pod reaches TiDB over TLS (`tidbClientTls`). */
  readonly tidbClientSecretName?: string;
  /** Whether the BR binary is copied in (backup and restore Jobs; the clean Job needs none). */
  readonly withBr: boolean;
};

/** The TiKV version BR must match: the tag of the TidbCluster's TiKV image (§1.6). */
export function tikvVersionOf(tc: TidbCluster): string {
  return imageTag(tikvImage(tc));
}

/** The BR image: `toolImage` (tagged with the TiKV version when it has no tag), else `pingcap/br:<tikvVersion>`. */
export function brImage(spec: JobShapingSpec, tc: TidbCluster | undefined): string {
  const version = tc ? tikvVersionOf(tc) : 'latest';
  const tool = spec.toolImage;
  if (tool === undefined || tool === '') return `pingcap/br:${version}`;
  return imageTag(tool) === '' ? `${tool}:${version}` : tool;
}

/** The Job. Guarantees: owned by (controller, blockOwnerDeletion) the custom resource; `restartPolicy: Never`. */
export function buildJob(request: JobRequest): KubeObject {
  const { owner, spec, tc } = request;
  const ns = owner.metadata.namespace ?? '';
  const name = owner.metadata.name ?? '';
  const labels = jobLabels(request);
  const annotations = { ...(owner.metadata.annotations ?? {}) };
  const tls = tc !== undefined && isTlsCluster(tc) ? tlsWiring(tc) : { volumes: [], mounts: [] };
  const clientSecret = request.tidbClientSecretName;
  const clientTls = clientSecret === undefined ? { volumes: [], mounts: [] } : { volumes: [{ name: TIDB_CLIENT_TLS.volume, secret: { secretName: clientSecret } }], mounts: [{ name: TIDB_CLIENT_TLS.volume, readOnly: true, mountPath: TIDB_CLIENT_TLS.mountPath }] };
  const brWiring = request.withBr ? { volumes: [{ name: BR_BIN.volume, emptyDir: {} }], mounts: [{ name: BR_BIN.volume, mountPath: BR_BIN.mountPath }] } : { volumes: [], mounts: [] };
  const container = {
    name: request.container,
    image: request.managerImage,
    imagePullPolicy: 'IfNotPresent',
    args: [...request.args],
    env: jobEnv(spec, request.tidbSecretName) as EnvVar[],
    volumeMounts: [...brWiring.mounts, ...tls.mounts, ...clientTls.mounts],
    ...(spec.resources === undefined ? {} : { resources: spec.resources }),
  };
  const initContainers = request.withBr
    ? [{ name: 'br', image: brImage(spec, tc), imagePullPolicy: 'IfNotPresent', command: ['/bin/sh', '-c'], args: [`cp /br ${BR_BIN.mountPath}/br; echo 'BR copy finished'`], volumeMounts: brWiring.mounts }]
    : [];
  const podSpec = {
    serviceAccountName: spec.serviceAccount || DEFAULT_BACKUP_SERVICE_ACCOUNT,
    restartPolicy: 'Never',
    ...(request.container === 'restore' ? { terminationGracePeriodSeconds: 10 } : {}),
    initContainers,
    containers: [container],
    volumes: [...brWiring.volumes, ...tls.volumes, ...clientTls.volumes],
    ...optional(spec),
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: request.jobName,
      namespace: ns,
      labels,
      annotations,
      ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: request.ownerKind, name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: { backoffLimit: request.backoffLimit, template: { metadata: { labels, annotations }, spec: podSpec } },
  };
}

/** v1's labels: name/managed-by/component/instance plus `tidb.pingcap.com/<kind>=<name>`, then the owner's own. */
function jobLabels(request: JobRequest): Record<string, string> {
  const owner = request.owner;
  const name = owner.metadata.name ?? '';
  const own = owner.metadata.labels ?? {};
  const kind = request.ownerKind === 'Backup' ? 'backup' : 'restore';
  return {
    ...own,
    'app.kubernetes.io/name': kind,
    'app.kubernetes.io/managed-by': `${kind}-operator`,
    'app.kubernetes.io/component': request.component,
    'app.kubernetes.io/instance': own['app.kubernetes.io/instance'] ?? name,
    [`tidb.pingcap.com/${kind}`]: name,
  };
}

// The cluster client certificate, resolved in the Job's namespace (v1: a Backup outside the
// TidbCluster's namespace needs a copy of the Secret there).
function tlsWiring(tc: TidbCluster): { volumes: object[]; mounts: object[] } {
  const secretName = clusterClientSecretName(tc.metadata?.name ?? '');
  return {
    volumes: [{ name: CLUSTER_CLIENT_TLS.volume, secret: { secretName } }],
    mounts: [{ name: CLUSTER_CLIENT_TLS.volume, readOnly: true, mountPath: CLUSTER_CLIENT_TLS.mountPath }],
  };
}

function optional(spec: JobShapingSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (spec.tolerations !== undefined) out['tolerations'] = spec.tolerations;
  if (spec.affinity !== undefined) out['affinity'] = spec.affinity;
  if (spec.imagePullSecrets !== undefined) out['imagePullSecrets'] = spec.imagePullSecrets;
  if (spec.priorityClassName !== undefined) out['priorityClassName'] = spec.priorityClassName;
  if (spec.podSecurityContext !== undefined) out['securityContext'] = spec.podSecurityContext;
  return out;
}

const TIDB_CLIENT_TLS = { volume: 'tidb-client-tls', mountPath: '/var/lib/tidb-client-tls' } as const;

/**
 * When the pod reaches TiDB (`from` / `to`) and the cluster's TiDB serves MySQL over TLS (and is not
 * annotated to skip it), v1's `--client-tls=true [--skipClientCA=true]` and the client certificate
 * Secret — `tlsClientSecretName`, else `<cluster>-tidb-client-secret` — mounted at
 * /var/lib/tidb-client-tls (backup_manager.go `makeBRBackupJob`, restore_manager.go `makeRestoreJobWithMode`).
 */
export function tidbClientTls(tc: TidbCluster | undefined, cluster: string, access: { readonly tlsClientSecretName?: string } | undefined): { args: string[]; request: { tidbClientSecretName?: string } } {
  const tls = access !== undefined && tc !== undefined ? initializerTls(tc) : undefined;
  if (tls === undefined) return { args: [], request: {} };
  return { args: ['--client-tls=true', ...(tls.skipCA ? ['--skipClientCA=true'] : [])], request: { tidbClientSecretName: access?.tlsClientSecretName || `${cluster}-tidb-client-secret` } };
}

/** `--cluster-tls=true` when the cluster has TLS (§1.6). */
export function tlsArgs(tc: TidbCluster | undefined): string[] {
  return tc !== undefined && isTlsCluster(tc) ? ['--cluster-tls=true'] : [];
}
