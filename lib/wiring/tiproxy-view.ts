/**
 * Reading TiProxy into the snapshot: each listed pod's `GET /api/debug/health` on port 3080, as TiDB
 * Operator v1.6's TiProxy status sync asks every member. A pod that does not answer is a member not
 * healthy, with why; the read never throws, so the rules can tell.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TiproxyPort } from '../components/port.js';
import type { TiproxyHealthView, TiproxyView } from '../model/tiproxy.js';
import { errorText } from '../step/error-outcome.js';

async function readHealth(tiproxy: TiproxyPort, podName: string): Promise<TiproxyHealthView> {
  try {
    const health = await tiproxy.health(podName);
    return health.healthy ? { podName, healthy: true, info: health.info } : { podName, healthy: false, detail: health.detail };
  } catch (err) {
    return { podName, healthy: false, detail: errorText(err) };
  }
}

/** TiProxy's view from its own pods (terminating pods are not asked). */
export async function readTiproxy(tiproxy: TiproxyPort, pods: readonly IPod[]): Promise<TiproxyView> {
  const live = pods.filter((p) => p.metadata?.deletionTimestamp === undefined).map((p) => p.metadata?.name ?? '');
  const members = await Promise.all(live.map((name) => readHealth(tiproxy, name)));
  return { members: Object.fromEntries(members.map((m) => [m.podName, m])) };
}
