/**
 * The checks TiDB Operator v1 makes of a TidbDashboard or TidbNGMonitoring before it reconciles
 * (release-1.6 `validation.go` `ValidateTiDBDashboard` / `ValidateTiDBNGMonitoring`: the cluster
 * reference, `env`, `additionalContainers`, `storageVolumes`), plus the ones v1 leaves to a later
 * failure (a storage request the claim needs): each problem names its field, as Kubernetes'
 * `field.Error` prints it (`spec.clusters: Invalid value: 0: must have at exactly one item`).
 */

import { quantityProblem } from '../cluster/validate.js';
import type { CompanionComponentSpec, TidbClusterRef } from './types.js';

/** `spec.clusters`: exactly one entry (`exactly` = true, the dashboard's words) or at least one, naming a cluster. */
export function clustersProblems(clusters: readonly TidbClusterRef[] | undefined, exactlyOne: boolean): string[] {
  const list = clusters ?? [];
  if (exactlyOne && list.length !== 1) return [`spec.clusters: Invalid value: ${list.length}: must have at exactly one item`];
  if (!exactlyOne && list.length < 1) return [`spec.clusters: Invalid value: ${list.length}: must have at least one item`];
  const name = list[0]?.name;
  return name === undefined || name === '' ? ['spec.clusters[0].name: Required value: the TidbCluster to serve must be named'] : [];
}

/** `env` entries need a name; `additionalContainers` entries need a name and an image (v1's `validateEnv`, `validateAdditionalContainers`). */
export function componentProblems(spec: CompanionComponentSpec, path: string): string[] {
  const problems: string[] = [];
  (spec.env ?? []).forEach((e, i) => {
    const name = (e as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || name === '') problems.push(`${path}.env[${i}].name: Required value`);
  });
  (spec.additionalContainers ?? []).forEach((c, i) => {
    const container = (c ?? {}) as { name?: unknown; image?: unknown };
    if (typeof container.name !== 'string' || container.name === '') problems.push(`${path}.additionalContainers[${i}].name: Required value`);
  });
  return problems;
}

/** `storageVolumes`: a name and a quantity each (v1's `validateStorageVolumes`). */
export function storageVolumeProblems(volumes: readonly { readonly name?: string; readonly storageSize?: string }[] | undefined, path: string): string[] {
  return (volumes ?? []).flatMap((v, i) => [
    ...(v.name ? [] : [`${path}[${i}].name: Required value: name must not be empty`]),
    ...(quantityProblem(v.storageSize) === undefined ? [] : [`${path}[${i}].storageSize: Unsupported value: ${JSON.stringify(v.storageSize ?? '')}: value of "storageSize" format not supported`]),
  ]);
}

/**
 * `requests.storage`: required and a quantity. v1 builds a claim without a size when it is missing,
 * which the API server then refuses on every pod the StatefulSet tries; here it is refused up front.
 */
export function storageRequestProblems(requests: Readonly<Record<string, unknown>> | undefined, path: string, owner: string): string[] {
  const storage = requests?.['storage'];
  if (storage === undefined) return [`${path}.storage: Required value: ${owner} needs a storage request for its data volume`];
  const problem = quantityProblem(storage);
  return problem === undefined ? [] : [`${path}.storage: Invalid value: ${JSON.stringify(storage)}: ${problem}`];
}
