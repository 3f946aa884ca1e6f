/**
 * A step's whole read kept in the state table for the health steps after it (docs/adr/0024,
 * lib/state/rest-reads.ts), so a health step in an execution environment that did not run the step
 * before still asks the API server nothing: it takes the TidbCluster, the owned objects and the
 * bound volumes from the kept read, and reaches the components at the addresses their names
 * resolved to then (a kept address that does not answer is resolved afresh, once, as in a warm
 * process). Never a reason for a step to fail: a read that cannot be loaded or kept is none, and the
 * health step reads at rest as before.
 */
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { ClusterKey } from '../model/key.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import type { RestReadStore } from '../state/rest-reads.js';
import type { VerifiedCluster } from '../state/port.js';
import type { KeptReads, WholeRead } from './observed.js';
import { boundVolumeNames } from './observe-volumes.js';

/** What is kept: the whole read, the cluster's resolved names, whether the cluster client Secret was seen. */
type KeptJson = {
  readonly cluster: TidbCluster;
  readonly owned: OwnedObjects;
  readonly volumes: readonly IPersistentVolume[] | null;
  readonly addresses: readonly (readonly [string, readonly string[]])[];
  readonly clientSecretSeen?: true;
};

/** A kept read as a health step takes it: the whole read (with its fence), what the observer keeps of it, the addresses. */
export type LoadedRead = { readonly whole: WholeRead; readonly kept: KeptReads; readonly addresses: readonly (readonly [string, readonly string[]])[] };

/**
 * The read kept for `key`, when it is the one the state item names (`fence`, the step before's
 * `persistedRead`) and of the TidbCluster the step may read at rest against (`verified`: uid,
 * generation). Undefined otherwise, and when it cannot be read.
 */
export async function loadKeptRead(store: RestReadStore, key: ClusterKey, fence: number, verified: VerifiedCluster, signal: AbortSignal): Promise<LoadedRead | undefined> {
  let stored;
  try {
    stored = await store.get(key, { signal });
  } catch {
    return undefined;
  }
  if (stored?.fence !== fence || !isKeptJson(stored.read)) return undefined;
  const { cluster, owned, volumes, addresses, clientSecretSeen } = stored.read;
  if (cluster.metadata.uid !== verified.uid || cluster.metadata.generation !== verified.generation) return undefined;
  const items = volumes ?? undefined;
  const whole: WholeRead = { cluster, owned, volumes: items, persistedAt: fence };
  const kept: KeptReads = { Service: owned.Service, ConfigMap: owned.ConfigMap, volumes: { names: boundVolumeNames(owned), items }, ...(clientSecretSeen ? { clientSecretSeen } : {}), whole };
  return { whole, kept, addresses };
}

/**
 * Keeps `whole` (read by the step holding `fence`) with the cluster's resolved `addresses`. Whether it
 * was kept: false when too large or when the write failed (the next health step then reads at rest).
 */
export async function keepRead(store: RestReadStore, key: ClusterKey, fence: number, nowMs: number, whole: Omit<WholeRead, 'persistedAt'>, addresses: readonly (readonly [string, readonly string[]])[], clientSecretSeen: boolean, signal: AbortSignal): Promise<boolean> {
  const read: KeptJson = { cluster: whole.cluster, owned: whole.owned, volumes: whole.volumes ?? null, addresses, ...(clientSecretSeen ? { clientSecretSeen: true as const } : {}) };
  try {
    return await store.put(key, { fence, atMs: nowMs, read }, { signal });
  } catch {
    return false;
  }
}

function isKeptJson(value: unknown): value is KeptJson {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const cluster = v['cluster'] as { metadata?: unknown } | undefined;
  return typeof cluster === 'object' && cluster !== null && typeof cluster.metadata === 'object' && typeof v['owned'] === 'object' && v['owned'] !== null && Array.isArray(v['addresses']);
}
