/**
 * The OpenAPI v3 documents of the simulated API server: each group/version document carries the
 * schemas of its built-in kinds, tagged with their group/version/kind, and is self-contained (every
 * reference resolves inside it), as `kubectl explain` needs; custom resources get no built-in schema.
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { builtinComponentSchemas, builtinSchemaNameOf } from '../../lib/sim/builtin-openapi.js';
import { defaultResources } from '../../lib/sim/crd/tidbcluster.js';
import { openApiDocument, openApiIndex } from '../../lib/sim/openapi.js';

// What a fresh simulated API server serves: the built-in kinds and the TidbCluster CRD.
const registry = defaultResources();

type Doc = { paths: Record<string, unknown>; components: { schemas: Record<string, Record<string, unknown>> } };

function referencesOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) referencesOf(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else referencesOf(v, out);
    }
  }
  return out;
}

describe('group/version documents', () => {
  it.each([
    { name: 'core v1', path: 'api/v1', kinds: ['Pod', 'Service', 'PersistentVolumeClaim', 'Namespace', 'ConfigMap', 'Secret'], group: '', version: 'v1' },
    { name: 'apps/v1', path: 'apis/apps/v1', kinds: ['StatefulSet', 'Deployment', 'ControllerRevision'], group: 'apps', version: 'v1' },
    { name: 'rbac/v1', path: 'apis/rbac.authorization.k8s.io/v1', kinds: ['Role', 'RoleBinding'], group: 'rbac.authorization.k8s.io', version: 'v1' },
    { name: 'storage/v1', path: 'apis/storage.k8s.io/v1', kinds: ['StorageClass'], group: 'storage.k8s.io', version: 'v1' },
  ])('$name: every served kind has its tagged schema, and every reference resolves in the document', ({ path, kinds, group, version }) => {
    // Act
    const doc = openApiDocument(path, registry) as Doc;
    // Assess
    const schemas = doc.components.schemas;
    for (const kind of kinds) {
      const name = builtinSchemaNameOf({ group, version, kind }) ?? '';
      expect(schemas[name]?.['x-kubernetes-group-version-kind']).toContainEqual({ group, version, kind });
      expect(typeof schemas[name]?.description).toBe('string');
    }
    const dangling = referencesOf(schemas).filter((ref) => !schemas[ref.replace('#/components/schemas/', '')]);
    expect(dangling).toEqual([]);
  });

  it('the index lists every group/version document, each URL with the digest of its content (kubectl caches by URL)', () => {
    // Act
    const index = openApiIndex(registry) as { paths: Record<string, { serverRelativeURL: string }> };
    // Assess
    expect(Object.keys(index.paths)).toEqual(expect.arrayContaining(['api/v1', 'apis/apps/v1', 'apis/rbac.authorization.k8s.io/v1', 'apis/storage.k8s.io/v1']));
    for (const [gv, { serverRelativeURL }] of Object.entries(index.paths)) {
      const digest = createHash('sha512').update(JSON.stringify(openApiDocument(gv, registry))).digest('hex').toUpperCase();
      expect(serverRelativeURL).toBe(`/openapi/v3/${gv}?hash=${digest}`);
    }
  });

  it('a reference with a description is wrapped in allOf, as kube-openapi publishes v3', () => {
    // Act
    const schemas = builtinComponentSchemas([{ group: 'apps', version: 'v1', kind: 'StatefulSet' }]);
    // Assess
    const spec = (schemas['io.k8s.api.apps.v1.StatefulSet']?.properties as Record<string, Record<string, unknown>>).spec;
    expect(spec).toMatchObject({ allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.StatefulSetSpec' }] });
    expect(typeof spec?.description).toBe('string');
  });

  it.each([
    { name: 'IntOrString is integer or string', schema: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', oneOf: [{ type: 'integer' }, { type: 'string' }] },
    { name: 'Quantity is string or number', schema: 'io.k8s.apimachinery.pkg.api.resource.Quantity', oneOf: [{ type: 'string' }, { type: 'number' }] },
  ])('$name (oneOf, no type)', ({ schema, oneOf }) => {
    // Act
    const schemas = builtinComponentSchemas([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    // Assess
    expect(schemas[schema]?.oneOf).toEqual(oneOf);
    expect(schemas[schema]?.type).toBeUndefined();
  });

  it('a custom resource has no built-in schema', () => {
    // Act
    const schemas = builtinComponentSchemas([{ group: 'pingcap.com', version: 'v1alpha1', kind: 'TidbCluster' }]);
    // Assess
    expect(schemas).toEqual({});
  });
});
