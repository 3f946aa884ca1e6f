/**
 * CustomResourceDefinitions (apiextensions.k8s.io/v1) as the API server reads them: the checks a
 * CRD must pass to be stored, the status the CRD controllers give it (NamesAccepted, Established),
 * and the served resources and schemas it adds. Pure functions over the CRD object.
 */
import type { KubeObject } from '../object.js';
import type { ResourceDef, ScalePaths } from '../resources.js';
import type { Cause } from '../validation.js';
import type { StructuralSchema } from './schema.js';

/** The finalizer the API server puts on every CRD: its custom resources go before it does. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** One served version of a CRD: the resource it adds and that version's schema. */
export type ServedVersion = { resource: ResourceDef; schema: StructuralSchema | undefined; printerColumns: unknown[] };

type Names = { plural?: unknown; singular?: unknown; kind?: unknown; listKind?: unknown; shortNames?: unknown; categories?: unknown };
type ScaleSpec = { specReplicasPath?: unknown; statusReplicasPath?: unknown; labelSelectorPath?: unknown };
type Version = { name?: unknown; served?: unknown; storage?: unknown; schema?: { openAPIV3Schema?: unknown }; subresources?: { status?: unknown; scale?: ScaleSpec | null }; additionalPrinterColumns?: unknown };

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

function spec(crd: KubeObject): { group: string; names: Names; scope: unknown; versions: Version[] } {
  const s = (crd.spec ?? {}) as Record<string, unknown>;
  return {
    group: typeof s.group === 'string' ? s.group : '',
    names: (typeof s.names === 'object' && s.names !== null ? s.names : {}) as Names,
    scope: s.scope,
    versions: Array.isArray(s.versions) ? (s.versions as Version[]) : [],
  };
}

/**
 * The causes the API server gives for a CRD it will not store (as ValidateCustomResourceDefinition):
 * the name must be `<plural>.<group>`, the names well formed, exactly one storage version, and every
 * version a structural schema with `type: object` at its root.
 */
