/**
 * A create or update of a built-in kind read as the real API server reads it, through the kind's Go
 * type (whose shape is its published OpenAPI schema, builtin-openapi.ts): a value of the wrong JSON
 * type is 400 (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of
 * type int32`); a field the type does not have is never stored — with `fieldValidation=Strict`
 * (what kubectl sends) the request is 400 `strict decoding error: unknown field "spec.replica"`,
 * otherwise the field is dropped. Custom resources (no built-in schema) pass unchanged; a null is
 * the Go zero value and always accepted.
 */
import { badRequest } from './api-error.js';
import { type OpenApiSchema, builtinSchema, builtinSchemaNameOf } from './builtin-openapi.js';
import type { ResourceDef } from './resources.js';

type Walk = { unknown: string[] };

/**
 * The body as the server keeps it: unknown fields dropped (or, under Strict, refused), wrong types
 * refused. Returns the same object, changed in place; anything but a plain object is left to the
 * handlers (which refuse it).
 */
export function decodeBuiltinFields(resource: ResourceDef, body: unknown, fieldValidation: string | null): unknown {
  const name = builtinSchemaNameOf(resource);
  const schema = name ? builtinSchema(name) : undefined;
  if (!schema || !isObject(body)) return body;
  const walk: Walk = { unknown: [] };
  const cannot = (detail: string) => badRequest(`${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: ${detail}`);
  const typeError = check(schema, body, '', '', shortName(name ?? ''), walk);
  if (typeError) throw cannot(typeError);
  if (walk.unknown.length > 0 && fieldValidation === 'Strict') {
    throw cannot(`strict decoding error: ${walk.unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
  }
  return body;
}

/** Follows `$ref` and a single `allOf` to the schema that says the shape. */
function resolve(schema: OpenApiSchema): OpenApiSchema {
  const ref = schema.$ref ?? (schema.allOf as OpenApiSchema[] | undefined)?.[0]?.$ref;
  if (typeof ref !== 'string') return schema;
  return builtinSchema(ref.slice(ref.lastIndexOf('/') + 1)) ?? schema;
}

/**
 * Checks `value` against `schema`, dropping unknown fields (recorded with their path, `[i]` for
 * list items); returns the first type error, worded as Go's encoding/json (its field path has no
 * indices), or undefined.
 */
function check(schema: OpenApiSchema, value: unknown, path: string, goPath: string, struct: string, walk: Walk): string | undefined {
  if (value === null || value === undefined) return undefined;
  const s = resolve(schema);
  const wrong = () => `json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ${struct}.${goPath} of type ${goTypeOf(schema)}`;
  if (s.oneOf) return (s.oneOf as OpenApiSchema[]).some((o) => matches(o.type, value)) ? undefined : wrong();
  const properties = s.properties as Record<string, OpenApiSchema> | undefined;
  if (properties) {
    if (!isObject(value)) return goPath ? wrong() : undefined;
    const here = shortName(refNameOf(schema) ?? '') || struct;
    for (const key of Object.keys(value)) {
      const property = properties[key];
      const childPath = path ? `${path}.${key}` : key;
      if (!property) {
        walk.unknown.push(childPath);
        delete value[key];
        continue;
      }
      const err = check(property, value[key], childPath, goPath ? `${goPath}.${key}` : key, here, walk);
      if (err) return err;
    }
    return undefined;
  }
  if (s.type === 'array') {
    if (!Array.isArray(value)) return wrong();
    const items = s.items as OpenApiSchema | undefined;
    for (const [i, item] of value.entries()) {
      const err = items ? check(items, item, `${path}[${i}]`, goPath, struct, walk) : undefined;
      if (err) return err;
    }
    return undefined;
  }
  if (s.type === 'object') {
    if (!isObject(value)) return wrong();
    const values = s.additionalProperties as OpenApiSchema | undefined;
    if (!values || typeof values !== 'object') return undefined;
    for (const [key, v] of Object.entries(value)) {
      const err = check(values, v, `${path}[${key}]`, goPath, struct, walk);
      if (err) return err;
    }
    return undefined;
  }
  return matches(s.type, value) ? undefined : wrong();
}

function matches(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

function refNameOf(schema: OpenApiSchema): string | undefined {
  const ref = schema.$ref ?? (schema.allOf as OpenApiSchema[] | undefined)?.[0]?.$ref;
  return typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : undefined;
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `DeploymentSpec`. */
function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** The Go type a schema stands for, as encoding/json names it (`int32`, `[]v1.Container`, `map[string]string`). */
function goTypeOf(schema: OpenApiSchema): string {
  const ref = refNameOf(schema);
  if (ref) {
    const parts = ref.split('.');
    return `${parts[parts.length - 2] ?? ''}.${parts[parts.length - 1] ?? ''}`;
  }
  if (schema.type === 'array') return `[]${goTypeOf((schema.items as OpenApiSchema | undefined) ?? {})}`;
  if (schema.type === 'object') return `map[string]${goTypeOf((schema.additionalProperties as OpenApiSchema | undefined) ?? {})}`;
  if (schema.type === 'integer') return schema.format === 'int64' ? 'int64' : 'int32';
  if (schema.type === 'number') return 'float64';
  if (schema.type === 'boolean') return 'bool';
  return 'string';
}
