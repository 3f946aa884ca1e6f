/**
 * The admin function's input: `{"action": "...", "cluster": {"namespace": "...", "name": "..."}, ...}`.
 * Validation is pure and strict (unknown fields are rejected, so a typo never silently changes what
 * an operator asked for); every rejection names the offending field.
 */

import { clipForEcho, quoteForEcho } from '../model/echo.js';

/** The TiDB components a forced upgrade can target, as in TidbCluster's spec. */
export const ADMIN_COMPONENTS = ['pd', 'tikv', 'tiflash', 'tidb', 'ticdc', 'pump'] as const;

/** One of `ADMIN_COMPONENTS`. */
export type AdminComponent = (typeof ADMIN_COMPONENTS)[number];

/** Every action the admin function accepts. */
export const ADMIN_ACTIONS = ['reconcile', 'force-upgrade', 'pause', 'resume', 'status', 'history'] as const;

/** One of `ADMIN_ACTIONS`. */
export type AdminAction = (typeof ADMIN_ACTIONS)[number];

/**
 * The actions that change something (TidbCluster writes, or a step run on the caller's behalf): they
 * need a verified caller whom Kubernetes RBAC allows to act (docs/adr/0015); the others only read.
 */
export const MUTATING_ADMIN_ACTIONS = ['force-upgrade', 'pause', 'resume', 'reconcile'] as const;

/** One of `MUTATING_ADMIN_ACTIONS`. */
export type MutatingAdminAction = (typeof MUTATING_ADMIN_ACTIONS)[number];

/** Whether `action` changes something (and so needs an authorised caller). */
export function isMutatingAction(action: AdminAction): action is MutatingAdminAction {
  return (MUTATING_ADMIN_ACTIONS as readonly string[]).includes(action);
}

/**
 * The TidbCluster an admin request is about. `eksCluster` names the registered EKS cluster it is in
 * (docs/adr/0027); it may be left out when the deployment manages one EKS cluster.
 */
export type AdminClusterRef = {
  readonly eksCluster?: string;
  readonly namespace: string;
  readonly name: string;
};

/** The most history records one `history` request may ask for. */
export const MAX_HISTORY_LIMIT = 100;

/**
 * A validated admin request. `force-upgrade` carries the component to upgrade; `history` may carry
 * how many records to return (1–`MAX_HISTORY_LIMIT`); every other action needs only the cluster.
 */
export type AdminRequest =
  | { readonly action: 'force-upgrade'; readonly cluster: AdminClusterRef; readonly component: AdminComponent }
  | { readonly action: 'history'; readonly cluster: AdminClusterRef; readonly limit?: number }
  | { readonly action: Exclude<AdminAction, 'force-upgrade' | 'history'>; readonly cluster: AdminClusterRef };

/** Why a request was rejected: `field` is a dotted path such as `cluster.namespace`. */
export type AdminRequestError = {
  readonly field: string;
  readonly message: string;
};

/** The result of validating one request: the request, or the first problem found. */
export type ParseAdminRequestResult =
  | { readonly ok: true; readonly request: AdminRequest }
  | { readonly ok: false; readonly error: AdminRequestError };

// Kubernetes' own rules: a namespace is a DNS-1123 label, a custom resource name a DNS-1123 subdomain.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Validates an admin invocation payload. Guarantees: never throws; an accepted request has a known
 * action, a namespace and name Kubernetes would accept, a known component for `force-upgrade`, and
 * no fields beyond those its action defines. On failure the error names the first bad field.
 */
