/**
 * A twin of a live cluster for `simulate --from-kubeconfig FILE ns/name`: the TidbCluster (its spec,
 * labels and annotations) and the objects a step observes it owning — StatefulSets, Services, ConfigMaps,
 * PersistentVolumeClaims, the discovery Deployment with its ServiceAccount, Role and RoleBinding —
 * plus the PersistentVolumes bound to its claims. Pods, Events, ReplicaSets and controller revisions
 * are not carried: the simulated controllers make them again from what is carried, and the simulated
 * PD, TiKV and friends rebuild their process state (members, stores, leaders) as those pods start.
 * The TidbCluster's status is not carried either: it describes that process state (PD discovery
 * would tell the new pods to join members that do not exist), and the reconciler rebuilds it.
 *
 * Identity is the simulated API server's: uids, resourceVersions, creation times and cluster IPs are
 * left to it, and ownerReferences and volume claimRefs are pointed at the new uids.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFromFile } from '../kube/auth.js';
import { formatClusterKey } from '../model/key.js';
import { allObjects } from '../model/snapshot.js';
import { RealClock } from '../platform/clock.js';
import { parseConfig } from '../platform/config.js';
import type { KubeObject } from '../sim/object.js';
import type { ObjectStore } from '../sim/store.js';
import { ApiServerClients } from '../wiring/clients.js';
import { observeCluster } from '../wiring/next-step.js';

/** What a twin starts from: the TidbCluster manifest and its objects, in creation order. */
export type Twin = { readonly cluster: Record<string, unknown>; readonly objects: readonly KubeObject[] };

/** The owned kinds a twin carries, in the order they are created (owners before what they own). */
export const TWIN_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ConfigMap', 'Service', 'Deployment', 'PersistentVolumeClaim', 'StatefulSet'] as const;

/** Kinds whose status is kept: the binding of claims and volumes is a fact, not a controller's view. */
const KEEP_STATUS = new Set(['PersistentVolumeClaim', 'PersistentVolume']);

/**
 * Reads the twin of `namespace/name` from the cluster of `kubeconfigPath` (reads only). Throws a
 * message naming the cluster when it cannot be read or does not exist.
 */
export async function readTwin(kubeconfigPath: string, ref: { namespace: string; name: string }, timeoutMs = 30_000): Promise<Twin> {
  const kubeConfig: KubeConfig = kubeConfigFromFile(kubeconfigPath);
  const clock = new RealClock();
  const deadlineAtMs = clock.nowMs() + timeoutMs;
  const clusterRef = { k8sCluster: 'kubeconfig', ...ref };
  const clients = ApiServerClients.fromKubeConfig(kubeConfig, clock).withDeadline(deadlineAtMs);
  const observed = await observeCluster({ clients, clock, config: parseConfig({}).step, key: formatClusterKey(clusterRef), ref: clusterRef, deadlineAtMs });
  if (!observed.ok) throw new Error(`cannot read TidbCluster ${ref.namespace}/${ref.name}: ${observed.error}`);
  const { snapshot } = observed;
  if (!snapshot.cluster) throw new Error(`TidbCluster ${ref.namespace}/${ref.name} does not exist in the cluster of ${kubeconfigPath}`);
  // The cluster's own objects and each component's, by kind.
  const owned = Object.fromEntries(TWIN_KINDS.map((kind) => [kind, allObjects(snapshot, kind) as unknown as readonly KubeObject[]])) as Record<string, readonly KubeObject[]>;
  const pending = pendingPdChange(snapshot.cluster as unknown as KubeObject, owned['StatefulSet'] ?? []);
  if (pending) throw new Error(pending);
  const objects = [...TWIN_KINDS.flatMap((kind) => (owned[kind] ?? []).map((o) => ({ ...o, kind }))), ...(snapshot.volumes ?? []).map((v) => ({ ...(v as unknown as KubeObject), kind: 'PersistentVolume' }))];
  return { cluster: carried(snapshot.cluster as unknown as KubeObject) as unknown as Record<string, unknown>, objects: objects.map(carried) };
}

/**
 * Creates the twin in `store`: the TidbCluster, then every object in order, with
 * ownerReferences and claimRefs rewritten to the uids the store gave their targets (a reference to
 * an object not carried is dropped). Returns the stored TidbCluster.
 */
