/**
 * `eks:` on a timeline entry and on an `objects:` item: the EKS cluster of `sim.eksClusters` it acts
 * in (docs/SCENARIOS.md, "Several EKS clusters"). Absent, the first. An entry acting on "the"
 * TidbCluster (`patch`, `annotate`, `delete`, `world`, `admin`, `waitFor`, `pd-api-down`, …) then acts
 * on the first TidbCluster of `clusters:` placed in that EKS cluster; an object, pod or node it names
 * is looked up in that cluster's world. Every problem is a `FieldError` naming the field.
 */
import type { FieldPath } from './reader.js';
import { describeValue, FieldError, isMapping, readString } from './reader.js';
import { OBJECT_KINDS, readManifest, type ScenarioObject } from './objects.js';
import { eksClusterOf } from './eks-clusters.js';
import type { EksClusterSetting, FaultKind, TidbClusterManifest, TimelineEntry, Verb } from './types.js';

/** The verbs that act within one EKS cluster (the others — advance, mark, expect — take no `eks:`). */
export const EKS_VERBS: readonly Verb[] = ['waitFor', 'patch', 'annotate', 'fault', 'heal', 'world', 'admin', 'delete', 'apply', 'deleteObject'];

/** The faults of the deployment or of AWS rather than of one EKS cluster's world: they take no `eks:`. */
const DEPLOYMENT_FAULTS: readonly FaultKind[] = ['step-crash', 'duplicate-delivery', 's3-down', 'eks-api-down'];

// The entries that act on the TidbCluster of their EKS cluster, which must then hold one.
const CLUSTER_VERBS: readonly Verb[] = ['patch', 'annotate', 'delete', 'world', 'admin'];
const CLUSTER_FAULTS: readonly FaultKind[] = ['pd-api-down', 'pd-schedulers-lost'];

// An entry without its position (as timeline.ts reads it).
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Body = DistributiveOmit<TimelineEntry, 'index' | 'line'>;

/** `body` acting in EKS cluster `eks`; throws at `path` when its verb or fault acts on no one EKS cluster. */
export function withEntryEks<T extends Body>(body: T, eks: string, path: FieldPath): T {
  if (!EKS_VERBS.includes(body.verb)) throw new FieldError(path, `${body.verb} acts in no one EKS cluster; eks is allowed with ${EKS_VERBS.join(', ')}`);
  const b: Body = body;
  if (b.verb === 'fault' && DEPLOYMENT_FAULTS.includes(b.fault.kind)) {
    throw new FieldError(path, `the ${b.fault.kind} fault is not of one EKS cluster's world; eks is not allowed with ${DEPLOYMENT_FAULTS.join(', ')}`);
  }
  return { ...body, eks };
}

/** One `objects:` item and the EKS cluster its `eks:` names (absent: the first). */
export type PlacedObject = { readonly object: ScenarioObject; readonly eks?: string };

/**
 * Reads `objects:` (absent or empty: none): each item a manifest, with an optional `eks:` beside
 * its `kind` (taken off: it is not the object's) whose namespace then defaults to `namespaceOf(eks)`.
 * Names must be unique per EKS cluster, kind and namespace.
 */
export function readPlacedObjects(raw: unknown, clusterNamespace: string, namespaceOf: (eks: string) => string): PlacedObject[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new FieldError(['objects'], `expected a list of manifests (${OBJECT_KINDS.join(', ')}), got ${describeValue(raw)}`);
  const seen = new Set<string>();
  return raw.map((item: unknown, i) => {
    const { eks: eksValue, ...manifest } = isMapping(item) ? item : { eks: undefined };
    const eks = eksValue === undefined ? undefined : readString(eksValue, ['objects', i, 'eks']);
    const object = readManifest(isMapping(item) ? manifest : item, ['objects', i], eks === undefined ? clusterNamespace : namespaceOf(eks));
    const id = `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`.replace('//', '/');
    if (seen.has(`${eks ?? ''} ${id}`)) throw new FieldError(['objects', i, 'metadata', 'name'], `${id} is listed twice${eks === undefined ? '' : ` in EKS cluster ${eks}`}`);
    seen.add(`${eks ?? ''} ${id}`);
    return eks === undefined ? { object } : { object, eks };
  });
}

