/**
 * What the observer leaves for the executor of the same step: the identity (uid, resourceVersion,
 * apiVersion) of every object it observed, the cluster's instance label and whether it serves
 * cluster TLS, per cluster key and fence. An Event names its involved object by uid and
 * resourceVersion; taking them from the observation costs no extra request and gives the executor
 * exactly the version the rules decided on.
 *
 * It also keeps, for the next step of the same key, what a step read of the kinds no watch reports
 * (`KeptReads`, see `keptFor`): a step at rest takes them from here instead of reading them again.
 */

import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';

import type { ClusterKey } from '../model/key.js';
import type { ObjectRef, OwnedObjects, TidbCluster } from '../model/kube.js';
import { TerminalError } from '../platform/errors.js';
import { LruMap } from '../platform/lru.js';
import { isTlsCluster } from '../reconcile/cluster/tls.js';
import { referencedPdOf } from '../reconcile/cluster/referenced-pd.js';

/** How many clusters a warm process keeps observations of unless told otherwise. */
export const DEFAULT_OBSERVED_CLUSTERS = 1_000;

/**
 * How many clusters a warm process keeps `KeptReads` of unless told otherwise: they hold whole
 * objects (tens of KB for a cluster with every component), so fewer than the identities.
 */
export const DEFAULT_KEPT_CLUSTERS = 100;

/**
 * What one step read of the kinds no watch reports (the exporter watches TidbClusters,
 * StatefulSets, Pods and PersistentVolumeClaims; a change of these comes as a trigger, a change of
 * the others does not): the cluster's Services and ConfigMaps, the volumes bound to its claims
 * (`volumes.names`: the bound volume names they were read for, in claim order; `items` undefined
 * when no claim was bound), and whether the cluster client Secret existed (cluster TLS only).
 */
export type KeptReads = {
  readonly Service: OwnedObjects['Service'];
  readonly ConfigMap: OwnedObjects['ConfigMap'];
  readonly volumes: { readonly names: readonly string[]; readonly items: readonly IPersistentVolume[] | undefined };
  readonly clientSecretSeen?: true;
  /**
   * What the step read from the API server — the TidbCluster, what it owns, the bound volumes — for
   * a health step (docs/adr/0024), which reads only the components. Dropped by
   * any Kubernetes write of the step (`dropWhole`): what it wrote is no longer what was read.
   */
  readonly whole?: WholeRead;
};

/** What one step read from the API server, whole (see `KeptReads.whole`). */
export type WholeRead = {
  readonly cluster: TidbCluster;
  readonly owned: OwnedObjects;
  readonly volumes: readonly IPersistentVolume[] | undefined;
  /** The fence under which this read is kept in the state table (`RestReadStore`), when it is. */
  readonly persistedAt?: number;
};

/**
 * The kinds whose writes change what a step keeps for the next (`KeptReads`): its Services,
 * ConfigMaps and volumes, and the claims the volumes are bound to. A step writing one drops what is
 * kept (`dropKept`) before the write is sent.
 */
export const KEPT_KINDS_WRITTEN: ReadonlySet<string> = new Set(['Service', 'ConfigMap', 'PersistentVolume', 'PersistentVolumeClaim']);

/** One observed object's identity. */
export type ObservedIdentity = { readonly uid: string; readonly resourceVersion: string; readonly apiVersion: string };

type Identified = {
  readonly apiVersion?: string;
  readonly metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
};

type Entry = {
  readonly fence: number;
  readonly instance: string;
  readonly tls: boolean;
  /** The TidbCluster whose PD the cluster uses, when it is another one's (`spec.cluster`). */
  readonly pd?: { readonly namespace: string; readonly name: string };
  readonly objects: ReadonlyMap<string, ObservedIdentity>;
  /** The cluster's recent Events as the executor read them for this step, once it needed them. */
  recentEvents?: Promise<Set<string>>;
};

/**
 * The last observation's identities per key, for the step (fence) that made it. Guarantees: each
 * observe replaces its key's entry whole, and a lookup answers only for the fence that observed, so
 * the executor of a step sees that step's observation and never an older step's (a key's steps never
 * overlap: the lease); at most `maxClusters` keys are kept, the least recently used going first, so a
 * warm process that saw many clusters holds a bounded few KB each. A key a lookup does not find
 * (evicted, or another fence) reads as not observed. What a step kept for the next (`keep`) is
 * bounded alike, by `maxKept`.
 */
export class ObservedIndex {
  private readonly entries: LruMap<ClusterKey, Entry>;
  private readonly kept: LruMap<ClusterKey, { readonly fence: number; readonly reads: KeptReads }>;

  constructor(
    readonly maxClusters: number = DEFAULT_OBSERVED_CLUSTERS,
    readonly maxKept: number = Math.min(maxClusters, DEFAULT_KEPT_CLUSTERS),
  ) {
    if (!Number.isInteger(maxClusters) || maxClusters < 1) {
      throw new TerminalError(`ObservedIndex: maxClusters must be a whole number ≥ 1, got ${maxClusters}`, { field: 'maxClusters' });
    }
    if (!Number.isInteger(maxKept) || maxKept < 0) {
      throw new TerminalError(`ObservedIndex: maxKept must be a whole number ≥ 0, got ${maxKept}`, { field: 'maxKept' });
    }
    this.entries = new LruMap(maxClusters);
    this.kept = new LruMap(maxKept);
  }

