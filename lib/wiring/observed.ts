/**
 * What the observer leaves for the executor of the same step: the owned-object label selector and
 * the identity (uid, resourceVersion, apiVersion) of every object it observed, per cluster key. An
 * Event names its involved object by uid and resourceVersion; taking them from the observation costs
 * no extra request and gives the executor exactly the version the rules decided on.
 */

import type { ClusterKey } from '../model/key.js';
import type { ObjectRef, OwnedObjects, TidbCluster } from '../model/kube.js';
import { isTlsCluster } from '../reconcile/cluster/tls.js';

/** TiDB Operator's labels (reference §2.0, §2.10) that select what a TidbCluster owns. */
export const LABEL = {
  instance: 'app.kubernetes.io/instance',
  managedBy: 'app.kubernetes.io/managed-by',
  component: 'app.kubernetes.io/component',
} as const;

/** The `managed-by` value of every object TiDB Operator (and so the reconciler) creates. */
export const MANAGED_BY = 'tidb-operator';

/**
 * The instance label value of a TidbCluster's objects: the cluster's own `app.kubernetes.io/instance`
 * label when set, else its name (as TiDB Operator's `label.New().Instance(...)`).
 */
export function instanceOf(cluster: Pick<TidbCluster, 'metadata'>, fallbackName: string): string {
  return cluster.metadata?.labels?.[LABEL.instance] ?? cluster.metadata?.name ?? fallbackName;
}

/** The labels every owned object carries, as equality pairs (also put on the Events we record). */
export function ownedLabels(instance: string): Record<string, string> {
  return { [LABEL.instance]: instance, [LABEL.managedBy]: MANAGED_BY };
}

/** One observed object's identity. */
export type ObservedIdentity = { readonly uid: string; readonly resourceVersion: string; readonly apiVersion: string };

type Identified = {
  readonly apiVersion?: string;
  readonly metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
};

type Entry = { readonly instance: string; readonly tls: boolean; readonly objects: ReadonlyMap<string, ObservedIdentity> };

/**
 * The last observation's identities per key. Each observe replaces its key's entry whole, so the
 * executor of a step always sees that step's observation (a key's steps never overlap: the lease).
 * Only identities are kept, so the memory is a few strings per object of each cluster seen.
 */
export class ObservedIndex {
  private readonly entries = new Map<ClusterKey, Entry>();

  /** Records what a step observed for `key`. */
  remember(key: ClusterKey, instance: string, cluster: TidbCluster | undefined, owned: OwnedObjects): void {
    const objects = new Map<string, ObservedIdentity>();
    const add = (kind: string, object: Identified): void => {
      const { name, namespace, uid, resourceVersion } = object.metadata ?? {};
      if (name === undefined || uid === undefined) return;
      objects.set(refId(kind, namespace, name), { uid, resourceVersion: resourceVersion ?? '', apiVersion: object.apiVersion ?? '' });
    };
    if (cluster) add('TidbCluster', cluster);
    for (const [kind, items] of Object.entries(owned)) for (const item of items) add(kind, item);
    this.entries.set(key, { instance, tls: cluster !== undefined && isTlsCluster(cluster), objects });
  }

  /** Forgets a key (its cluster is gone). */
  forget(key: ClusterKey): void {
    this.entries.delete(key);
  }

  /** The observed identity of `ref`, if the last observation of `key` saw it. */
  identity(key: ClusterKey, ref: ObjectRef): ObservedIdentity | undefined {
    return this.entries.get(key)?.objects.get(refId(ref.kind, ref.namespace, ref.name));
  }

  /** Whether the last observation of `key` saw cluster TLS on (its PD is then reached over https). */
  tls(key: ClusterKey): boolean {
    return this.entries.get(key)?.tls ?? false;
  }

  /** The instance label value observed for `key`, if it was observed. */
  instance(key: ClusterKey): string | undefined {
    return this.entries.get(key)?.instance;
  }
}

function refId(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}