/** The first TidbCluster of `clusters` placed in EKS cluster `eks` (the first cluster for the first EKS cluster), if any. */
export function clusterOfEks(settings: readonly EksClusterSetting[] | undefined, clusters: readonly TidbClusterManifest[], eks: string): TidbClusterManifest | undefined {
  return clusters.find((c) => eksClusterOf(settings, c.metadata.namespace, c.metadata.name) === eks);
}

/**
 * Checks every `eks:` of the timeline and `objects:` (`objectEks[i]` is item i's) against
 * `sim.eksClusters`: the name is listed; an entry acting on the TidbCluster names an EKS cluster
 * holding one; a TidbCluster or pod it names is in that EKS cluster.
 */
export function checkEntryPlacement(settings: readonly EksClusterSetting[] | undefined, clusters: readonly TidbClusterManifest[], timeline: readonly TimelineEntry[], objectEks: readonly (string | undefined)[]): void {
  const names = (settings ?? []).map((c) => c.name);
  const known = (eks: string, at: FieldPath): void => {
    if (!names.includes(eks)) throw new FieldError(at, `${JSON.stringify(eks)} is not an EKS cluster of sim.eksClusters${names.length > 0 ? ` (${names.join(', ')})` : ' (none is given)'}`);
  };
  objectEks.forEach((eks, i) => eks !== undefined && known(eks, ['objects', i, 'eks']));
  timeline.forEach((entry, i) => {
    if (entry.eks === undefined) return;
    const at: FieldPath = ['timeline', i, 'eks'];
    known(entry.eks, at);
    const cluster = clusterOfEks(settings, clusters, entry.eks);
    if (cluster === undefined && actsOnCluster(entry)) throw new FieldError(at, `EKS cluster ${entry.eks} holds no TidbCluster for ${entry.verb} to act on (list one under its sim.eksClusters entry's tidbClusters)`);
    for (const owner of namedClusters(entry, clusters, cluster)) {
      const placed = eksClusterOf(settings, owner.metadata.namespace, owner.metadata.name);
      if (placed !== entry.eks) throw new FieldError(at, `TidbCluster ${owner.metadata.namespace}/${owner.metadata.name}, which the entry names, is in EKS cluster ${placed ?? ''}, not ${entry.eks}`);
    }
  });
}

function actsOnCluster(entry: TimelineEntry): boolean {
  if (CLUSTER_VERBS.includes(entry.verb)) return true;
  if (entry.verb === 'fault') return CLUSTER_FAULTS.includes(entry.fault.kind);
  return entry.verb === 'waitFor' && !(entry.until.kind === 'jsonpath' && entry.until.object !== undefined);
}

/** The TidbClusters an entry names itself: a `waitFor` object that is one, and the owner of a pod it names. */
function namedClusters(entry: TimelineEntry, clusters: readonly TidbClusterManifest[], own: TidbClusterManifest | undefined): TidbClusterManifest[] {
  if (entry.verb === 'waitFor' && entry.until.kind === 'jsonpath' && entry.until.object?.kind === 'TidbCluster') {
    const ref = entry.until.object;
    const namespace = ref.namespace ?? own?.metadata.namespace;
    return clusters.filter((c) => c.metadata.name === ref.name && c.metadata.namespace === namespace);
  }
  const pod = entry.verb === 'fault' && 'pod' in entry.fault ? entry.fault.pod : entry.verb === 'heal' && entry.heal.kind === 'pod' ? entry.heal.pod : undefined;
  if (pod === undefined) return [];
  // As namespaceOfPod: the cluster with the longest name the pod's name starts with.
  const owner = clusters.filter((c) => pod.startsWith(`${c.metadata.name}-`)).sort((a, b) => b.metadata.name.length - a.metadata.name.length)[0];
  return owner === undefined ? [] : [owner];
}
