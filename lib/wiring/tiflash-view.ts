/**
 * Reading TiFlash into the snapshot's `TiflashView` (reference §3.3): the proxy's
 * `/tiflash/store-status` of every Ready TiFlash pod that already runs its StatefulSet's update
 * revision while that StatefulSet is still rolling — the pods TiDB Operator's upgrader asks before
 * it moves on — and only for TiFlash ≥ v5.1.2, the first that serves it. Asked together; a pod that
 * does not answer gets its error, not the whole read.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { OwnedObjects } from '../model/kube.js';
import type { TiflashStoreStatusRead, TiflashView } from '../model/tiflash.js';
import type { TiflashStatusPort } from '../components/port.js';
import { imageTagOf, isVersionAtLeast } from '../reconcile/member/cmpver.js';

/** The first TiFlash version that serves `/tiflash/store-status` (TiDB Operator issue 4159). */
export const TIFLASH_STORE_STATUS_SINCE = 'v5.1.2';

const isReady = (pod: IPod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

function servesStoreStatus(pod: IPod): boolean {
  const image = pod.spec?.containers.find((c) => c.name === 'tiflash')?.image ?? '';
  return isVersionAtLeast(imageTagOf(image), TIFLASH_STORE_STATUS_SINCE) === true;
}

/** The pods whose store status an upgrade waits on (see the module comment), by name. */
export function podsToAsk(objects: Pick<OwnedObjects, 'Pod' | 'StatefulSet'>): string[] {
  const set = objects.StatefulSet[0];
  const update = set?.status?.updateRevision;
  if (!set || update === undefined || set.status?.currentRevision === update) return [];
  return objects.Pod.filter((p) => p.metadata?.labels?.['controller-revision-hash'] === update && isReady(p) && servesStoreStatus(p)).map(
    (p) => p.metadata?.name ?? '',
  );
}

/** The view: each pod of `podsToAsk` with its answer or its error. */
export async function readTiflashView(objects: Pick<OwnedObjects, 'Pod' | 'StatefulSet'>, tiflash: TiflashStatusPort): Promise<TiflashView> {
  const pods = podsToAsk(objects);
  const reads = await Promise.all(
    pods.map(async (pod): Promise<TiflashStoreStatusRead> => {
      try {
        return { status: await tiflash.getStoreStatus(pod) };
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  return { storeStatus: Object.fromEntries(pods.map((pod, i) => [pod, reads[i] ?? { error: 'not read' }])) };
}
