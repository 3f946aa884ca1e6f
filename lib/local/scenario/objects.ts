/**
 * The `objects:` section of a scenario file: Secrets and ConfigMaps a user would create beside the
 * TidbCluster (e.g. the TLS certificates of `tlsCluster`, made with cert-manager or kubectl). Each
 * is a manifest with `apiVersion: v1`, `kind` Secret or ConfigMap, `metadata.name`, and
 * `metadata.namespace` defaulting to the cluster's; they are created at t = 0, before the
 * TidbCluster, through the same API server checks as any write. Anything else is a file error.
 */
import type { FieldPath } from './reader.js';
import { describeValue, FieldError, readJsonObject, readString, rejectUnknownFields, required } from './reader.js';
import type { JsonObject } from './types.js';

/** The kinds `objects:` may hold. */
export const OBJECT_KINDS = ['Secret', 'ConfigMap'] as const;

/** The fields an object may have, by kind (the writable fields of core/v1). */
const FIELDS: Record<(typeof OBJECT_KINDS)[number], readonly string[]> = {
  Secret: ['apiVersion', 'kind', 'metadata', 'type', 'data', 'stringData', 'immutable'],
  ConfigMap: ['apiVersion', 'kind', 'metadata', 'data', 'binaryData', 'immutable'],
};

/** One object to create: the manifest with its namespace filled in. */
export type ScenarioObject = JsonObject & { readonly kind: (typeof OBJECT_KINDS)[number]; readonly metadata: { name: string; namespace: string } };

/** Reads `objects:` (absent or empty: none); names must be unique per kind and namespace. */
export function readObjects(raw: unknown, clusterNamespace: string): readonly ScenarioObject[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new FieldError(['objects'], `expected a list of Secret or ConfigMap manifests, got ${describeValue(raw)}`);
  const seen = new Set<string>();
  return raw.map((item, i) => {
    const object = readObject(item, ['objects', i], clusterNamespace);
    const id = `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`;
    if (seen.has(id)) throw new FieldError(['objects', i, 'metadata', 'name'], `${id} is listed twice`);
    seen.add(id);
    return object;
  });
}

function readObject(raw: unknown, path: FieldPath, clusterNamespace: string): ScenarioObject {
  const manifest = readJsonObject(raw, path, 'a Secret or ConfigMap manifest');
  const apiVersion = readString(required(manifest, 'apiVersion', path), [...path, 'apiVersion']);
  if (apiVersion !== 'v1') throw new FieldError([...path, 'apiVersion'], `expected v1, got ${JSON.stringify(apiVersion)}`);
  const kind = readString(required(manifest, 'kind', path), [...path, 'kind']);
  if (kind !== 'Secret' && kind !== 'ConfigMap') throw new FieldError([...path, 'kind'], `expected one of: ${OBJECT_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  rejectUnknownFields(manifest, path, FIELDS[kind]);
  const metadataPath: FieldPath = [...path, 'metadata'];
  const metadata = readJsonObject(required(manifest, 'metadata', path), metadataPath);
  rejectUnknownFields(metadata, metadataPath, ['name', 'namespace', 'labels', 'annotations']);
  const name = readString(required(metadata, 'name', metadataPath), [...metadataPath, 'name']);
  const namespace = 'namespace' in metadata ? readString(metadata['namespace'], [...metadataPath, 'namespace']) : clusterNamespace;
  for (const field of ['data', 'stringData', 'binaryData'] as const) {
    if (field in manifest) readStringMap(manifest[field], [...path, field], kind === 'Secret' && field === 'data');
  }
  return { ...manifest, kind, metadata: { ...metadata, name, namespace } } as ScenarioObject;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A mapping of strings; a Secret's `data` values must be base64 (the API server decodes them). */
function readStringMap(value: unknown, path: FieldPath, base64: boolean): void {
  const map = readJsonObject(value, path, 'a mapping of keys to strings');
  for (const [key, v] of Object.entries(map)) {
    if (typeof v !== 'string') throw new FieldError([...path, key], `expected a string, got ${describeValue(v)}`);
    if (base64 && !BASE64.test(v)) throw new FieldError([...path, key], 'expected base64 (use stringData for plain text)');
  }
}
