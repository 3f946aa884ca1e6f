/**
 * A CustomResourceDefinition's structural schema applied to a custom resource, in the order the
 * apiextensions API server applies it: unknown fields are pruned (and reported, for field
 * validation), defaults are filled in, then the value is validated. Causes are worded as the real
 * server words them (`spec.pd.replicas: Invalid value: "string": spec.pd.replicas in body must be
 * of type integer: "string"`). Pure: the caller's object is not changed.
 */
import type { Cause } from '../validation.js';

/** A (structural) OpenAPI v3 schema node, as a CRD carries it. */
export type StructuralSchema = {
  type?: string;
  description?: string;
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: StructuralSchema | boolean;
  items?: StructuralSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: StructuralSchema[];
  allOf?: StructuralSchema[];
  oneOf?: StructuralSchema[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
};

/** What applying a schema gives: the pruned and defaulted value, the pruned paths, the causes. */
export type SchemaResult = { value: unknown; unknownFields: string[]; causes: Cause[] };

/** Top-level fields every object keeps whatever its schema says. */
const OBJECT_META_FIELDS = ['apiVersion', 'kind', 'metadata'];

/**
 * Prunes, defaults and validates a custom resource against its version's schema. `metadata`,
 * `apiVersion` and `kind` are left to the generic object checks.
 */
export function applyStructuralSchema(schema: StructuralSchema, obj: Record<string, unknown>): SchemaResult {
  const unknownFields: string[] = [];
  const value = JSON.parse(JSON.stringify(obj)) as Record<string, unknown>;
  const rootProps = schema.properties ?? {};
  for (const key of Object.keys(value)) {
    if (OBJECT_META_FIELDS.includes(key)) continue;
    // An undefined field is an absent one (it would not survive JSON encoding).
    if (value[key] === undefined) {
      delete value[key];
      continue;
    }
    const sub = rootProps[key];
    if (sub) value[key] = prune(sub, value[key], key, unknownFields);
    else if (!schema['x-kubernetes-preserve-unknown-fields']) {
      unknownFields.push(key);
      delete value[key];
    }
  }
  const defaulted = applyDefaults({ ...schema, properties: withoutMeta(rootProps) }, value) as Record<string, unknown>;
  const causes: Cause[] = [];
  const toCheck: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(defaulted)) if (!OBJECT_META_FIELDS.includes(k)) toCheck[k] = v;
  validate({ ...schema, properties: withoutMeta(rootProps), required: (schema.required ?? []).filter((r) => !OBJECT_META_FIELDS.includes(r)) }, toCheck, '', causes);
  return { value: defaulted, unknownFields, causes };
}

function withoutMeta(props: Record<string, StructuralSchema>): Record<string, StructuralSchema> {
  const out: Record<string, StructuralSchema> = {};
  for (const [k, v] of Object.entries(props)) if (!OBJECT_META_FIELDS.includes(k)) out[k] = v;
  return out;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drops fields the schema does not specify (unless it preserves unknown fields), recording their paths. */
function prune(schema: StructuralSchema, value: unknown, path: string, unknown: string[]): unknown {
  if (Array.isArray(value)) {
    return schema.items ? value.map((v, i) => prune(schema.items as StructuralSchema, v, `${path}[${i}]`, unknown)) : value;
  }
  if (!isObject(value)) return value;
  const props = schema.properties;
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  if (!props && !extra && !schema['x-kubernetes-embedded-resource']) {
    // An object with no fields specified keeps what it holds only when it preserves unknown fields.
    if (preserve || schema.type !== 'object') return value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const sub = props?.[k] ?? extra;
    if (sub) out[k] = prune(sub, v, join(path, k), unknown);
    else if (preserve || (schema['x-kubernetes-embedded-resource'] && OBJECT_META_FIELDS.includes(k))) out[k] = v;
    else unknown.push(join(path, k));
  }
  return out;
}

/** Fills in `default` for absent properties (and for null ones that are not nullable), deepest first. */
function applyDefaults(schema: StructuralSchema, value: unknown): unknown {
  if (Array.isArray(value)) return schema.items ? value.map((v) => applyDefaults(schema.items as StructuralSchema, v)) : value;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    const missing = !(k in out) || (out[k] === null && !sub.nullable);
    if (missing && sub.default !== undefined) out[k] = structuredClone(sub.default);
    if (k in out) out[k] = applyDefaults(sub, out[k]);
  }
  const extra = schema.additionalProperties;
  if (typeof extra === 'object') for (const k of Object.keys(out)) if (!schema.properties?.[k]) out[k] = applyDefaults(extra, out[k]);
  return out;
}

