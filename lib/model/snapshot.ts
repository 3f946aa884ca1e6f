/**
 * The snapshot: everything one step's rules may read, observed at the start of the step. Rules
 * read nothing else — no clock (they get `nowMs`), no environment (they get `config`), no I/O.
 */

import type { INode } from 'kubernetes-models/v1/Node';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { DeadlineSpec, StoreIdSpec } from './action.js';
import type { EbsVolumeModification } from './ebs.js';
import type { ReconcileConfig } from './config.js';
import type { ClusterKey, ClusterRef } from './key.js';
import type { OwnedKind, OwnedObjects, TidbCluster } from './kube.js';
import { LABEL } from './labels.js';
import type { OutcomeKind } from './outcome.js';
import type { PdView } from './pd.js';
import type { TidbReadFailure, TidbView } from './tidb.js';
import type { PumpView, TicdcView } from './ticdc.js';
import type { TiflashView } from './tiflash.js';
import type { TiproxyView } from './tiproxy.js';
import type { OperatorObservation } from './tidb-operator.js';

/**
 * What the reconciler itself persisted for the key (DynamoDB), as of this step's claim: the fence of
 * this step, the failure counter, the armed wake-up, the deadlines, the store ids seen, and the
 * previous step's outcome.
 */
export type PersistedState = {
  readonly fence: number;
  readonly failures: number;
  readonly nextWakeAtMs: number | undefined;
  readonly lastOutcome: OutcomeKind | undefined;
  readonly deadlines: readonly DeadlineSpec[];
  /** The store each pod of a store component was last seen running (absent: none recorded). */
  readonly storeIds?: readonly StoreIdSpec[];
};

/**
 * Why PD could not be read: `noLeader` when a PD member answered that the cluster has no leader (PD's
 * redirector says so with HTTP 503 "no leader" — what losing raft quorum looks like to a client);
 * `clientRefused` when PD's TLS handshake refused the reconciler's client (no certificate signed
 * by the cluster CA: what the API server's proxy presents, docs/adr/0018); `unreachable` for
 * everything else (no endpoints, connection refused, timeouts, other errors).
 */
export type PdReadFailure = 'noLeader' | 'clientRefused' | 'unreachable';

/**
 * One component as a step observed it: the objects it owns (those labelled
 * `app.kubernetes.io/component=<name>`, by kind), and its own API's view when it has one. `view` is
 * undefined when the API was not read (not in the spec, cluster gone) or could not be; in the latter
 * case `error` says why, so a rule can tell "not there" from "down", and `errorKind` what kind of
 * failure it was.
 */
export type ComponentObservation<View, Failure extends string> = {
  readonly objects: OwnedObjects;
  readonly view: View | undefined;
  readonly error?: string;
  readonly errorKind?: Failure;
};

/** One TiKV pod's leader count as its status port's `/metrics` gave it, or why it could not be read. */
export type TikvLeaderRead = { readonly leaderCount: number } | { readonly error: string };

/** The components a step observes, each under its name (see `ComponentObservation`). */
export type ObservedComponents = {
  readonly pd: ComponentObservation<PdView, PdReadFailure>;
  readonly tidb: ComponentObservation<TidbView, TidbReadFailure>;
  readonly pump: ComponentObservation<PumpView, 'unreachable'>;
  readonly ticdc: ComponentObservation<TicdcView, 'unreachable'>;
  /** TiFlash's proxy store status of the pods an upgrade waits on (its stores are in PD's view). */
  readonly tiflash: ComponentObservation<TiflashView, 'unreachable'>;
  /** Each TiProxy pod's `/api/debug/health`. */
  readonly tiproxy: ComponentObservation<TiproxyView, 'unreachable'>;
};

/** The observed components' names. */
export type ObservedComponentName = keyof ObservedComponents;

/** The components observed on their own, in the order they are read. */
export const OBSERVED_COMPONENTS: readonly ObservedComponentName[] = ['pd', 'tiflash', 'tidb', 'pump', 'ticdc', 'tiproxy'];

/**
 * One step's view of the world. `cluster` is undefined when the TidbCluster no longer exists.
 * `owned` holds what the cluster owns that is no component's (discovery's objects, Events, and
 * objects of components not observed on their own); each observed component's objects, API view and
 * read error are under `components[name]`.
 */