export function validateCrd(crd: KubeObject): Cause[] {
  const { group, names, scope, versions } = spec(crd);
  const causes: Cause[] = [];
  const bad = (field: string, value: unknown, detail: string): void => void causes.push({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
  const need = (field: string): void => void causes.push({ field, reason: 'FieldValueRequired', message: 'Required value' });
  const plural = typeof names.plural === 'string' ? names.plural : '';
  if (crd.metadata.name && plural && group && crd.metadata.name !== `${plural}.${group}`) bad('metadata.name', crd.metadata.name, `must be spec.names.plural+"."+spec.group`);
  if (!group) need('spec.group');
  else if (!DNS_SUBDOMAIN.test(group) || !group.includes('.')) bad('spec.group', group, 'should be a domain with at least one dot');
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    causes.push({ field: 'spec.scope', reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(scope ?? '')}: supported values: "Cluster", "Namespaced"` });
  }
  if (!plural) need('spec.names.plural');
  else if (!DNS_LABEL.test(plural)) bad('spec.names.plural', plural, 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\'');
  if (typeof names.kind !== 'string' || !names.kind) need('spec.names.kind');
  else if (!KIND.test(names.kind)) bad('spec.names.kind', names.kind, 'a DNS-1035 label must consist of alphanumeric characters');
  if (typeof names.listKind !== 'string' && names.listKind !== undefined) bad('spec.names.listKind', names.listKind, 'must be a string');
  if (versions.length === 0) need('spec.versions');
  const storage = versions.filter((v) => v.storage === true).length;
  if (versions.length > 0 && storage !== 1) bad('spec.versions', versions.map((v) => v.name), 'must have exactly one version marked as storage version');
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (typeof v.name !== 'string' || !DNS_LABEL.test(v.name)) bad(`${path}.name`, v.name ?? '', 'a DNS-1035 label must consist of lower case alphanumeric characters or \'-\'');
    const root = v.schema?.openAPIV3Schema as StructuralSchema | undefined;
    if (!root) need(`${path}.schema.openAPIV3Schema`);
    else if (root.type !== 'object') bad(`${path}.schema.openAPIV3Schema.type`, root.type ?? '', 'must be object at the root');
    else causes.push(...structuralCauses(root, `${path}.schema.openAPIV3Schema`));
  });
  return causes;
}

/**
 * Where a schema is not structural, as the API server words it: every node names its type (but
 * those preserving unknown fields or int-or-string), and an object has properties or
 * additionalProperties, not both.
 */
function structuralCauses(node: StructuralSchema, path: string): Cause[] {
  const causes: Cause[] = [];
  if (!node.type && !node['x-kubernetes-preserve-unknown-fields'] && !node['x-kubernetes-int-or-string']) {
    causes.push({ field: `${path}.type`, reason: 'FieldValueRequired', message: 'Required value: must not be empty for specified object fields' });
  }
  if (node.properties && node.additionalProperties !== undefined && node.additionalProperties !== false) {
    causes.push({ field: `${path}.additionalProperties`, reason: 'FieldValueInvalid', message: 'Forbidden: additionalProperties and properties are mutual exclusive' });
  }
  for (const [name, sub] of Object.entries(node.properties ?? {})) causes.push(...structuralCauses(sub, `${path}.properties[${name}]`));
  if (node.items) causes.push(...structuralCauses(node.items, `${path}.items`));
  if (typeof node.additionalProperties === 'object') causes.push(...structuralCauses(node.additionalProperties, `${path}.additionalProperties`));
  return causes;
}

/** The status the CRD controllers write at once: names accepted, established, the stored version. */
export function crdStatus(crd: KubeObject, nowIso: string): Record<string, unknown> {
  const { names, versions } = spec(crd);
  const storage = versions.find((v) => v.storage === true)?.name;
  const previous = ((crd.status as { storedVersions?: string[] } | undefined)?.storedVersions ?? []).filter((v) => typeof v === 'string');
  const before = ((crd.status as { conditions?: { type?: string; lastTransitionTime?: string }[] } | undefined)?.conditions ?? []);
  const since = (type: string): string => before.find((c) => c.type === type)?.lastTransitionTime ?? nowIso;
  const condition = (type: string, reason: string, message: string): Record<string, unknown> => ({ type, status: 'True', lastTransitionTime: since(type), reason, message });
  return {
    acceptedNames: { ...names, listKind: names.listKind ?? `${String(names.kind)}List`, singular: names.singular ?? String(names.plural ?? '') },
    conditions: [condition('NamesAccepted', 'NoConflicts', 'no conflicts found'), condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted')],
    storedVersions: [...new Set([...previous, ...(typeof storage === 'string' ? [storage] : [])])],
  };
}

/** The served versions of a (valid) CRD, each as the resource it adds, storage version first. */
export function servedVersions(crd: KubeObject): ServedVersion[] {
  const { group, names, scope, versions } = spec(crd);
  const shortNames = Array.isArray(names.shortNames) ? names.shortNames.filter((n): n is string => typeof n === 'string') : [];
  const categories = Array.isArray(names.categories) ? names.categories.filter((n): n is string => typeof n === 'string') : [];
  const kind = String(names.kind);
  const plural = String(names.plural);
  const ordered = [...versions.filter((v) => v.storage === true), ...versions.filter((v) => v.storage !== true)];
  return ordered
    .filter((v) => v.served === true)
    .map((v) => ({
      resource: {
        group,
        version: String(v.name),
        kind,
        plural,
        singular: typeof names.singular === 'string' && names.singular ? names.singular : kind.toLowerCase(),
        namespaced: scope === 'Namespaced',
        shortNames,
        categories,
        subresources: [...(v.subresources?.status !== undefined ? ['status' as const] : []), ...(scalePathsOf(v) ? ['scale' as const] : [])],
        ...(scalePathsOf(v) ? { scalePaths: scalePathsOf(v) } : {}),
        hasGeneration: true,
        custom: true,
      },
      schema: v.schema?.openAPIV3Schema as StructuralSchema | undefined,
      printerColumns: Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [],
    }));
}

/** The version's scale subresource paths, when it declares one with both replica paths. */
function scalePathsOf(v: Version): ScalePaths | undefined {
  const scale = v.subresources?.scale;
  if (!scale || typeof scale.specReplicasPath !== 'string' || typeof scale.statusReplicasPath !== 'string') return undefined;
  return { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, ...(typeof scale.labelSelectorPath === 'string' ? { labelSelectorPath: scale.labelSelectorPath } : {}) };
}
