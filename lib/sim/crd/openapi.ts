/**
 * The OpenAPI v3 component schemas a CRD's served version publishes, named as the apiextensions
 * API server names them (`com.pingcap.v1alpha1.TidbCluster`, the group reversed) and tagged with
 * their group/version/kind, so `kubectl explain tc.spec.pd` finds and walks them. `metadata` refers
 * to ObjectMeta, published beside them.
 */
import type { ResourceDef } from '../resources.js';
import type { ResourceRegistry } from './registry.js';
import type { StructuralSchema } from './schema.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The schema name of a custom kind in OpenAPI: reversed group, version, kind. */
function customSchemaName(r: ResourceDef): string {
  return [...r.group.split('.').reverse(), r.version, r.kind].join('.');
}

/** Component schemas for the custom resources among `resources` (empty when there are none). */
export function customResourceSchemas(resources: readonly ResourceDef[], registry: ResourceRegistry): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of resources.filter((x) => x.custom)) {
    const schema = registry.servedVersion(r.kind, r.version)?.schema;
    if (!schema) continue;
    const props = { ...(schema.properties ?? {}) } as Record<string, StructuralSchema | Record<string, unknown>>;
    props.apiVersion = { ...props.apiVersion, type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.' };
    props.kind = { ...props.kind, type: 'string', description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.' };
    props.metadata = { description: "Standard object's metadata.", allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }] };
    out[customSchemaName(r)] = { ...schema, properties: props, 'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: r.kind }] };
    out[OBJECT_META] = OBJECT_META_SCHEMA;
  }
  return out;
}

const str = (description: string): Record<string, unknown> => ({ type: 'string', description });
const map = (description: string): Record<string, unknown> => ({ type: 'object', additionalProperties: { type: 'string', default: '' }, description });

/** ObjectMeta's commonly read fields, described as the Kubernetes API describes them. */
const OBJECT_META_SCHEMA = {
  type: 'object',
  description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  properties: {
    annotations: map('Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.'),
    creationTimestamp: { ...str('CreationTimestamp is a timestamp representing the server time when this object was created.'), format: 'date-time' },
    deletionTimestamp: { ...str('DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.'), format: 'date-time' },
    finalizers: { type: 'array', items: { type: 'string', default: '' }, description: 'Must be empty before the object is deleted from the registry.' },
    generateName: str('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
    generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
    labels: map('Map of string keys and values that can be used to organize and categorize (scope and select) objects.'),
    name: str('Name must be unique within a namespace.'),
    namespace: str('Namespace defines the space within which each name must be unique.'),
    resourceVersion: str('An opaque value that represents the internal version of this object.'),
    uid: str('UID is the unique in time and space value for this object.'),
  },
};