export type Snapshot = {
  readonly key: ClusterKey;
  readonly ref: ClusterRef;
  readonly nowMs: number;
  readonly cluster: TidbCluster | undefined;
  readonly owned: OwnedObjects;
  readonly components: ObservedComponents;
  /**
   * The PersistentVolumes bound to the cluster's claims (cluster-scoped, so not in `owned`); absent
   * when none was read (no claim bound yet, or an observer that does not read volumes).
   */
  readonly volumes?: readonly IPersistentVolume[];
  /**
   * The leader count of each TiKV pod being evicted before its restart (annotated
   * `evictLeaderBeginTime`), by pod name, from that pod's `/metrics`; absent when no pod is.
   */
  readonly tikvLeaders?: Readonly<Record<string, TikvLeaderRead>>;
  /**
   * The Nodes the cluster's TiKV pods run on (cluster-scoped), read only when store labels are
   * wanted (PD's `location-labels` or `spec.tikv.storeLabels`), and those of TiDB servers that still
   * need their server labels; absent when none was read.
   */
  readonly nodes?: readonly INode[];
  /**
   * The StorageClasses of the cluster's claims whose size or class the spec changes (read for
   * `allowVolumeExpansion` and their parameters); absent when no claim needs a change.
   */
  readonly storageClasses?: readonly IStorageClass[];
  /**
   * EC2's last modification of each EBS volume the EBS modifier works on (feature gate
   * `VolumeModifying`, a claim moving to another EBS StorageClass), by volume id; a volume EC2 never
   * modified is absent. Absent when nothing was asked of EC2 this step.
   */
  readonly ebsModifications?: Readonly<Record<string, EbsVolumeModification>>;
  /** Why EC2 could not be read this step (the EBS modifier then waits rather than act blind). */
  readonly ebsReadError?: string;
  /**
   * The PiTR Restores into this cluster that are not done (`<namespace>/<name>`), for TiKV's
   * `gc.ratio-threshold = -1` (components/tikv/pitr-gc.ts); absent when the Restores were not read.
   */
  readonly pendingPitrRestores?: readonly string[];
  /** Secrets the reconciler itself needs that do not exist (cluster TLS: `<tc>-cluster-client-secret`). */
  readonly missingSecrets?: readonly string[];
  /**
   * `rest` when this step did not read what only the discovery rule uses (discovery's Deployment,
   * Role, RoleBinding and ServiceAccount — `owned` has none of them then): the TidbCluster is the one
   * a full observation verified and every step since completed, so the spec those objects follow has
   * not changed; the sweep's step reads everything. Absent: everything was read.
   */
  readonly reads?: 'rest';
  /**
   * TiDB Operator's controller managers, when this step read them (its persisted verdict was due for
   * a re-check, see `tidb-operator.ts`); absent otherwise: the verdict in `state.deadlines` holds.
   */
  readonly tidbOperator?: OperatorObservation;
  readonly state: PersistedState;
  readonly config: ReconcileConfig;
};

/**
 * Every observed object of `kind`, the cluster's own and each component's together, in name order
 * (the order one LIST of the kind returns them in).
 */
export function allObjects<K extends OwnedKind>(snapshot: Pick<Snapshot, 'owned' | 'components'>, kind: K): OwnedObjects[K] {
  let memo = merged.get(snapshot);
  if (memo?.owned !== snapshot.owned || memo.components !== snapshot.components) {
    memo = { owned: snapshot.owned, components: snapshot.components, byKind: new Map() };
    merged.set(snapshot, memo);
  }
  const known = memo.byKind.get(kind);
  if (known) return known as OwnedObjects[K];
  const parts = [snapshot.owned, ...Object.values<ComponentObservation<unknown, string>>(snapshot.components).map((c) => c.objects)];
  const all: OwnedObjects[K][number][] = parts.flatMap((part) => [...part[kind]]);
  const sorted = all.sort((a, b) => compareNames(a.metadata?.name, b.metadata?.name)) as unknown as OwnedObjects[K];
  memo.byKind.set(kind, sorted);
  return sorted;
}

/**
 * `allObjects`' answers per snapshot, since every rule asks again: a snapshot and the lists in it
 * are never changed once built (their types are read-only), so an answer holds for as long as the
 * snapshot has the same `owned` and `components`.
 */
const merged = new WeakMap<object, { owned: OwnedObjects; components: object; byKind: Map<OwnedKind, OwnedObjects[OwnedKind]> }>();

function compareNames(a: string | undefined, b: string | undefined): number {
  const [x, y] = [a ?? '', b ?? ''];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Splits `owned` by component: each object labelled `app.kubernetes.io/component=<name>` for one of
 * `names` goes to that component, every other stays in `rest`. Guarantees: nothing is lost or
 * repeated, and each kind keeps its order.
 */
export function splitByComponent<N extends string>(owned: OwnedObjects, names: readonly N[]): { rest: OwnedObjects; byComponent: Record<N, OwnedObjects> } {
  const wanted = new Set<string>(names);
  const parts = new Map<string, Record<string, unknown[]>>([['', {}], ...names.map((n): [string, Record<string, unknown[]>] => [n, {}])]);
  for (const [kind, items] of Object.entries(owned) as [OwnedKind, readonly { metadata?: { labels?: Record<string, string> } }[]][]) {
    for (const part of parts.values()) part[kind] = [];
    for (const item of items) {
      const component = item.metadata?.labels?.[LABEL.component] ?? '';
      parts.get(wanted.has(component) ? component : '')?.[kind]?.push(item);
    }
  }
  const byComponent = Object.fromEntries(names.map((n) => [n, parts.get(n) as unknown as OwnedObjects])) as Record<N, OwnedObjects>;
  return { rest: parts.get('') as unknown as OwnedObjects, byComponent };
}
