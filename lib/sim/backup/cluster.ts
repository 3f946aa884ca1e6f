/**
 * What BR inside a backup-manager pod sees of the TiDB cluster it backs up or restores into: PD at
 * `<cluster>-pd.<clusterNamespace>:2379` (cmd/backup-manager/app/backup/backup.go:271) answering
 * only while it has a leader; TLS on both sides or neither (`--cluster-tls=true` makes BR use the
 * client certificate mounted from `<cluster>-cluster-client-secret` at /var/lib/cluster-client-tls);
 * the TiKV version gates of the args (`--tikvVersion`).
 */
import type { Clock } from '../../platform/clock.js';
import type { KubeObject } from '../object.js';
import type { ProxyRegistry } from '../proxy.js';
import type { ObjectStore } from '../store.js';
import type { Datasets } from './dataset.js';
import type { StreamKeys } from './log-tasks.js';
import type { PodIdentityAssociations } from './pod-identity.js';
import type { SimS3 } from './s3.js';

/** What BR sees of a simulated cluster: whether PD has a leader, and the TiKV stores (the simulation's ClusterState has both). */
export type BrClusterView = {
  readonly pd: {
    hasLeader(): boolean;
    readonly stores: { list(): readonly { readonly id: string; readonly alive: boolean }[] };
    /** PD's etcd, where log-backup tasks keep their keys (absent in views that have none). */
    readonly etcd?: StreamKeys;
  };
};

/** The world a backup-manager process runs in. */
export type BackupContext = {
  readonly store: ObjectStore;
  readonly clock: Clock;
  readonly s3: SimS3;
  readonly datasets: Datasets;
  /** The service proxy a pod's TiDB connection (`from` / `to`) goes through; absent: no TiDB answers. */
  readonly proxy?: ProxyRegistry;
  /** The EKS cluster's pod identity associations (absent: none). */
  readonly podIdentity?: PodIdentityAssociations;
  /** The simulated cluster `namespace/name`, if any of its pods ever started. */
  clusterState(namespace: string, name: string): BrClusterView | undefined;
};

/** A BR failure: the message BR prints (and v1 copies into the condition's message). */
export class BrError extends Error {
  override readonly name = 'BrError';
}

/** How long BR's PD client keeps trying before it gives up (its dial + retry budget). */
export const PD_CONNECT_TIMEOUT_MS = 30_000;

/** The PD address BR is given. */
export function pdAddress(cluster: string, clusterNamespace: string): string {
  return `${cluster}-pd.${clusterNamespace}:2379`;
}

/** The PD problem BR meets now (what `checkPd` would throw), or undefined when PD answers. */
export function pdProblem(ctx: BackupContext, pod: KubeObject, cluster: string, clusterNamespace: string, clusterTlsArg: boolean): BrError | undefined {
  try {
    checkPd(ctx, pod, cluster, clusterNamespace, clusterTlsArg);
    return undefined;
  } catch (err) {
    if (err instanceof BrError) return err;
    throw err;
  }
}

/**
 * Throws what BR reports when it cannot use PD: no such cluster or no PD leader (a dial timeout),
 * or a TLS mismatch between the cluster and the pod's args / mounted certificate.
 */
export function checkPd(ctx: BackupContext, pod: KubeObject, cluster: string, clusterNamespace: string, clusterTlsArg: boolean): void {
  const address = pdAddress(cluster, clusterNamespace);
  const tc = ctx.store.get('TidbCluster', clusterNamespace, cluster);
  const tlsCluster = (tc?.spec as { tlsCluster?: { enabled?: boolean } } | undefined)?.tlsCluster?.enabled === true;
  const state = ctx.clusterState(clusterNamespace, cluster);
  if (!tc || !state || !state.pd.hasLeader()) throw new BrError(`[PD:client:ErrClientGetMember]error:rpc error: code = DeadlineExceeded desc = context deadline exceeded target:${address} status:CONNECTING: failed to get cluster id`);
  if (clusterTlsArg) {
    const mounted = ((pod.spec?.volumes ?? []) as { secret?: { secretName?: string } }[]).some((v) => v.secret?.secretName === `${cluster}-cluster-client-secret`);
    if (!mounted) throw new BrError('open /var/lib/cluster-client-tls/ca.crt: no such file or directory');
    if (!tlsCluster) throw new BrError(`[PD:client:ErrClientGetMember]error:rpc error: code = Unavailable desc = connection error: desc = "transport: authentication handshake failed: tls: first record does not look like a TLS handshake" target:${address}`);
  } else if (tlsCluster) {
    throw new BrError(`[PD:client:ErrClientGetMember]error:rpc error: code = Unavailable desc = connection error: desc = "error reading server preface: EOF" target:${address}`);
  }
}

/** The TiKV stores BR writes backup files from (ids of the stores that are Up), at least one name. */
export function storeIds(state: BrClusterView | undefined): string[] {
  const ids = (state?.pd.stores.list() ?? []).filter((s) => s.alive).map((s) => s.id);
  return ids.length > 0 ? ids : ['1'];
}

/** Whether `version` (`v6.5.0`, `6.5.1`, …) is older than `than`; an unparsable tag counts as new (as v1's version gates). */
export function versionBelow(version: string | undefined, than: [number, number, number]): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const v = [Number(m[1]), Number(m[2]), Number(m[3])];
  for (let i = 0; i < 3; i++) {
    const a = v[i] ?? 0;
    const b = than[i] ?? 0;
    if (a !== b) return a < b;
  }
  return false;
}