  /** How many keys are kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** Records what the step holding `fence` observed for `key` (its TidbCluster and everything it owns). */
  remember(key: ClusterKey, fence: number, instance: string, cluster: TidbCluster | undefined, owned: OwnedObjects): void {
    const objects = new Map<string, ObservedIdentity>();
    const add = (kind: string, object: Identified): void => {
      const { name, namespace, uid, resourceVersion } = object.metadata ?? {};
      if (name === undefined || uid === undefined) return;
      objects.set(refId(kind, namespace, name), { uid, resourceVersion: resourceVersion ?? '', apiVersion: object.apiVersion ?? '' });
    };
    if (cluster) add('TidbCluster', cluster);
    for (const [kind, items] of Object.entries(owned)) for (const item of items) add(kind, item);
    const pd = cluster === undefined ? undefined : referencedPdOf(cluster);
    this.entries.set(key, { fence, instance, tls: cluster !== undefined && isTlsCluster(cluster), ...(pd ? { pd } : {}), objects });
  }

  /** Forgets a key (its cluster is gone). */
  forget(key: ClusterKey): void {
    this.entries.delete(key);
    this.kept.delete(key);
  }

  /**
   * Keeps what the step holding `fence` read of the unwatched kinds, for the next step of `key`
   * (replacing what was kept before). At most `maxKept` keys are kept, the least recently kept going
   * first.
   */
  keep(key: ClusterKey, fence: number, reads: KeptReads): void {
    this.kept.set(key, { fence, reads });
  }

  /**
   * What the step before the one holding `fence` kept, if that step (fence − 1) ran in this process
   * and wrote none of those kinds (`dropKept`). Fences count claims, so no other step of the key ran
   * in between, here or in another process: the reads are as that step left them, unless someone
   * other than the reconciler changed them since (which no trigger reports either way).
   */
  keptFor(key: ClusterKey, fence: number): KeptReads | undefined {
    const found = this.kept.peek(key);
    return found?.fence === fence - 1 ? found.reads : undefined;
  }

  /** Drops what is kept for `key`: its step is about to write one of the kinds kept. */
  dropKept(key: ClusterKey): void {
    this.kept.delete(key);
  }

  /**
   * The fence under which the whole read the step holding `fence` kept is also kept in the state
   * table, while that step has written nothing to the API server (`dropWhole`); else undefined.
   */
  persistedAt(key: ClusterKey, fence: number): number | undefined {
    const found = this.kept.peek(key);
    return found?.fence === fence ? found.reads.whole?.persistedAt : undefined;
  }

  /** Drops the whole read kept for `key` (its step is about to write to the API server); the rest stays. */
  dropWhole(key: ClusterKey): void {
    const found = this.kept.peek(key);
    if (found?.reads.whole === undefined) return;
    const { whole: _dropped, ...rest } = found.reads;
    this.kept.set(key, { fence: found.fence, reads: rest });
  }

  /** The observed identity of `ref`, if the observation of `key` under `fence` saw it. */
  identity(key: ClusterKey, fence: number, ref: ObjectRef): ObservedIdentity | undefined {
    return this.entry(key, fence)?.objects.get(refId(ref.kind, ref.namespace, ref.name));
  }

  /** Whether the observation of `key` under `fence` saw cluster TLS on (its PD is then reached over https). */
  tls(key: ClusterKey, fence: number): boolean {
    return this.entry(key, fence)?.tls ?? false;
  }

  /** The TidbCluster whose PD `key` uses when it is another one's (observed under `fence`); else undefined. */
  referencedPd(key: ClusterKey, fence: number): { readonly namespace: string; readonly name: string } | undefined {
    return this.entry(key, fence)?.pd;
  }

  /** The instance label value observed for `key` under `fence`, if it was observed. */
  instance(key: ClusterKey, fence: number): string | undefined {
    return this.entry(key, fence)?.instance;
  }

  /**
   * What `read` gives, read once for the step that observed `key` under `fence`: later calls of that
   * step get the same set (a failed read is forgotten, so a retry reads again). Without that
   * observation (evicted, or another fence) every call reads.
   */
  recentEvents(key: ClusterKey, fence: number, read: () => Promise<Set<string>>): Promise<Set<string>> {
    const entry = this.entry(key, fence);
    if (!entry) return read();
    if (!entry.recentEvents) {
      const reading = read();
      entry.recentEvents = reading;
      reading.catch(() => {
        if (entry.recentEvents === reading) delete entry.recentEvents;
      });
    }
    return entry.recentEvents;
  }

  /** The entry of `key` if `fence` made it, marked as just used. */
  private entry(key: ClusterKey, fence: number): Entry | undefined {
    return this.entries.peek(key)?.fence === fence ? this.entries.get(key) : undefined;
  }
}

function refId(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}
