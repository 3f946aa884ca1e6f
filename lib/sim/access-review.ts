/**
 * `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`: asks the world's RBAC (`rbac.ts`)
 * whether a user with groups may do something, as the API server's SubjectAccessReview REST storage
 * does (pkg/registry/authorization/subjectaccessreview/rest.go): create-only, never stored, the
 * review answered with its `status` filled in (201). Validation follows
 * pkg/apis/authorization/validation: exactly one of resourceAttributes / nonResourceAttributes, and
 * a user or at least one group. Non-resource requests are not evaluated by the simulator: they are
 * answered not allowed with an `evaluationError` saying so.
 */
import { ApiError, invalid } from './api-error.js';
import { authorize, type RbacObjects } from './rbac.js';

/** The group, version and plural the review is served under. */
export const ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

type ResourceAttributes = { namespace?: string; verb?: string; group?: string; version?: string; resource?: string; subresource?: string; name?: string };
type ReviewSpec = { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: unknown; user?: string; groups?: string[]; uid?: string; extra?: unknown };

/** Answers one review request (`method` and parsed JSON `body`); throws `ApiError` as the server would. */
export function handleAccessReview(objects: RbacObjects, method: string, body: unknown): { code: number; body: unknown } {
  if (method !== 'POST') throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  const review = reviewOf(body);
  const spec = (review['spec'] ?? {}) as ReviewSpec;
  const causes: { field: string; message: string }[] = [];
  const hasResource = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonResource = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (hasResource === hasNonResource) causes.push({ field: 'spec.resourceAttributes', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  if (!spec.user && (spec.groups ?? []).length === 0) causes.push({ field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' });
  if (causes.length > 0) throw invalid('SubjectAccessReview', '', causes, 'authorization.k8s.io');
  const status = hasNonResource
    ? { allowed: false, evaluationError: 'nonResourceAttributes are not evaluated by the simulated API server' }
    : resourceStatus(objects, spec);
  const metadata = (review['metadata'] ?? {}) as Record<string, unknown>;
  return { code: 201, body: { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { ...metadata, creationTimestamp: null }, spec, status } };
}

function resourceStatus(objects: RbacObjects, spec: ReviewSpec): { allowed: boolean; reason?: string } {
  const a = spec.resourceAttributes ?? {};
  const decision = authorize(
    objects,
    { name: spec.user ?? '', groups: spec.groups ?? [] },
    {
      verb: a.verb ?? '',
      apiGroup: a.group ?? '',
      resource: a.resource ?? '',
      namespace: a.namespace ?? '',
      ...(a.subresource ? { subresource: a.subresource } : {}),
      ...(a.name ? { name: a.name } : {}),
    },
  );
  return decision.reason === '' ? { allowed: decision.allowed } : decision;
}

function reviewOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'BadRequest', 'the request body is not a SubjectAccessReview object');
  const review = body as Record<string, unknown>;
  if (review['kind'] !== undefined && review['kind'] !== 'SubjectAccessReview') {
    throw new ApiError(400, 'BadRequest', `the body's kind ${JSON.stringify(review['kind'])} is not SubjectAccessReview`);
  }
  return review;
}
