/**
 * Cluster keys: `<k8sCluster>/<namespace>/<name>`, the one identity every part of the reconciler
 * (queue messages, DynamoDB items, timers, logs) uses for a TidbCluster. Parsing never throws, so a
 * caller decides what a bad key means; formatting refuses to build a key that would not parse.
 */

import { quoteForEcho } from './echo.js';

/** A cluster key in its canonical text form, e.g. `eks-prod/tidb/basic`. */
export type ClusterKey = string;

/** The three parts of a cluster key: the Kubernetes cluster, then the TidbCluster's namespace and name. */
export type ClusterRef = {
  readonly k8sCluster: string;
  readonly namespace: string;
  readonly name: string;
};

/** The result of parsing a key: its parts, or the first bad part (`key`, `k8sCluster`, …) with why. */
export type ClusterKeyResult =
  | { readonly ok: true; readonly ref: ClusterRef }
  | { readonly ok: false; readonly field: string; readonly message: string };

// Kubernetes' own rules, so every TidbCluster that can exist has a valid key: a namespace is a
// DNS-1123 label, a custom resource name a DNS-1123 subdomain; cluster names as EKS allows them.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const K8S_CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Splits and validates a key. Guarantees: never throws; on success each part is non-empty and valid
 * for what it names (so it contains neither `/` nor `#`, the separators of queue bodies and table
 * keys); on failure `field` names the first bad part.
 */
export function parseClusterKey(key: string): ClusterKeyResult {
  const parts = key.split('/');
  const [k8sCluster, namespace, name] = parts;
  if (parts.length !== 3 || k8sCluster === undefined || namespace === undefined || name === undefined) {
    return bad('key', `cluster key must be "<k8sCluster>/<namespace>/<name>", got ${quoteForEcho(key)}`);
  }
  const problem = checkRef({ k8sCluster, namespace, name });
  return problem ?? { ok: true, ref: { k8sCluster, namespace, name } };
}

/**
 * Why a key of `ref` is not for a deployment that manages the Kubernetes cluster `managed` (the
 * message for field `key.k8sCluster`), or undefined when it is. Such a key must never be stepped: it
 * would read this cluster's objects under a lease and state item of a name that is not theirs.
 */
export function foreignClusterProblem(ref: Pick<ClusterRef, 'k8sCluster'>, managed: string | undefined): string | undefined {
  if (managed === undefined || ref.k8sCluster === managed) return undefined;
  return `key.k8sCluster ${quoteForEcho(ref.k8sCluster)} is not the Kubernetes cluster this deployment manages (${JSON.stringify(managed)})`;
}

/**
 * Why `ref` is outside the namespaces a namespace-scoped deployment watches (`WATCH_NAMESPACES`), or
 * undefined when it is inside them or the deployment watches every namespace (`watched` undefined).
 */
export function unwatchedNamespaceProblem(ref: Pick<ClusterRef, 'namespace'>, watched: readonly string[] | undefined): string | undefined {
  if (watched === undefined || watched.includes(ref.namespace)) return undefined;
  return `key.namespace ${quoteForEcho(ref.namespace)} is not a namespace this deployment watches (WATCH_NAMESPACES: ${watched.join(',')})`;
}

/**
 * Builds the canonical key of `ref`. Throws a `TypeError` naming the bad part when the result would
 * not parse: a key that cannot be parsed back must never reach a queue or a table.
 */
export function formatClusterKey(ref: ClusterRef): ClusterKey {
  const problem = checkRef(ref);
  if (problem && !problem.ok) throw new TypeError(problem.message);
  return `${ref.k8sCluster}/${ref.namespace}/${ref.name}`;
}

function checkRef(ref: ClusterRef): ClusterKeyResult | undefined {
  if (!K8S_CLUSTER_NAME.test(ref.k8sCluster)) {
    const got = quoteForEcho(ref.k8sCluster);
    return bad('k8sCluster', `k8sCluster must be 1-100 letters, digits, '.', '_' or '-', got ${got}`);
  }
  if (ref.namespace.length > 63 || !DNS1123_LABEL.test(ref.namespace)) {
    return bad('namespace', `namespace must be a DNS-1123 label, got ${quoteForEcho(ref.namespace)}`);
  }
  if (ref.name.length > 253 || !DNS1123_SUBDOMAIN.test(ref.name)) {
    return bad('name', `name must be a DNS-1123 subdomain, got ${quoteForEcho(ref.name)}`);
  }
  return undefined;
}

function bad(field: string, message: string): ClusterKeyResult {
  return { ok: false, field, message };
}