export function seedTwin(store: ObjectStore, cluster: Record<string, unknown>, objects: readonly KubeObject[]): KubeObject {
  const uids = new Map<string, string>();
  const create = (kind: string, object: KubeObject): KubeObject => {
    const oldUid = object.metadata.annotations?.[ORIGINAL_UID];
    const input = withRemappedRefs(withoutOriginalUid(object), uids);
    const created = store.create(kind, input, { keepStatus: KEEP_STATUS.has(kind) });
    if (oldUid !== undefined && created.metadata.uid !== undefined) uids.set(oldUid, created.metadata.uid);
    return created;
  };
  const tc = create('TidbCluster', cluster as unknown as KubeObject);
  for (const object of objects) create(object.kind ?? '', object);
  return tc;
}

/**
 * The twin's PD starts cold: as TiDB Operator's discovery, it bootstraps only once as many PD pods
 * have asked as `spec.pd.replicas` says. A live PD StatefulSet of another size (a change the
 * reconciler has not made yet, or a failover member) would leave the twin's PD waiting forever, so
 * such a cluster is refused, saying why.
 */
function pendingPdChange(tc: KubeObject, statefulSets: readonly KubeObject[]): string | undefined {
  const want = tc.spec?.pd?.replicas;
  const sts = statefulSets.find((s) => s.metadata.name === `${tc.metadata.name}-pd`);
  const have = sts?.spec?.replicas;
  if (typeof want !== 'number' || typeof have !== 'number' || want === have) return undefined;
  return `the PD StatefulSet ${sts?.metadata.name} has ${have} replicas but spec.pd.replicas is ${want}: a twin starts PD from scratch, which bootstraps only at spec.pd.replicas pods; take the twin while the cluster is at rest and make the change in the timeline (patch:)`;
}

// The live uid rides along in an annotation until the object is created, so references can be remapped.
const ORIGINAL_UID = 'twin.tidb-reconciler/original-uid';

/** What a twin carries of one live object: name, labels, annotations, ownerReferences, spec and (some) status. */
function carried(object: KubeObject): KubeObject {
  const m = object.metadata;
  const annotations = { ...(m.annotations ?? {}), ...(m.uid ? { [ORIGINAL_UID]: m.uid } : {}) };
  const out: KubeObject = {
    ...(object.apiVersion ? { apiVersion: object.apiVersion } : {}),
    kind: object.kind,
    metadata: {
      name: m.name,
      ...(m.namespace ? { namespace: m.namespace } : {}),
      ...(m.labels ? { labels: { ...m.labels } } : {}),
      annotations,
      ...(m.ownerReferences ? { ownerReferences: m.ownerReferences.map((r) => ({ ...r })) } : {}),
    },
  };
  for (const [key, value] of Object.entries(object)) if (!['apiVersion', 'kind', 'metadata', 'status'].includes(key)) out[key] = jsonCopy(value);
  if (KEEP_STATUS.has(object.kind ?? '') && object.status !== undefined) out.status = jsonCopy(object.status);
  // Cluster IPs are the simulated server's to allocate; headless Services stay headless.
  if (object.kind === 'Service' && out.spec && out.spec.clusterIP !== 'None') {
    delete out.spec.clusterIP;
    delete out.spec.clusterIPs;
  }
  return out;
}

/** A plain-JSON copy: a twin carries data only (and objects of this realm, whatever made them). */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function withoutOriginalUid(object: KubeObject): KubeObject {
  const annotations = { ...(object.metadata.annotations ?? {}) };
  delete annotations[ORIGINAL_UID];
  return { ...object, metadata: { ...object.metadata, annotations } };
}

function withRemappedRefs(object: KubeObject, uids: ReadonlyMap<string, string>): KubeObject {
  const owners = (object.metadata.ownerReferences ?? []).flatMap((r) => {
    const uid = uids.get(r.uid);
    return uid === undefined ? [] : [{ ...r, uid }];
  });
  const out: KubeObject = { ...object, metadata: { ...object.metadata, ownerReferences: owners } };
  if (owners.length === 0) delete out.metadata.ownerReferences;
  const claimRef = object.spec?.claimRef as { uid?: string; resourceVersion?: string } | undefined;
  if (claimRef) {
    const { resourceVersion: _rv, uid, ...rest } = claimRef;
    out.spec = { ...object.spec, claimRef: { ...rest, ...(uid !== undefined && uids.has(uid) ? { uid: uids.get(uid) } : {}) } };
  }
  return out;
}
