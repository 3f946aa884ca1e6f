/**
 * The reconcile queue's message format. Producers (exporter, sweep, timers, the step engine itself)
 * send a JSON body `{"key": "<k8sCluster>/<namespace>/<name>", "reason": "..."}`, the key prefixed
 * with its kind for any controller but the TidbCluster's (`Backup:<k8sCluster>/…`, `object-key.ts`); the reconcile
 * function parses it here before doing anything else. Parsing is pure: no I/O, no clock, no logger.
 */

import { foreignClusterProblem, unwatchedNamespaceProblem } from '../model/key.js';
import { parseObjectKey, type ControllerKind } from '../model/object-key.js';
import { clipForEcho, quoteForEcho } from '../model/echo.js';
import { cutText } from '../platform/text.js';

/** Which TidbCluster a message is about: the Kubernetes cluster, then the object's namespace/name. */
export type ClusterRef = {
  readonly k8sCluster: string;
  readonly namespace: string;
  readonly name: string;
};

/**
 * A well-formed reconcile message. `key` is the canonical `<k8sCluster>/<namespace>/<name>` string
 * exactly as received, `ref` its three parts, `reason` the producer's free-text trigger, if given,
 * and `dueAtMs` the time a timer's wake-up was armed for, if it says.
 */
export type ReconcileMessage = {
  readonly key: string;
  /** The controller the key is for: a key without a kind prefix is a TidbCluster's (`object-key.ts`). */
  readonly kind: ControllerKind;
  readonly ref: ClusterRef;
  readonly reason?: string;
  readonly dueAtMs?: number;
  /**
   * The producer saw something that may have started a TiDB Operator (the exporter's controller-manager
   * Deployment watch, the sweep while events may have been missed): the step re-checks its verdict
   * whatever the persisted one says (docs/adr/0024).
   */
  readonly checkTidbOperator?: true;
  /** The step was deferred by its EKS cluster's API budget and holds a reservation from this time (docs/adr/0028). */
  readonly budgetAtMs?: number;
};

/**
 * The most of a reason a message keeps, in UTF-8 bytes. A reason is free text for logs and history;
 * a longer one (SQS bodies reach 1 MiB) is cut, so one verbose producer cannot make every log line and
 * history record of the key huge.
 */
export const MAX_REASON_BYTES = 1024;

/** Why a body was rejected: `field` names the offending part (`body`, `key`, `key.namespace`, …). */
export type MessageError = {
  readonly field: string;
  readonly message: string;
};

/**
 * What a consumer knows about itself: `k8sCluster` is the one Kubernetes cluster this deployment
 * manages. When given, a key naming any other cluster is malformed — stepping it would read the local
 * cluster's objects under a second lease and state item of a name that is not theirs.
 */
export type ParseMessageOptions = {
  readonly k8sCluster?: string;
  /** The namespaces a namespace-scoped deployment watches (`WATCH_NAMESPACES`); a key outside them is refused. */
  readonly watchNamespaces?: readonly string[];
};

/** The result of parsing one body: the message, or the first problem found. */
export type ParseMessageResult =
  | { readonly ok: true; readonly message: ReconcileMessage }
  | { readonly ok: false; readonly error: MessageError };

// Kubernetes' own rules, so every object that can exist in a cluster has a valid key:
// a namespace is a DNS-1123 label, a custom resource name a DNS-1123 subdomain.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// Kubernetes cluster names as EKS allows them (1–100 characters), plus dots for local names.
const K8S_CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Parses one SQS message body. Guarantees: never throws, whatever `body` is (a record built by hand
 * may carry a number or null); a returned message has a key of exactly three non-empty parts, each
 * valid under the rules Kubernetes (and EKS) apply to that part, naming `options.k8sCluster` when
 * that is given, a `reason` that is a string (cut to `MAX_REASON_BYTES`, saying so) when present,
 * a `dueAtMs` and a `budgetAtMs` that are finite numbers when present, and `checkTidbOperator` only when it is `true`.
 * Unknown fields are ignored, so producers can add fields without breaking older consumers. On
 * failure the error names the first bad field.
 */
