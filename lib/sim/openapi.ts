/**
 * Minimal OpenAPI v3 documents: one PATCH operation per served kind, tagged with its
 * group/version/kind and declaring the `fieldValidation` query parameter. That is what kubectl reads
 * to learn that the server validates fields itself, so `kubectl apply` works without
 * `--validate=false`. Custom resources' schemas come from their CRDs (crd/openapi.ts), and the
 * server honours `fieldValidation` for them; built-in kinds publish no schema and their unknown
 * fields are not refused (a difference from a real API server in Strict mode).
 */
import { customResourceSchemas } from './crd/openapi.js';
import type { ResourceRegistry } from './crd/registry.js';
import type { ResourceDef } from './resources.js';

/** `/openapi/v3`: the index of group/version documents of the served resources. */
export function openApiIndex(registry: ResourceRegistry): Record<string, unknown> {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of groupVersionPaths(registry.all())) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=sim` };
  return { paths };
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
  const schemas = customResourceSchemas(served, registry);
  const components = Object.keys(schemas).length ? { components: { schemas } } : {};
  return { openapi: '3.0.0', info: { title: 'Kubernetes (simulated)', version: 'v1.34.0' }, paths, ...components };
}

function pathOf(r: ResourceDef): string {
  return r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`;
}

function groupVersionPaths(resources: readonly ResourceDef[]): string[] {
  return [...new Set(resources.map(pathOf))];
}
