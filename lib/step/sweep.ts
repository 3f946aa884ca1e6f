/**
 * The sweep: the level-based backstop (kopf#698, DESIGN §2). Every interval it lists every TidbCluster
 * and enqueues its key, so a cluster is stepped at least once per interval whatever happened to its
 * events, timers or messages (lost, dropped, sent to the DLQ). Keys whose armed wake-up is about to
 * fire are left to it.
 */

import type { ClusterKey } from '../model/key.js';
import type { Clock } from '../platform/clock.js';
import type { SweepConfig } from '../platform/config.js';
import type { Logger } from '../platform/logger.js';
import { METRIC, type Metrics } from '../platform/metrics.js';
import { chunk, SQS_MAX_BATCH, type ReconcileQueue } from '../queue/port.js';
import type { StateRecord, StateStore } from '../state/port.js';

/** Lists the keys of every TidbCluster the reconciler is responsible for (a LIST across namespaces). */
export interface ClusterLister {
  listClusterKeys(signal?: AbortSignal): Promise<ClusterKey[]>;
}

/** The sweep's ports. */
export type SweepPorts = {
  readonly lister: ClusterLister;
  readonly state: Pick<StateStore, 'get'>;
  readonly queue: Pick<ReconcileQueue, 'send'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
};

/** What one sweep did: how many keys it listed, which it enqueued, and which it left to their wake-up. */
export type SweepResult = {
  readonly listed: number;
  readonly enqueued: readonly ClusterKey[];
  readonly dueSoon: readonly { readonly key: ClusterKey; readonly nextWakeAtMs: number }[];
};

/** The reason sweep messages carry. */
export const SWEEP_REASON = 'sweep';

/**
 * Whether a key's armed wake-up fires within `dueWithinMs` from now (strictly in the future: a past
 * wake-up may have been lost, so it does not count).
 */
export function isDueSoon(
  state: Pick<StateRecord, 'nextWakeAtMs'> | undefined,
  nowMs: number,
  dueWithinMs: number,
): boolean {
  const at = state?.nextWakeAtMs;
  return at !== undefined && at > nowMs && at <= nowMs + dueWithinMs;
}

/**
 * Sweeps. Guarantees: every listed key is either enqueued (reason `sweep`) or reported as due soon;
 * keys go out in batches of 10 (one SendMessageBatch each). Listing or sending errors propagate:
 * a failed sweep is retried by its scheduler and repeated at the next interval anyway.
 */
export async function runSweep(ports: SweepPorts, config: SweepConfig, signal?: AbortSignal): Promise<SweepResult> {
  const keys = await ports.lister.listClusterKeys(signal);
  const enqueued: ClusterKey[] = [];
  const dueSoon: { key: ClusterKey; nextWakeAtMs: number }[] = [];
  for (const batch of chunk(keys, SQS_MAX_BATCH)) {
    const nowMs = ports.clock.nowMs();
    const states = await Promise.all(batch.map((key) => ports.state.get(key, { signal })));
    const send: ClusterKey[] = [];
    batch.forEach((key, i) => {
      const state = states[i];
      if (state?.nextWakeAtMs !== undefined && isDueSoon(state, nowMs, config.dueWithinMs)) {
        dueSoon.push({ key, nextWakeAtMs: state.nextWakeAtMs });
      } else send.push(key);
    });
    const messages = send.map((key) => ({ message: { key, reason: SWEEP_REASON, enqueuedAtMs: nowMs } }));
    if (messages.length > 0) await ports.queue.send(messages);
    enqueued.push(...send);
  }
  ports.metrics.count(METRIC.sweepEnqueued, enqueued.length);
  ports.logger.info('sweep', { listed: keys.length, enqueued: enqueued.length, dueSoon: dueSoon.length });
  return { listed: keys.length, enqueued, dueSoon };
}
