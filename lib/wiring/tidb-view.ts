/**
 * Reading the TiDB servers into the snapshot's `TidbView` (reference §3.2): `GET /status` on each
 * TiDB pod that runs — Running, with an address, not being deleted — all together. As TiDB
 * Operator, an answer below 400 is healthy and an answer ≥ 400 or a timeout is not; a pod that does
 * not run is not asked (the status rule counts it unhealthy). Only a failure of our own path to the
 * pods (the API server, credentials) fails the read.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbStatusPort } from '../components/port.js';
import type { OwnedObjects } from '../model/kube.js';
import type { TidbReadFailure, TidbServerHealth, TidbView } from '../model/tidb.js';

/** Whether a pod's TiDB server can be asked: Running, with an IP, not terminating. */
export function isServingPod(pod: IPod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.podIP ?? '') !== '' && pod.metadata?.deletionTimestamp === undefined;
}

/** The view with every running TiDB pod's `/status` verdict (see the module comment). */
export async function readTidbServers(objects: OwnedObjects, tidb: TidbStatusPort): Promise<TidbView> {
  const pods = objects.Pod.filter(isServingPod).map((p) => p.metadata?.name ?? '').filter((name) => name !== '');
  const verdicts = await Promise.all(
    pods.map(async (name): Promise<[string, TidbServerHealth]> => {
      const probe = await tidb.probe(name);
      return [name, probe.healthy ? { healthy: true } : { healthy: false, detail: probe.detail }];
    }),
  );
  return { servers: Object.fromEntries(verdicts) };
}

/** Every failure to read the servers is of our own path (a TiDB verdict is never thrown). */
export const tidbReadFailureOf = (_err: unknown): TidbReadFailure => 'unreachable';
