/**
 * The compaction Job exactly as v1 builds it (`makeCompactJob`, `compact_backup_controller.go` on
 * release-1.6): named like the CompactBackup, labels `app.kubernetes.io/name=backup`,
 * `managed-by=backup-operator`, `component=backup`, `instance=Compact-Backup` (v1's literal),
 * `tidb.pingcap.com/backup=<name>`, then the CompactBackup's own labels; its annotations on Job and
 * pod; controller ownerReference to the CompactBackup; init containers `br` (BR binary to
 * /var/lib/br-bin) and `tikv-ctl` (to /var/lib/kvctl-bin) over one emptyDir `tool-bin`; container
 * `backup-manager` running `compact --namespace --resourceName` with the storage env only (an S3
 * Secret's keys as `secretKeyRef`s, IRSA / Pod Identity otherwise) and `spec.env` overriding;
 * `restartPolicy: OnFailure` and `backoffLimit = maxRetryTimes` — the pod retries in place and the
 * Job fails after that many failed runs. No cluster TLS: tikv-ctl reads and writes only the storage.
 */

import type { KubeObject, TidbCluster } from '../../model/kube.js';
import { tikvImage as clusterTikvImage } from '../components/tikv/pod-template.js';
import { s3Env } from '../backup/env.js';
import { brImage, DEFAULT_BACKUP_SERVICE_ACCOUNT, tikvVersionOf } from '../backup/job.js';
import type { EnvVar } from '../backup/types.js';
import { imageTag } from '../backup/version.js';
import type { CompactBackup, CompactSpec } from './types.js';

/** v1's `util.BRBinPath` and `util.KVCTLBinPath`, both on the one `tool-bin` emptyDir. */
export const TOOL_BIN = { volume: 'tool-bin', brPath: '/var/lib/br-bin', kvctlPath: '/var/lib/kvctl-bin' } as const;

/** The `app.kubernetes.io/instance` v1 gives every compaction Job. */
export const COMPACT_JOB_INSTANCE = 'Compact-Backup';

/** The tikv-ctl image: `spec.tikvImage` (tagged with the cluster's TiKV version when it has no tag), else the cluster's TiKV image. */
export function compactTikvImage(spec: CompactSpec, tc: TidbCluster): string {
  const own = spec.tikvImage;
  if (own === undefined || own === '') return clusterTikvImage(tc);
  return imageTag(own) === '' ? `${own}:${tikvVersionOf(tc)}` : own;
}

/** v1's `AppendOverwriteEnv`: an entry of `extra` replaces the built-in of the same name in place, the others are appended. */
export function overwriteEnv(base: readonly EnvVar[], extra: readonly EnvVar[]): EnvVar[] {
  const out = [...base];
  for (const e of extra) {
    const i = out.findIndex((b) => b.name === e.name);
    if (i >= 0) out[i] = e;
    else out.push(e);
  }
  return out;
}

/** The Job labels: v1's built-ins, then the CompactBackup's own (which win, as `CombineStringMap`). */
export function compactJobLabels(compact: CompactBackup): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'backup',
    'app.kubernetes.io/managed-by': 'backup-operator',
    'app.kubernetes.io/instance': COMPACT_JOB_INSTANCE,
    'app.kubernetes.io/component': 'backup',
    'tidb.pingcap.com/backup': compact.metadata.name ?? '',
    ...(compact.metadata.labels ?? {}),
  };
}

/** The Job. Guarantees: owned (controller, blockOwnerDeletion) by the CompactBackup; `restartPolicy: OnFailure`; `backoffLimit = maxRetryTimes`. */
export function buildCompactJob(compact: CompactBackup, tc: TidbCluster, managerImage: string): KubeObject {
  const spec = compact.spec ?? {};
  const ns = compact.metadata.namespace ?? '';
  const name = compact.metadata.name ?? '';
  const labels = compactJobLabels(compact);
  const annotations = { ...(compact.metadata.annotations ?? {}) };
  const mounts = [
    { name: TOOL_BIN.volume, mountPath: TOOL_BIN.brPath },
    { name: TOOL_BIN.volume, mountPath: TOOL_BIN.kvctlPath },
    ...(spec.additionalVolumeMounts ?? []),
  ];
  const volumes = [{ name: TOOL_BIN.volume, emptyDir: {} }, ...(spec.additionalVolumes ?? [])];
  const resources = spec.resources === undefined ? {} : { resources: spec.resources };
  const copy = (tool: string, dir: string): string[] => [`cp /${tool} ${dir}/${tool}; echo '${tool === 'br' ? 'BR' : tool} copy finished'`];
  const podSpec = {
    ...(spec.podSecurityContext === undefined ? {} : { securityContext: spec.podSecurityContext }),
    serviceAccountName: spec.serviceAccount || DEFAULT_BACKUP_SERVICE_ACCOUNT,
    ...(spec.automountServiceAccountToken === undefined ? {} : { automountServiceAccountToken: spec.automountServiceAccountToken }),
    initContainers: [
      { name: 'br', image: brImage(spec, tc), command: ['/bin/sh', '-c'], args: copy('br', TOOL_BIN.brPath), imagePullPolicy: 'IfNotPresent', volumeMounts: mounts, ...resources },
      { name: 'tikv-ctl', image: compactTikvImage(spec, tc), command: ['/bin/sh', '-c'], args: copy('tikv-ctl', TOOL_BIN.kvctlPath), imagePullPolicy: 'IfNotPresent', volumeMounts: mounts, ...resources },
    ],
    containers: [
      {
        name: 'backup-manager',
        image: managerImage,
        args: ['compact', `--namespace=${ns}`, `--resourceName=${name}`],
        env: overwriteEnv(spec.s3 ? s3Env(spec.s3, spec.useKMS === true) : [], spec.env ?? []),
        volumeMounts: mounts,
        imagePullPolicy: 'IfNotPresent',
        ...resources,
      },
    ],
    restartPolicy: 'OnFailure',
    ...optional(spec),
    volumes,
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: ns,
      labels,
      annotations,
      ownerReferences: [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'CompactBackup', name, uid: compact.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: { backoffLimit: spec.maxRetryTimes ?? 0, template: { metadata: { labels, annotations }, spec: podSpec } },
  };
}

function optional(spec: CompactSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (spec.tolerations !== undefined) out['tolerations'] = spec.tolerations;
  if (spec.imagePullSecrets !== undefined) out['imagePullSecrets'] = spec.imagePullSecrets;
  if (spec.affinity !== undefined) out['affinity'] = spec.affinity;
  if (spec.priorityClassName !== undefined) out['priorityClassName'] = spec.priorityClassName;
  return out;
}
