/**
 * Minimal OpenAPI v3 documents: one PATCH operation per served kind, tagged with its
 * group/version/kind and declaring the `fieldValidation` query parameter. That is what kubectl reads
 * to learn that the server validates fields itself, so `kubectl apply` works without
 * `--validate=false`. The built-in kinds' component schemas (builtin-openapi.ts) are published for
 * `kubectl explain`; creates and updates of built-in kinds honour `fieldValidation` against them
 * (builtin-fields.ts).
 */
import { createHash } from 'node:crypto';
import { builtinComponentSchemas } from './builtin-openapi.js';
import { RESOURCES, type ResourceDef } from './resources.js';

/**
 * `/openapi/v3`: the index of group/version documents. Each URL carries the digest of its document,
 * as the real server's does: kubectl caches a document by that URL, so a changed document must get a
 * new one.
 */
export function openApiIndex(): Record<string, unknown> {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of groupVersionPaths()) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${documentHash(gv)}` };
  return { paths };
}

function documentHash(gvPath: string): string {
  return createHash('sha512').update(JSON.stringify(openApiDocument(gvPath) ?? {})).digest('hex').toUpperCase();
}

/** `/openapi/v3/api/v1`, `/openapi/v3/apis/{group}/{version}`; undefined for anything else. */
export function openApiDocument(gvPath: string): Record<string, unknown> | undefined {
  if (!groupVersionPaths().includes(gvPath)) return undefined;
  const paths: Record<string, unknown> = {};
  for (const r of RESOURCES.filter((x) => pathOf(x) === gvPath)) {
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
  const kinds = RESOURCES.filter((x) => pathOf(x) === gvPath);
  return { openapi: '3.0.0', info: { title: 'Kubernetes (simulated)', version: 'v1.34.0' }, paths, components: { schemas: builtinComponentSchemas(kinds) } };
}

function pathOf(r: ResourceDef): string {
  return r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`;
}

function groupVersionPaths(): string[] {
  return [...new Set(RESOURCES.map(pathOf))];
}