/** The JSON type name the API server reports for a value. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(type: string, v: unknown): boolean {
  const actual = typeName(v);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

/** As Go's field.Error prints a value: strings quoted, numbers and booleans bare, the rest as JSON. */
function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return v === null ? 'null' : JSON.stringify(v);
}

function typeError(path: string, expected: string, v: unknown): Cause {
  const actual = JSON.stringify(typeName(v));
  return { field: path, reason: 'FieldValueInvalid', message: `Invalid value: ${actual}: ${path} in body must be of type ${expected}: ${actual}` };
}

function validate(schema: StructuralSchema, v: unknown, path: string, causes: Cause[]): void {
  if (v === null) {
    if (!schema.nullable && (schema.type || schema['x-kubernetes-int-or-string'])) causes.push(typeError(path, schema.type ?? 'integer,string', v));
    return;
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (!typeMatches('integer', v) && !typeMatches('string', v)) return void causes.push(typeError(path, 'integer,string', v));
  } else if (schema.type && !typeMatches(schema.type, v)) {
    return void causes.push(typeError(path, schema.type, v));
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    causes.push({ field: path, reason: 'FieldValueNotSupported', message: `Unsupported value: ${shown(v)}: supported values: ${schema.enum.map((e) => shown(e)).join(', ')}` });
  }
  scalarRules(schema, v, path, causes);
  if (Array.isArray(v)) {
    if (schema.minItems !== undefined && v.length < schema.minItems) causes.push({ field: path, reason: 'FieldValueInvalid', message: `Invalid value: ${v.length}: ${path} in body should have at least ${schema.minItems} items` });
    if (schema.maxItems !== undefined && v.length > schema.maxItems) causes.push({ field: path, reason: 'FieldValueTooLong', message: `Too many: ${v.length}: must have at most ${schema.maxItems} items` });
    if (schema.items) v.forEach((item, i) => validate(schema.items as StructuralSchema, item, `${path}[${i}]`, causes));
    return;
  }
  if (isObject(v)) {
    for (const r of schema.required ?? []) if (!(r in v)) causes.push({ field: join(path, r), reason: 'FieldValueRequired', message: 'Required value' });
    const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const [k, item] of Object.entries(v)) {
      const sub = schema.properties?.[k] ?? extra;
      if (sub) validate(sub, item, join(path, k), causes);
    }
  }
}

function scalarRules(schema: StructuralSchema, v: unknown, path: string, causes: Cause[]): void {
  const bad = (message: string): void => void causes.push({ field: path, reason: 'FieldValueInvalid', message: `Invalid value: ${shown(v)}: ${path} in body ${message}` });
  if (typeof v === 'number') {
    if (schema.minimum !== undefined && v < schema.minimum) bad(`should be greater than or equal to ${schema.minimum}`);
    if (schema.maximum !== undefined && v > schema.maximum) bad(`should be less than or equal to ${schema.maximum}`);
  }
  if (typeof v === 'string') {
    if (schema.minLength !== undefined && [...v].length < schema.minLength) bad(`should be at least ${schema.minLength} chars long`);
    if (schema.maxLength !== undefined && [...v].length > schema.maxLength) {
      causes.push({ field: path, reason: 'FieldValueTooLong', message: `Too long: may not be more than ${schema.maxLength} bytes` });
    }
    if (schema.pattern !== undefined && compiled(schema.pattern)?.test(v) === false) bad(`should match '${schema.pattern}'`);
  }
}

const PATTERNS = new Map<string, RegExp | undefined>();

/**
 * A schema pattern as a RegExp, compiled once. Patterns are Go (RE2) syntax, which JavaScript reads
 * alike for what CRDs use; one it cannot read is not applied.
 */
function compiled(pattern: string): RegExp | undefined {
  if (!PATTERNS.has(pattern)) {
    let re: RegExp | undefined;
    for (const flags of ['u', '']) {
      try {
        re = new RegExp(pattern, flags);
        break;
      } catch {
        // try the next reading
      }
    }
    PATTERNS.set(pattern, re);
  }
  return PATTERNS.get(pattern);
}
