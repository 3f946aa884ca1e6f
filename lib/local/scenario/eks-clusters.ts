/**
 * `sim.eksClusters`: the EKS clusters the simulated deployment manages (docs/adr/0027), each its own
 * API server and world with the same functions, and which of the file's `clusters:` live in which.
 * The first EKS cluster holds the first TidbCluster (the one the timeline's verbs act on) and every
 * TidbCluster no entry lists; `eks-api-down` faults must name one of them.
 */
import type { FieldPath } from './reader.js';
import { expectMapping, FieldError, readString, rejectUnknownFields, required } from './reader.js';
import type { EksClusterSetting, Fault, TidbClusterManifest, TimelineEntry } from './types.js';

// EKS cluster names as keys allow them (lib/model/key.ts).
const EKS_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** The most simulated EKS clusters a file may ask for (each is a whole world). */
export const MAX_SIM_EKS_CLUSTERS = 4;

/** Reads `[{name, tidbClusters?}, …]`: 1–4 entries, names valid and unique. */
export function readEksClusters(value: unknown, path: FieldPath): EksClusterSetting[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SIM_EKS_CLUSTERS) {
    throw new FieldError(path, `expected a list of 1-${MAX_SIM_EKS_CLUSTERS} EKS clusters {name, tidbClusters}`);
  }
  const out = value.map((item, i) => {
    const at: FieldPath = [...path, i];
    const map = expectMapping(item, at, 'a mapping {name, tidbClusters}');
    rejectUnknownFields(map, at, ['name', 'tidbClusters']);
    const name = readString(required(map, 'name', at), [...at, 'name']);
    if (!EKS_NAME.test(name)) throw new FieldError([...at, 'name'], `${JSON.stringify(name)} is not an EKS cluster name (1-100 letters, digits, '.', '_', '-')`);
    const listed = map['tidbClusters'] ?? [];
    if (!Array.isArray(listed)) throw new FieldError([...at, 'tidbClusters'], 'expected a list of TidbClusters of `clusters:` (namespace/name or name)');
    const tidbClusters = listed.map((t, j) => readString(t, [...at, 'tidbClusters', j]));
    return { name, tidbClusters };
  });
  const names = out.map((c) => c.name);
  const twice = names.findIndex((n, i) => names.indexOf(n) !== i);
  if (twice >= 0) throw new FieldError([...path, twice, 'name'], `${JSON.stringify(names[twice])} is listed twice`);
  return out;
}

/**
 * Checks the placement against the file's TidbClusters and faults: every listed TidbCluster exists
 * and is listed once, the first TidbCluster stays in the first EKS cluster, every `eks-api-down`
 * names a listed EKS cluster. Throws a `FieldError` naming the field.
 */
export function checkEksPlacement(eks: readonly EksClusterSetting[] | undefined, clusters: readonly TidbClusterManifest[], timeline: readonly TimelineEntry[]): void {
  const names = (eks ?? []).map((c) => c.name);
  timeline.forEach((entry, i) => {
    const f: Fault | undefined = entry.verb === 'fault' ? entry.fault : undefined;
    if (f?.kind === 'eks-api-down' && !names.includes(f.eks)) {
      throw new FieldError(['timeline', i, 'fault', 'eks'], `${JSON.stringify(f.eks)} is not an EKS cluster of sim.eksClusters${names.length > 0 ? ` (${names.join(', ')})` : ' (none is given)'}`);
    }
  });
  const seen = new Set<string>();
  (eks ?? []).forEach((c, i) => {
    c.tidbClusters.forEach((ref, j) => {
      const at: FieldPath = ['sim', 'eksClusters', i, 'tidbClusters', j];
      const found = clusters.find((tc) => ref === tc.metadata.name || ref === `${tc.metadata.namespace}/${tc.metadata.name}`);
      if (found === undefined) throw new FieldError(at, `${JSON.stringify(ref)} is not a TidbCluster of clusters:`);
      const id = `${found.metadata.namespace}/${found.metadata.name}`;
      if (seen.has(id)) throw new FieldError(at, `${id} is placed twice`);
      seen.add(id);
      if (i > 0 && found === clusters[0]) throw new FieldError(at, `the first TidbCluster (the one the timeline's verbs act on) must be in the first EKS cluster`);
    });
  });
}

/** The EKS cluster TidbCluster `namespace/name` is in (the first when no entry lists it); undefined without `sim.eksClusters`. */
export function eksClusterOf(eks: readonly EksClusterSetting[] | undefined, namespace: string, name: string): string | undefined {
  if (eks === undefined) return undefined;
  const placed = eks.find((c) => c.tidbClusters.some((ref) => ref === name || ref === `${namespace}/${name}`));
  return (placed ?? eks[0])?.name;
}
