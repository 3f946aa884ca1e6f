/**
 * The API server's handling of CustomResourceDefinitions and of custom resources on write: a custom
 * resource is pruned, defaulted and validated against its CRD's schema, with unknown fields refused
 * under `fieldValidation=Strict` and reported as warnings under `Warn`; a CRD gets its cleanup
 * finalizer and the status the CRD controllers would write.
 */
import { ApiError } from '../api-error.js';
import type { KubeObject } from '../object.js';
import type { Cause } from '../validation.js';
import { CRD_CLEANUP_FINALIZER, crdStatus, validateCrd } from './definitions.js';
import type { ResourceRegistry } from './registry.js';
import { type StructuralSchema, applyStructuralSchema } from './schema.js';

/** How the write treats unknown fields (the store's `fieldValidation`), and where warnings go. */
type FieldValidationOptions = { fieldValidation?: 'Strict' | 'Warn' | 'Ignore'; warnings?: string[] };

/**
 * A custom resource as it will be stored (pruned and defaulted) and the schema's causes against it.
 * Strict field validation with unknown fields is a 400 `strict decoding error`, before any cause.
 */
export function admitCustomResource(schema: StructuralSchema, obj: KubeObject, opts: FieldValidationOptions): { object: KubeObject; causes: Cause[] } {
  const result = applyStructuralSchema(schema, obj as unknown as Record<string, unknown>);
  const unknown = result.unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (unknown.length > 0 && opts.fieldValidation === 'Strict') throw new ApiError(400, 'BadRequest', `strict decoding error: ${unknown.join(', ')}`);
  if (opts.fieldValidation !== 'Ignore') opts.warnings?.push(...unknown);
  return { object: result.value as KubeObject, causes: result.causes };
}

/**
 * A CRD's causes: its own checks, and that its kind is not already served by a built-in or
 * another CRD (objects are kept by kind here, so kinds are unique across groups).
 */
export function validateCrdAgainst(crd: KubeObject, served: ResourceRegistry): Cause[] {
  const causes = validateCrd(crd);
  const kind = (crd.spec?.names as { kind?: unknown } | undefined)?.kind;
  const owner = typeof kind === 'string' ? served.ownerOfKind(kind) : undefined;
  if (owner !== undefined && owner !== crd.metadata.name) {
    causes.push({ field: 'spec.names.kind', reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(kind)}: already served by ${owner}` });
  }
  return causes;
}

/** What the API server and its CRD controllers add to a CRD being stored: finalizer and status. */
export function prepareCrd(crd: KubeObject, nowIso: string, creating: boolean): void {
  if (creating) crd.metadata.finalizers = [...new Set([...(crd.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER])];
  crd.status = crdStatus(crd, nowIso);
}

/** Parses the `fieldValidation` query parameter (400 for an unknown directive, as the server). */
export function fieldValidationOf(q: URLSearchParams): 'Strict' | 'Warn' | 'Ignore' | undefined {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return undefined;
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw new ApiError(400, 'BadRequest', `fieldValidation parameter unsupported: ${v}, must be one of: Strict, Warn, Ignore`);
}
