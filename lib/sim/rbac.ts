/**
 * Kubernetes RBAC as the API server evaluates it, over the Roles, ClusterRoles, RoleBindings and
 * ClusterRoleBindings (rbac.authorization.k8s.io/v1) in the simulated world's store. Mirrors
 * kubernetes/plugin/pkg/auth/authorizer/rbac/rbac.go (`Authorize`, the visitor's reason strings),
 * pkg/registry/rbac/validation/rule.go (`VisitRulesFor`, `appliesToUser`) and
 * pkg/apis/rbac/v1/evaluation_helpers.go (`VerbMatches`, `APIGroupMatches`, `ResourceMatches`,
 * `ResourceNameMatches`). The `system:masters` group is allowed everything, as the API server's
 * privileged-group authorizer placed before RBAC allows it. Non-resource requests (`/healthz`, …)
 * are decided by `authorizeNonResource` over ClusterRoleBindings only, as `NonResourceURLMatches`.
 */
import type { KubeObject } from './object.js';

/** Who asks: a user name and its groups (as an authenticator or a SubjectAccessReview gives them). */
export type RbacUser = { readonly name: string; readonly groups: readonly string[] };

/**
 * What is asked: a verb on a resource (with an optional subresource and object name) in a namespace
 * ('' for cluster-scoped resources and requests across all namespaces).
 */
export type RbacRequest = {
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly name?: string;
  readonly namespace: string;
};

/**
 * The decision: `allowed`, and the reason as the API server words it (`RBAC: allowed by RoleBinding
 * "x/ns" of ClusterRole "y" to User "z"`; on a denial, only the errors met on the way, else '').
 * RBAC never denies outright (it has no opinion), so there is no `denied`.
 */
export type RbacDecision = { readonly allowed: boolean; readonly reason: string };

/** The group the API server allows everything (user.SystemPrivilegedGroup). */
export const SYSTEM_MASTERS = 'system:masters';

/** Reads the RBAC objects; the simulated store satisfies it. */
export type RbacObjects = {
  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(kind: string, namespace?: string): KubeObject[];
};

