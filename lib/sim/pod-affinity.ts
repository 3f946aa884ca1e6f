/**
 * Required inter-pod anti-affinity as the scheduler's InterPodAffinity filter applies it: a pod's
 * `podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution` terms keep it off any node that
 * shares the term's topology (the node label `topologyKey`) with a running pod the term selects, and
 * — symmetrically — a running pod's terms keep the pods they select out of its topology. A term
 * selects pods of its `namespaces` (default: the pod's own namespace) whose labels match its
 * `labelSelector`; a node without the topology label is outside every domain of that key.
 */
import type { KubeObject } from './object.js';
import { matchLabelSelector } from './selectors.js';

type AffinityTerm = { labelSelector?: unknown; topologyKey?: string; namespaces?: string[] };

/** The scheduled, unfinished pods and the nodes they run on: what the filter compares against. */
export type PlacedPod = { readonly pod: KubeObject; readonly node: KubeObject };

function requiredTerms(pod: KubeObject): AffinityTerm[] {
  return (pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as AffinityTerm[];
}

/** Whether `term` of a pod in `ownerNamespace` selects `other`. */
function selects(term: AffinityTerm, ownerNamespace: string | undefined, other: KubeObject): boolean {
  const namespaces = term.namespaces && term.namespaces.length > 0 ? term.namespaces : [ownerNamespace ?? ''];
  // A term without a selector selects nothing (as the API: a nil selector matches no objects).
  return namespaces.includes(other.metadata.namespace ?? '') && term.labelSelector !== undefined && term.labelSelector !== null && matchLabelSelector(term.labelSelector, other.metadata.labels);
}

function sameDomain(key: string | undefined, a: KubeObject, b: KubeObject): boolean {
  if (!key) return false;
  const value = a.metadata.labels?.[key];
  return value !== undefined && value === b.metadata.labels?.[key];
}

/**
 * Why `node` is refused for `pod` by required anti-affinity (the scheduler's reason text), or
 * undefined when it is not.
 */
export function antiAffinityRejection(pod: KubeObject, node: KubeObject, placed: readonly PlacedPod[]): string | undefined {
  const own = requiredTerms(pod);
  const others = placed.filter((p) => p.pod.metadata.uid !== pod.metadata.uid);
  if (own.some((t) => others.some((p) => sameDomain(t.topologyKey, node, p.node) && selects(t, pod.metadata.namespace, p.pod)))) {
    return "node(s) didn't match pod anti-affinity rules";
  }
  const existing = others.some((p) => requiredTerms(p.pod).some((t) => sameDomain(t.topologyKey, node, p.node) && selects(t, p.pod.metadata.namespace, pod)));
  return existing ? "node(s) didn't satisfy existing pods anti-affinity rules" : undefined;
}
