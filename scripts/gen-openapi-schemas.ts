/**
 * Regenerates lib/sim/builtin-openapi.json, the OpenAPI schemas of the built-in kinds the simulated
 * API server serves (what `kubectl explain` prints). The source is Kubernetes 1.34.0's published
 * OpenAPI definitions (api/openapi-spec/swagger.json of release-1.34, as kubernetes-client/javascript
 * keeps it in src/gen/swagger.json.unprocessed at "Rev up to Kubernetes 1.34.0"). Only the
 * definitions the served kinds reach are kept, and they are written in the OpenAPI v3 form the API
 * server publishes under /openapi/v3: references point at `#/components/schemas/`, and a reference
 * with siblings (a description) is wrapped in `allOf`, and IntOrString and Quantity are `oneOf` their
 * JSON types, as kube-openapi does.
 *
 *   npx tsx scripts/gen-openapi-schemas.ts swagger.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESOURCES } from '../lib/sim/resources.js';

type Schema = Record<string, unknown>;

/**
 * Types whose OpenAPI v3 schema is a `oneOf` instead of a `type`, as their OpenAPIV3OneOfTypes
 * methods in k8s.io/apimachinery v0.34.1 say (so `kubectl explain` prints `<IntOrString>`).
 */
const V3_ONE_OF: Record<string, string[]> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': ['integer', 'string'],
  'io.k8s.apimachinery.pkg.api.resource.Quantity': ['string', 'number'],
};

/** The definition name of a served kind in the published spec (built-in groups only). */
function definitionOf(group: string, version: string, kind: string): string | undefined {
  if (group.includes('.') && !group.endsWith('.k8s.io')) return undefined;
  return `io.k8s.api.${group === '' ? 'core' : (group.split('.')[0] ?? '')}.${version}.${kind}`;
}

function refsOf(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.add(v.slice(v.lastIndexOf('/') + 1));
      else refsOf(v, out);
    }
  }
}

/** v2 → v3: the reference prefix, and `allOf` around a reference that has siblings. */
function toV3(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toV3);
  if (!value || typeof value !== 'object') return value;
  const obj = value as Schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(obj)) {
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/definitions/', '#/components/schemas/') : toV3(v);
  }
  if (typeof out.$ref === 'string' && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

function withOneOf(name: string, schema: Schema): Schema {
  const types = V3_ONE_OF[name];
  if (!types) return schema;
  const { type: _type, ...rest } = schema;
  return { ...rest, oneOf: types.map((type) => ({ type })) };
}

function main(swaggerPath: string): void {
  const definitions = (JSON.parse(readFileSync(swaggerPath, 'utf8')) as { definitions: Record<string, Schema> }).definitions;
  const keep = new Set<string>();
  const visit = (name: string): void => {
    if (keep.has(name)) return;
    const schema = definitions[name];
    if (!schema) throw new Error(`definition ${name} is missing from ${swaggerPath}`);
    keep.add(name);
    const refs = new Set<string>();
    refsOf(schema, refs);
    for (const r of refs) visit(r);
  };
  for (const r of RESOURCES) {
    const name = definitionOf(r.group, r.version, r.kind);
    if (name) visit(name);
  }
  const schemas = Object.fromEntries([...keep].sort().map((name) => [name, withOneOf(name, toV3(definitions[name]) as Schema)]));
  const doc = { source: 'Kubernetes 1.34.0 api/openapi-spec/swagger.json (definitions of the served built-in kinds, in OpenAPI v3 form)', schemas };
  writeFileSync(join(import.meta.dirname, '..', 'lib', 'sim', 'builtin-openapi.json'), JSON.stringify(doc) + '\n');
  console.log(`${keep.size} schemas`);
}

main(process.argv[2] ?? 'swagger.json');
