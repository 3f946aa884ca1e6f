/**
 * The claims of a TidbDashboard or TidbNGMonitoring (one label-selected LIST) and the
 * PersistentVolumes the bound ones name (a GET each), for their reclaim-policy rule. Reads only.
 */

import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import type { ObjectReader } from '../kube/port.js';

/** The claims carrying `labels` in `namespace` and the volumes bound to them (a volume gone meanwhile is left out). */
export async function observeCompanionVolumes(objects: ObjectReader, namespace: string, labels: Readonly<Record<string, string>>): Promise<{ claims: IPersistentVolumeClaim[]; volumes: IPersistentVolume[] }> {
  const claims = (await objects.listObjects('PersistentVolumeClaim', namespace, labels)) as IPersistentVolumeClaim[];
  const names = claims.flatMap((c) => (c.status?.phase === 'Bound' && c.spec?.volumeName ? [c.spec.volumeName] : []));
  const volumes = await Promise.all(names.map((name) => objects.getObject('PersistentVolume', '', name) as Promise<IPersistentVolume | undefined>));
  return { claims, volumes: volumes.filter((v): v is IPersistentVolume => v !== undefined) };
}