export function parseAdminRequest(input: unknown): ParseAdminRequestResult {
  if (!isRecord(input)) return fail('request', `request must be a JSON object, got ${describe(input)}`);

  const action = input['action'];
  if (action === undefined) return fail('action', 'action is missing');
  if (!isOneOf(ADMIN_ACTIONS, action)) {
    return fail('action', `action must be one of ${ADMIN_ACTIONS.join(', ')}, got ${show(action)}`);
  }

  const allowed = ['action', 'cluster', ...(ACTION_FIELDS[action] ?? [])];
  const unknown = firstUnknownField(input, allowed);
  if (unknown !== undefined) return fail(clipForEcho(unknown), `${quoteForEcho(unknown)} is not a field of the ${action} action`);

  const cluster = parseCluster(input['cluster']);
  if (!cluster.ok) return cluster;

  if (action === 'history') return parseHistory(input, cluster.ref);
  if (action !== 'force-upgrade') return { ok: true, request: { action, cluster: cluster.ref } };
  const component = input['component'];
  if (component === undefined) return fail('component', 'component is missing (force-upgrade needs one)');
  if (!isOneOf(ADMIN_COMPONENTS, component)) {
    return fail('component', `component must be one of ${ADMIN_COMPONENTS.join(', ')}, got ${show(component)}`);
  }
  return { ok: true, request: { action, cluster: cluster.ref, component } };
}

// The fields an action takes besides `action` and `cluster`.
const ACTION_FIELDS: Partial<Record<AdminAction, readonly string[]>> = { 'force-upgrade': ['component'], history: ['limit'] };

function parseHistory(input: Record<string, unknown>, cluster: AdminClusterRef): ParseAdminRequestResult {
  const limit = input['limit'];
  if (limit === undefined) return { ok: true, request: { action: 'history', cluster } };
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    return fail('limit', `limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}, got ${typeof limit === 'number' ? String(limit) : show(limit)}`);
  }
  return { ok: true, request: { action: 'history', cluster, limit } };
}

type ParseClusterResult =
  | { readonly ok: true; readonly ref: AdminClusterRef }
  | { readonly ok: false; readonly error: AdminRequestError };

function parseCluster(value: unknown): ParseClusterResult {
  if (value === undefined) return fail('cluster', 'cluster is missing');
  if (!isRecord(value)) return fail('cluster', `cluster must be an object {namespace, name}, got ${describe(value)}`);
  const unknown = firstUnknownField(value, ['eksCluster', 'namespace', 'name']);
  if (unknown !== undefined) return fail(`cluster.${unknown}`, `cluster.${unknown} is not a field of cluster`);

  const namespace = value['namespace'];
  if (namespace === undefined) return fail('cluster.namespace', 'cluster.namespace is missing');
  if (typeof namespace !== 'string' || namespace.length > 63 || !DNS1123_LABEL.test(namespace)) {
    return fail('cluster.namespace', `cluster.namespace must be a DNS-1123 label (at most 63 characters), got ${show(namespace)}`);
  }
  const name = value['name'];
  if (name === undefined) return fail('cluster.name', 'cluster.name is missing');
  if (typeof name !== 'string' || name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    return fail('cluster.name', `cluster.name must be a DNS-1123 subdomain (at most 253 characters), got ${show(name)}`);
  }
  const eksCluster = value['eksCluster'];
  if (eksCluster === undefined) return { ok: true, ref: { namespace, name } };
  if (typeof eksCluster !== 'string' || !EKS_CLUSTER_NAME.test(eksCluster)) {
    return fail('cluster.eksCluster', `cluster.eksCluster must be an EKS cluster name (1-100 letters, digits, '.', '_' or '-'), got ${show(eksCluster)}`);
  }
  return { ok: true, ref: { eksCluster, namespace, name } };
}

// EKS cluster names as cluster keys allow them (lib/model/key.ts).
const EKS_CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function firstUnknownField(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(value).find((field) => !allowed.includes(field));
}

function isOneOf<T extends string>(options: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (options as readonly string[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(field: string, message: string): { readonly ok: false; readonly error: AdminRequestError } {
  return { ok: false, error: { field, message } };
}

function show(value: unknown): string {
  return typeof value === 'string' ? quoteForEcho(value) : describe(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}
