/**
 * An error the simulated API server returns to its client as a `Status` body with this HTTP code,
 * exactly as the real API server does (reason `NotFound`, `Conflict`, `AlreadyExists`, `Invalid`,
 * `BadRequest`, `Gone`, ...). `details` becomes the Status `details` (name, kind, causes), and
 * `listMeta` its `metadata` (a 410 Expired list carries a `continue` token there).
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly listMeta?: { continue?: string },
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The `Status` object the API server sends for an error. */
export function statusBody(err: ApiError): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: err.listMeta ?? {},
    status: 'Failure',
    message: err.message,
    reason: err.reason,
    ...(err.details ? { details: err.details } : {}),
    code: err.code,
  };
}

/** 404 for a missing object, worded like the API server (`pods "x" not found`). */
export function notFound(resource: string, name: string, group = ''): ApiError {
  const qualified = group ? `${resource}.${group}` : resource;
  return new ApiError(404, 'NotFound', `${qualified} "${name}" not found`, { name, group, kind: resource });
}

/** 409 for a write with a stale resourceVersion. */
export function conflict(resource: string, name: string, group = ''): ApiError {
  const qualified = group ? `${resource}.${group}` : resource;
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group, kind: resource },
  );
}

/** 409 for a create of a name that exists. */
export function alreadyExists(resource: string, name: string, group = ''): ApiError {
  const qualified = group ? `${resource}.${group}` : resource;
  return new ApiError(409, 'AlreadyExists', `${qualified} "${name}" already exists`, { name, group, kind: resource });
}

/** 400 for a body or query the server cannot use. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** 422 with field causes, worded as the API server words them (`[a, b]` for several causes). */
export function invalid(kind: string, name: string, causes: { field: string; message: string; reason?: string }[], group = ''): ApiError {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueInvalid', message: c.message, field: c.field })),
  });
}
