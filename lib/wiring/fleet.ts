/**
 * The runtimes of a deployment that manages several EKS clusters (docs/adr/0027): one `Runtime` per
 * registered cluster, each with its own Kubernetes and component clients (cached for the process)
 * over one shared set of AWS clients. A key is handled by the runtime of the EKS cluster it names
 * (the first part of every cluster key); a key naming a cluster that is not registered is refused
 * with an error listing the registered ones. A registry of one is today's single-cluster deployment.
 */

import { quoteForEcho } from '../model/echo.js';
import { resolvedLambdaRuntimes, type Runtime } from './ports.js';

/** The registered EKS clusters' runtimes, in registry order (never empty, names unique). */
export type Fleet = {
  readonly runtimes: readonly Runtime[];
};

/**
 * A fleet of `runtimes`. Throws a `TypeError` when there are none or two name the same EKS cluster:
 * the registry's parser refuses both, so either is a wiring mistake.
 */
export function fleetOf(runtimes: readonly Runtime[]): Fleet {
  if (runtimes.length === 0) throw new TypeError('a fleet has at least one EKS cluster');
  const names = runtimes.map((r) => r.k8sCluster);
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated !== undefined) throw new TypeError(`EKS cluster ${JSON.stringify(repeated)} has two runtimes`);
  return { runtimes };
}

/** The runtime of the EKS cluster `k8sCluster`, or undefined when it is not registered. */
export function runtimeFor(fleet: Fleet, k8sCluster: string): Runtime | undefined {
  return fleet.runtimes.find((r) => r.k8sCluster === k8sCluster);
}

/** The registered EKS cluster names, in registry order. */
export function registeredClusters(fleet: Fleet): readonly string[] {
  return fleet.runtimes.map((r) => r.k8sCluster);
}

/** Why a key naming `k8sCluster` cannot be handled here: it is not one of the registered EKS clusters. */
export function unregisteredClusterProblem(fleet: Fleet, k8sCluster: string): string {
  return `key.k8sCluster ${quoteForEcho(k8sCluster)} is not an EKS cluster this deployment manages (registered: ${registeredClusters(fleet).join(', ')})`;
}

/** The fleet's one runtime when it has exactly one (today's deployment), else undefined. */
export function onlyRuntime(fleet: Fleet): Runtime | undefined {
  return fleet.runtimes.length === 1 ? fleet.runtimes[0] : undefined;
}

/**
 * The fleet a handler's options build: theirs, a fleet of their one runtime, or the environment's
 * (asynchronous: registry entries without endpoint and CA are read from EKS DescribeCluster).
 */
export function fleetBuilder(options: { readonly runtime?: () => Runtime; readonly fleet?: () => Fleet }): () => Fleet | Promise<Fleet> {
  const { fleet, runtime } = options;
  if (fleet !== undefined) return fleet;
  if (runtime !== undefined) return () => fleetOf([runtime()]);
  return async () => fleetOf(await resolvedLambdaRuntimes());
}
