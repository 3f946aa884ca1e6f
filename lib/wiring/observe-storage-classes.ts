/**
 * Reading the StorageClasses a volume resize needs (whether `allowVolumeExpansion` lets a claim
 * grow): one GET per distinct class of the claims whose desired size is larger than their capacity
 * (`volumeClassesToRead`). A cluster whose claims all have their size reads none.
 */

import type { IStorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

import type { KubePort, KubeObject } from '../kube/port.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import { NotFoundError } from '../platform/errors.js';
import { ebsVolumesToDescribe, volumeClassesToRead } from '../reconcile/cluster/volume-modifier.js';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { Ec2Volumes } from '../ec2/port.js';
import type { EbsVolumeModification } from '../model/ebs.js';
import { withinBudget } from './abortable.js';
import { plainJson } from './plain-json.js';

/**
 * The classes of the claims `cluster` grows, by name order. Guarantees: `undefined` (nothing read)
 * when no claim needs to grow; a class that does not exist is left out, not an error (the rules
 * then report the claim as refused).
 */
export async function readResizeStorageClasses(kube: KubePort, cluster: TidbCluster, owned: OwnedObjects, signal: AbortSignal, volumeModifying = false): Promise<IStorageClass[] | undefined> {
  const names = volumeClassesToRead(cluster, owned, volumeModifying);
  if (names.length === 0) return undefined;
  const read = await Promise.all(names.map((name) => withinBudget(signal, `get StorageClass ${name}`, () => getIfExists(kube, name))));
  return plainJson<IStorageClass[]>(read.flatMap((sc) => (sc ? [sc] : [])));
}

/** What the step learnt from EC2: the modifications by volume id, or why EC2 could not be read. */
export type EbsRead = { readonly ebsModifications?: Record<string, EbsVolumeModification>; readonly ebsReadError?: string };

/**
 * EC2's last modification of each volume the EBS modifier works on this step (`ebsVolumesToDescribe`),
 * by volume id: one `DescribeVolumesModifications` call. Guarantees: nothing asked without EC2
 * (the gate off) or when no volume is in flight; a volume never modified is absent; an EC2 failure
 * is `ebsReadError` (the rules wait and report it), never the step's failure — the rest of the
 * cluster is still reconciled. The step's own budget running out is thrown, as for any read.
 */
export async function readEbsModifications(ec2: Ec2Volumes | undefined, cluster: TidbCluster, owned: OwnedObjects, volumes: readonly IPersistentVolume[], classes: readonly IStorageClass[], nowMs: number, signal: AbortSignal): Promise<EbsRead> {
  if (ec2 === undefined) return {};
  const ids = ebsVolumesToDescribe(cluster, owned, volumes, classes, nowMs);
  if (ids.length === 0) return {};
  try {
    const found = await withinBudget(signal, `EC2 DescribeVolumesModifications ${ids.join(',')}`, () => ec2.describeVolumesModifications(ids, signal));
    return { ebsModifications: Object.fromEntries(found.map((m) => [m.volumeId, m])) };
  } catch (err) {
    if (signal.aborted) throw err;
    return { ebsReadError: `EC2 DescribeVolumesModifications failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

async function getIfExists(kube: KubePort, name: string): Promise<KubeObject | undefined> {
  try {
    return await kube.getStorageClass(name);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}