export function parseReconcileMessage(body: unknown, options: ParseMessageOptions = {}): ParseMessageResult {
  if (typeof body !== 'string') return fail('body', `body must be a string, got ${describe(body)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (cause) {
    return fail('body', `body is not valid JSON (${clipForEcho(cause instanceof Error ? cause.message : String(cause))})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('body', `body must be a JSON object, got ${describe(parsed)}`);
  }
  const fields = parsed as Record<string, unknown>;

  const key = fields['key'];
  if (key === undefined) return fail('key', 'key is missing');
  if (typeof key !== 'string') return fail('key', `key must be a string, got ${describe(key)}`);
  const colon = key.indexOf(':');
  const kinded = parseObjectKey(key);
  if (!kinded.ok && kinded.field === 'kind') return fail('key.kind', kinded.message);
  const ref = parseKey(colon < 0 ? key : key.slice(colon + 1));
  if (!ref.ok) return ref;
  const kind = kinded.ok ? kinded.kind : 'TidbCluster';
  const foreign = foreignClusterProblem(ref.ref, options.k8sCluster);
  if (foreign !== undefined) return fail('key.k8sCluster', foreign);
  const unwatched = unwatchedNamespaceProblem(ref.ref, options.watchNamespaces);
  if (unwatched !== undefined) return fail('key.namespace', unwatched);

  const due = fields['dueAtMs'];
  if (due !== undefined && (typeof due !== 'number' || !Number.isFinite(due))) return fail('dueAtMs', `dueAtMs must be a finite number, got ${describe(due)}`);
  const check = fields['checkTidbOperator'];
  if (check !== undefined && typeof check !== 'boolean') return fail('checkTidbOperator', `checkTidbOperator must be a boolean, got ${describe(check)}`);
  const budgetAt = fields['budgetAtMs'];
  if (budgetAt !== undefined && (typeof budgetAt !== 'number' || !Number.isFinite(budgetAt))) return fail('budgetAtMs', `budgetAtMs must be a finite number, got ${describe(budgetAt)}`);
  const extra = { ...(due === undefined ? {} : { dueAtMs: due }), ...(check === true ? { checkTidbOperator: true as const } : {}), ...(budgetAt === undefined ? {} : { budgetAtMs: budgetAt }) };
  const reason = fields['reason'];
  if (reason === undefined) return { ok: true, message: { key, kind, ref: ref.ref, ...extra } };
  if (typeof reason !== 'string') return fail('reason', `reason must be a string, got ${describe(reason)}`);
  return { ok: true, message: { key, kind, ref: ref.ref, reason: cutText(reason, MAX_REASON_BYTES), ...extra } };
}

type ParseKeyResult = { readonly ok: true; readonly ref: ClusterRef } | { readonly ok: false; readonly error: MessageError };

function parseKey(key: string): ParseKeyResult {
  const parts = key.split('/');
  const [k8sCluster, namespace, name] = parts;
  if (parts.length !== 3 || k8sCluster === undefined || namespace === undefined || name === undefined) {
    return fail('key', `key must be "<k8sCluster>/<namespace>/<name>", got ${quoteForEcho(key)}`);
  }
  if (!K8S_CLUSTER_NAME.test(k8sCluster)) {
    return fail('key.k8sCluster', `key.k8sCluster must be 1-100 letters, digits, '.', '_' or '-' starting with a letter or digit, got ${quoteForEcho(k8sCluster)}`);
  }
  if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) {
    return fail('key.namespace', `key.namespace must be a DNS-1123 label (at most 63 characters), got ${quoteForEcho(namespace)}`);
  }
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    return fail('key.name', `key.name must be a DNS-1123 subdomain (at most 253 characters), got ${quoteForEcho(name)}`);
  }
  return { ok: true, ref: { k8sCluster, namespace, name } };
}

function fail(field: string, message: string): { readonly ok: false; readonly error: MessageError } {
  return { ok: false, error: { field, message } };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}
