/**
 * `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`: asks the world's RBAC (`rbac.ts`)
 * whether a user with groups may do something, as the API server's SubjectAccessReview REST storage
 * does (pkg/registry/authorization/subjectaccessreview/rest.go): create-only, never stored, the
 * review answered with its `status` filled in (201). Validation follows
 * pkg/apis/authorization/validation: exactly one of resourceAttributes / nonResourceAttributes, and
 * a user or at least one group. `SelfSubjectAccessReview` (what `kubectl auth can-i` creates) asks the
 * same of the requesting user (pkg/registry/authorization/selfsubjectaccessreview/rest.go).
 */
import { ApiError, invalid } from './api-error.js';
import { type RbacDecision, type RbacObjects, type RbacUser, authorize, authorizeNonResource } from './rbac.js';

/** The group, version and plural the review is served under. */
export const ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
/** Where the self review is served. */
export const SELF_ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

type ResourceAttributes = { namespace?: string; verb?: string; group?: string; version?: string; resource?: string; subresource?: string; name?: string };
type NonResourceAttributes = { path?: string; verb?: string };
type ReviewSpec = { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: NonResourceAttributes; user?: string; groups?: string[]; uid?: string; extra?: unknown };

/** Answers one review request (`method` and parsed JSON `body`); throws `ApiError` as the server would. */
export function handleAccessReview(objects: RbacObjects, method: string, body: unknown): { code: number; body: unknown } {
  if (method !== 'POST') throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  const review = reviewOf(body, 'SubjectAccessReview');
  const spec = (review['spec'] ?? {}) as ReviewSpec;
  const causes: { field: string; message: string }[] = [];
  const hasResource = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonResource = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (hasResource === hasNonResource) causes.push({ field: 'spec.resourceAttributes', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  if (!spec.user && (spec.groups ?? []).length === 0) causes.push({ field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' });
  if (causes.length > 0) throw invalid('SubjectAccessReview', '', causes, 'authorization.k8s.io');
  const status = reviewStatus(objects, { name: spec.user ?? '', groups: spec.groups ?? [] }, spec);
  const metadata = (review['metadata'] ?? {}) as Record<string, unknown>;
  return { code: 201, body: { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { ...metadata, creationTimestamp: null }, spec, status } };
}

/** Answers a SelfSubjectAccessReview of `user` (the authenticated, possibly impersonated, requester). */
export function handleSelfAccessReview(objects: RbacObjects, user: RbacUser, method: string, body: unknown): { code: number; body: unknown } {
  if (method !== 'POST') throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  const review = reviewOf(body, 'SelfSubjectAccessReview');
  const spec = (review['spec'] ?? {}) as ReviewSpec;
  const hasResource = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonResource = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (hasResource === hasNonResource) {
    throw invalid('SelfSubjectAccessReview', '', [{ field: 'spec.resourceAttributes', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' }], 'authorization.k8s.io');
  }
  const metadata = (review['metadata'] ?? {}) as Record<string, unknown>;
  const status = reviewStatus(objects, user, spec);
  return { code: 201, body: { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { ...metadata, creationTimestamp: null }, spec, status } };
}

function reviewStatus(objects: RbacObjects, user: RbacUser, spec: ReviewSpec): { allowed: boolean; reason?: string } {
  const decision = spec.nonResourceAttributes ? authorizeNonResource(objects, user, { verb: spec.nonResourceAttributes.verb ?? '', path: spec.nonResourceAttributes.path ?? '' }) : resourceDecision(objects, user, spec);
  return decision.reason === '' ? { allowed: decision.allowed } : decision;
}

function resourceDecision(objects: RbacObjects, user: RbacUser, spec: ReviewSpec): RbacDecision {
  const a = spec.resourceAttributes ?? {};
  return authorize(
    objects,
    user,
    {
      verb: a.verb ?? '',
      apiGroup: a.group ?? '',
      resource: a.resource ?? '',
      namespace: a.namespace ?? '',
      ...(a.subresource ? { subresource: a.subresource } : {}),
      ...(a.name ? { name: a.name } : {}),
    },
  );
}

function reviewOf(body: unknown, kind: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'BadRequest', `the request body is not a ${kind} object`);
  const review = body as Record<string, unknown>;
  if (review['kind'] !== undefined && review['kind'] !== kind) {
    throw new ApiError(400, 'BadRequest', `the body's kind ${JSON.stringify(review['kind'])} is not ${kind}`);
  }
  return review;
}
