/**
 * Reading the PersistentVolumes bound to a cluster's claims. Volumes are cluster-scoped and only
 * carry the cluster's labels once the MetaInfo rule has patched them, so one step reads them in at
 * most two rounds: one label-selected LIST of the volumes already labelled for this instance and
 * namespace, then a GET for each bound claim's volume that LIST did not return (a volume bound
 * since the last step, before it is labelled). In a steady cluster that is the one LIST; with no
 * bound claim nothing is read.
 */

import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';

import type { KubeObject, KubePort } from '../kube/port.js';
import type { OwnedObjects } from '../model/kube.js';
import { LABEL, ownedLabels } from '../model/labels.js';
import { NotFoundError } from '../platform/errors.js';
import { withinBudget } from './abortable.js';
import { plainJson } from './plain-json.js';

/** The selector of the volumes already labelled for `instance` in `namespace`. */
export function volumeLabels(namespace: string, instance: string): Record<string, string> {
  return { ...ownedLabels(instance), [LABEL.namespace]: namespace };
}

/**
 * The volumes bound to the claims of `owned`, in claim order. Guarantees: only volumes a listed
 * claim names in `spec.volumeName` are returned (a Released volume of a deleted claim is not);
 * a volume deleted between the claim's LIST and its GET is left out, not an error; `undefined`
 * (nothing read) when no claim is bound.
 */
export async function readBoundVolumes(kube: KubePort, namespace: string, instance: string, owned: OwnedObjects, signal: AbortSignal): Promise<IPersistentVolume[] | undefined> {
  const names = boundVolumeNames(owned);
  if (names.length === 0) return undefined;
  const labelled = await withinBudget(signal, 'list PersistentVolumes', () => kube.listPersistentVolumes(volumeLabels(namespace, instance)));
  const byName = new Map<string, KubeObject>(labelled.items.map((pv) => [pv.metadata.name ?? '', pv]));
  const missing = names.filter((name) => !byName.has(name));
  const fetched = await Promise.all(missing.map((name) => withinBudget(signal, `get PersistentVolume ${name}`, () => getIfExists(kube, name))));
  for (const pv of fetched) if (pv) byName.set(pv.metadata.name ?? '', pv);
  return plainJson<IPersistentVolume[]>(names.flatMap((name) => { const pv = byName.get(name); return pv ? [pv] : []; }));
}

/** The volume names the claims of `owned` are bound to (`spec.volumeName`), in claim order. */
export function boundVolumeNames(owned: OwnedObjects): string[] {
  return owned.PersistentVolumeClaim.flatMap((pvc) => (pvc.spec?.volumeName ? [pvc.spec.volumeName] : []));
}

async function getIfExists(kube: KubePort, name: string): Promise<KubeObject | undefined> {
  try {
    return await kube.getPersistentVolume(name);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}
