/**
 * Minimal OpenAPI v3 documents: one PATCH operation per served kind, tagged with its
 * group/version/kind and declaring the `fieldValidation` query parameter. That is what kubectl reads
 * to learn that the server validates fields itself, so `kubectl apply` works without
 * `--validate=false`. The built-in kinds' component schemas (builtin-openapi.ts) and custom
 * resources' schemas from their CRDs (crd/openapi.ts) are published for `kubectl explain`; writes
 * honour `fieldValidation` against them (builtin-fields.ts, crd/admission.ts).
 */
import { createHash } from 'node:crypto';
import { builtinComponentSchemas } from './builtin-openapi.js';
import { customResourceSchemas } from './crd/openapi.js';
import type { ResourceRegistry } from './crd/registry.js';
import type { ResourceDef } from './resources.js';

/**
 * `/openapi/v3`: the index of group/version documents of the served resources. Each URL carries the
 * digest of its document, as the real server's does: kubectl caches a document by that URL, so a
 * changed document (a CRD applied, changed or deleted) must get a new one.
 */
export function openApiIndex(registry: ResourceRegistry): Record<string, unknown> {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of groupVersionPaths(registry.all())) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${documentHash(gv, registry)}` };
  return { paths };
}

function documentHash(gvPath: string, registry: ResourceRegistry): string {
  return createHash('sha512').update(JSON.stringify(openApiDocument(gvPath, registry) ?? {})).digest('hex').toUpperCase();
}

/** `/openapi/v3/api/v1`, `/openapi/v3/apis/{group}/{version}`; undefined for anything else. */
export function openApiDocument(gvPath: string, registry: ResourceRegistry): Record<string, unknown> | undefined {
  const resources = registry.all();
  if (!groupVersionPaths(resources).includes(gvPath)) return undefined;
  const paths: Record<string, unknown> = {};
  const served = resources.filter((x) => pathOf(x) === gvPath);
  for (const r of served) {
    const base = `/${gvPath}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${r.kind}`,
        'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
        'x-kubernetes-action': 'patch',
        parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  const schemas = { ...builtinComponentSchemas(served.filter((r) => !r.custom)), ...customResourceSchemas(served, registry) };
  return { openapi: '3.0.0', info: { title: 'Kubernetes (simulated)', version: 'v1.34.0' }, paths, components: { schemas } };
}

function pathOf(r: ResourceDef): string {
  return r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`;
}

function groupVersionPaths(resources: readonly ResourceDef[]): string[] {
  return [...new Set(resources.map(pathOf))];
}
