/**
 * `KubePort.copySecret`: a Secret made to hold exactly the data of other Secrets, each key renamed
 * with its source's prefix — TiDB Operator's `CreateOrUpdateSecret` of a copied client certificate.
 * The values stay inside this function: nothing returned, logged or thrown carries one.
 */

import { ConflictError, NotFoundError, TerminalError } from '../platform/errors.js';
import type { KubeObject, SecretCopySpec } from './port.js';

/** The reads and writes the copy needs (the client's GET, create and guarded update). */
export type SecretIo = {
  /** The Secret, or undefined when it does not exist. */
  read(namespace: string, name: string): Promise<KubeObject | undefined>;
  create(obj: KubeObject): Promise<KubeObject>;
  update(obj: KubeObject): Promise<KubeObject>;
};

/**
 * Reads every source (a missing one is a `NotFoundError` naming it), then creates the target with
 * `copy.metadata` when absent, or updates it under the resourceVersion just read when its data or
 * labels differ; an equal one is left alone (no write). A 409 surfaces as `ConflictError`.
 */
export async function copySecretWith(io: SecretIo, copy: SecretCopySpec): Promise<void> {
  const namespace = copy.ref.namespace ?? '';
  if (namespace === '' || copy.ref.name === '') throw new TerminalError('secret.copy needs a namespace and a name', { field: 'ref' });
  const data: Record<string, string> = {};
  for (const source of copy.sources) {
    const secret = await io.read(source.namespace, source.name);
    if (secret === undefined) throw new NotFoundError(`secret "${source.name}" not found in namespace ${source.namespace}`);
    for (const [key, value] of Object.entries((secret['data'] ?? {}) as Record<string, string>)) data[`${source.keyPrefix}${key}`] = value;
  }
  const live = await io.read(namespace, copy.ref.name);
  if (live === undefined) {
    await io.create({ apiVersion: 'v1', kind: 'Secret', metadata: { ...copy.metadata, name: copy.ref.name, namespace }, type: 'Opaque', data });
    return;
  }
  const liveData = (live['data'] ?? {}) as Record<string, string>;
  const sameData = Object.keys(liveData).length === Object.keys(data).length && Object.entries(data).every(([k, v]) => liveData[k] === v);
  const sameLabels = Object.entries(copy.metadata.labels ?? {}).every(([k, v]) => live.metadata.labels?.[k] === v);
  if (sameData && sameLabels) return;
  if (!live.metadata.resourceVersion) throw new ConflictError(`Secret ${namespace}/${copy.ref.name} was read without a resourceVersion`);
  const metadata = { ...live.metadata, labels: { ...(live.metadata.labels ?? {}), ...(copy.metadata.labels ?? {}) } };
  await io.update({ ...live, apiVersion: 'v1', kind: 'Secret', metadata, data });
}