type PolicyRule = { verbs?: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
type Subject = { kind?: string; name?: string; namespace?: string; apiGroup?: string };
type RoleRef = { kind?: string; name?: string; apiGroup?: string };
type Binding = KubeObject & { subjects?: Subject[]; roleRef?: RoleRef };

/** Decides `request` for `user` over the RBAC objects in `objects`, as rbac.go's `Authorize`. */
export function authorize(objects: RbacObjects, user: RbacUser, request: RbacRequest): RbacDecision {
  if (user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
  const errors: string[] = [];
  // As VisitRulesFor: ClusterRoleBindings first, then the RoleBindings of the request's namespace.
  for (const binding of objects.list('ClusterRoleBinding') as Binding[]) {
    const allowedBy = visitBinding(objects, binding, '', user, request, errors);
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding ${q(binding.metadata.name ?? '')} of ${allowedBy}` };
  }
  if (request.namespace !== '') {
    for (const binding of objects.list('RoleBinding', request.namespace) as Binding[]) {
      const allowedBy = visitBinding(objects, binding, request.namespace, user, request, errors);
      if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by RoleBinding ${q(`${binding.metadata.name ?? ''}/${request.namespace}`)} of ${allowedBy}` };
    }
  }
  return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` };
}

/** A non-resource request: a lower-case HTTP verb (`get`, `post`, …) on a path (`/version`). */
export type NonResourceRequest = { readonly verb: string; readonly path: string };

/**
 * Decides a non-resource request as rbac.go does: only ClusterRoleBindings grant `nonResourceURLs`
 * (a RoleBinding's rules are namespaced), a URL matching exactly or by a trailing `*` prefix
 * (evaluation_helpers.go's `NonResourceURLMatches`).
 */
export function authorizeNonResource(objects: RbacObjects, user: RbacUser, request: NonResourceRequest): RbacDecision {
  if (user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
  const errors: string[] = [];
  for (const binding of objects.list('ClusterRoleBinding') as Binding[]) {
    const subject = (binding.subjects ?? []).find((s) => appliesTo(s, user, ''));
    if (subject === undefined) continue;
    const ref = binding.roleRef ?? {};
    const rules = roleRules(objects, ref, '', errors);
    if (rules.some((rule) => matchesOrStar(rule.verbs, request.verb) && nonResourceUrlMatches(rule.nonResourceURLs ?? [], request.path))) {
      return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding ${q(binding.metadata.name ?? '')} of ${ref.kind ?? ''} ${q(ref.name ?? '')} to ${describeSubject(subject, '')}` };
    }
  }
  return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` };
}

function nonResourceUrlMatches(urls: readonly string[], path: string): boolean {
  return urls.some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** The tail of the reason (`ClusterRole "y" to User "z"`) when the binding allows the request, else undefined. */
function visitBinding(objects: RbacObjects, binding: Binding, namespace: string, user: RbacUser, request: RbacRequest, errors: string[]): string | undefined {
  const subject = (binding.subjects ?? []).find((s) => appliesTo(s, user, namespace));
  if (subject === undefined) return undefined;
  const ref = binding.roleRef ?? {};
  const rules = roleRules(objects, ref, namespace, errors);
  if (!rules.some((rule) => ruleAllows(rule, request))) return undefined;
  return `${ref.kind ?? ''} ${q(ref.name ?? '')} to ${describeSubject(subject, namespace)}`;
}

/** As rule.go's `GetRoleReferenceRules`: a missing role is an error (reported in a denial's reason). */
function roleRules(objects: RbacObjects, ref: RoleRef, bindingNamespace: string, errors: string[]): PolicyRule[] {
  if (ref.kind === 'ClusterRole' || (ref.kind === 'Role' && bindingNamespace !== '')) {
    const role = ref.kind === 'ClusterRole' ? objects.get('ClusterRole', undefined, ref.name ?? '') : objects.get('Role', bindingNamespace, ref.name ?? '');
    if (role === undefined) {
      errors.push(`${ref.kind === 'ClusterRole' ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io ${q(ref.name ?? '')} not found`);
      return [];
    }
    return (role['rules'] as PolicyRule[] | undefined) ?? [];
  }
  errors.push(`unsupported role reference kind: ${q(ref.kind ?? '')}`);
  return [];
}

/** As rule.go's `appliesToUser`: a ServiceAccount subject without a namespace is the binding's. */
function appliesTo(subject: Subject, user: RbacUser, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return subject.name !== undefined && user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.name === `system:serviceaccount:${namespace}:${subject.name ?? ''}`;
    }
    default:
      return false;
  }
}

/** As evaluation_helpers.go's `RuleAllows` for resource requests. */
function ruleAllows(rule: PolicyRule, request: RbacRequest): boolean {
  const combined = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  return (
    matchesOrStar(rule.verbs, request.verb) &&
    matchesOrStar(rule.apiGroups, request.apiGroup) &&
    resourceMatches(rule.resources ?? [], combined, request.subresource ?? '') &&
    resourceNameMatches(rule.resourceNames ?? [], request.name ?? '')
  );
}

function matchesOrStar(values: readonly string[] | undefined, requested: string): boolean {
  return (values ?? []).some((v) => v === '*' || v === requested);
}

/** `*`, the exact `resource/subresource`, or `*​/subresource` — not `pods/*` (Kubernetes has no such form). */
function resourceMatches(resources: readonly string[], combined: string, subresource: string): boolean {
  return resources.some((r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`));
}

/** A rule naming objects matches only requests for one of those names (never a list or create). */
function resourceNameMatches(names: readonly string[], requested: string): boolean {
  return names.length === 0 || names.includes(requested);
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `ServiceAccount ${q(`${subject.name ?? ''}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind ?? ''} ${q(subject.name ?? '')}`;
}

/** Go's %q for the names RBAC prints. */
function q(text: string): string {
  return JSON.stringify(text);
}
