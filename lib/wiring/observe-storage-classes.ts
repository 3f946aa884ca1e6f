/**
 * Reading the StorageClasses a volume resize needs (whether `allowVolumeExpansion` lets a claim
 * grow): one GET per distinct class of the claims whose desired size is larger than their capacity
 * (`volumeClassesToRead`). A cluster whose claims all have their size reads none.
 */

import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { KubePort, KubeObject } from '../kube/port.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import { NotFoundError } from '../platform/errors.js';
import { volumeClassesToRead } from '../reconcile/cluster/volume-modifier.js';
import { withinBudget } from './abortable.js';
import { plainJson } from './plain-json.js';

/**
 * The classes of the claims `cluster` grows, by name order. Guarantees: `undefined` (nothing read)
 * when no claim needs to grow; a class that does not exist is left out, not an error (the rules
 * then report the claim as refused).
 */
export async function readResizeStorageClasses(kube: KubePort, cluster: TidbCluster, owned: OwnedObjects, signal: AbortSignal): Promise<IStorageClass[] | undefined> {
  const names = volumeClassesToRead(cluster, owned);
  if (names.length === 0) return undefined;
  const read = await Promise.all(names.map((name) => withinBudget(signal, `get StorageClass ${name}`, () => getIfExists(kube, name))));
  return plainJson<IStorageClass[]>(read.flatMap((sc) => (sc ? [sc] : [])));
}

async function getIfExists(kube: KubePort, name: string): Promise<KubeObject | undefined> {
  try {
    return await kube.getStorageClass(name);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}
