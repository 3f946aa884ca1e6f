/**
 * What the observer leaves for the executor of the same step: the identity (uid, resourceVersion,
 * apiVersion) of every object it observed, the cluster's instance label and whether it serves
 * cluster TLS, per cluster key and fence. An Event names its involved object by uid and
 * resourceVersion; taking them from the observation costs no extra request and gives the executor
 * exactly the version the rules decided on.
 */

import type { ClusterKey } from '../model/key.js';
import type { ObjectRef, OwnedObjects, TidbCluster } from '../model/kube.js';
import { TerminalError } from '../platform/errors.js';
import { isTlsCluster } from '../reconcile/cluster/tls.js';
import { referencedPdOf } from '../reconcile/cluster/referenced-pd.js';

/** How many clusters a warm process keeps observations of unless told otherwise. */
export const DEFAULT_OBSERVED_CLUSTERS = 1_000;

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
 * (evicted, or another fence) reads as not observed.
 */
export class ObservedIndex {
  private readonly entries = new Map<ClusterKey, Entry>();

  constructor(readonly maxClusters: number = DEFAULT_OBSERVED_CLUSTERS) {
    if (!Number.isInteger(maxClusters) || maxClusters < 1) {
      throw new TerminalError(`ObservedIndex: maxClusters must be a whole number ≥ 1, got ${maxClusters}`, { field: 'maxClusters' });
    }
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
    this.entries.delete(key);
    const pd = cluster === undefined ? undefined : referencedPdOf(cluster);
    this.entries.set(key, { fence, instance, tls: cluster !== undefined && isTlsCluster(cluster), ...(pd ? { pd } : {}), objects });
    // A Map iterates in insertion order: the first key is the least recently used.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxClusters) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets a key (its cluster is gone). */
  forget(key: ClusterKey): void {
    this.entries.delete(key);
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
    const found = this.entries.get(key);
    if (found?.fence !== fence) return undefined;
    this.entries.delete(key);
    this.entries.set(key, found);
    return found;
  }
}

function refId(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}
