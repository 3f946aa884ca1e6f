/**
 * The timer function's work: a wake-up `{key, kind}` (an EventBridge Scheduler target payload, or an
 * operator's invoke) becomes one reconcile message with reason `timer:<kind>`. It is enqueued rather
 * than run here, so the woken step takes the same path as every other trigger — the lease, one step
 * per key per batch, redelivery when it fails, the dead-letter queue — and this function needs no
 * Kubernetes access at all.
 */

import { foreignClusterProblem, unwatchedNamespaceProblem } from '../model/key.js';
import { parseObjectKey } from '../model/object-key.js';
import { METRIC } from '../platform/metrics.js';
import { clipForEcho, quoteForEcho } from '../model/echo.js';
import { timerReason } from '../timer/timers.js';
import type { EnqueueRuntime } from './enqueue-runtime.js';

/** The result: what was enqueued, or why the payload was refused (`field` names the bad part). */
export type TimerResult =
  | { readonly ok: true; readonly key: string; readonly kind: string; readonly reason: string }
  | { readonly ok: false; readonly error: string; readonly field: string };

// Timer kinds go into schedule names and message reasons: keep them short and plain.
const KIND = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Validates and enqueues. Guarantees: a malformed payload is answered `ok: false` with the field,
 * logged at error level and counted (`MalformedMessages`) — retrying it could never help; a failure
 * to enqueue is thrown, so the invoker (Scheduler's retry policy, or the operator) tries again.
 */
export async function wakeFromTimer(runtime: EnqueueRuntime, payload: unknown): Promise<TimerResult> {
  try {
    const parsed = parseTimerPayload(payload, runtime.k8sCluster, runtime.watchNamespaces, runtime.k8sClusters);
    if (!parsed.ok) {
      runtime.metrics.count(METRIC.malformedMessages);
      runtime.logger.error('malformed timer payload', { field: parsed.field, error: parsed.error });
      return parsed;
    }
    const reason = timerReason(parsed.kind);
    await runtime.queue.send([{ message: { key: parsed.key, reason, enqueuedAtMs: runtime.clock.nowMs() } }]);
    runtime.logger.info('timer enqueued a wake-up', { key: parsed.key, reason });
    return { ok: true, key: parsed.key, kind: parsed.kind, reason };
  } finally {
    runtime.metrics.flush();
  }
}

type Parsed = { readonly ok: true; readonly key: string; readonly kind: string } | { readonly ok: false; readonly error: string; readonly field: string };

/**
 * `{key, kind}`: a cluster key that parses (of the Kubernetes cluster `k8sCluster`, when given: this
 * deployment steps no other; of one of `registered` when several EKS clusters are, docs/adr/0027)
 * and a plain timer kind; other fields are ignored.
 */
export function parseTimerPayload(payload: unknown, k8sCluster?: string, watchNamespaces?: readonly string[], registered?: readonly string[]): Parsed {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { ok: false, field: 'payload', error: 'the timer payload must be a JSON object {key, kind}' };
  }
  const { key, kind } = payload as Record<string, unknown>;
  if (typeof key !== 'string') return { ok: false, field: 'key', error: 'key must be a string "<k8sCluster>/<namespace>/<name>"' };
  // Any controller's key (`object-key.ts`): a TidbCluster's, or a kind-prefixed Backup's or Restore's.
  const ref = parseObjectKey(key);
  if (!ref.ok) return { ok: false, field: ref.field === 'key' ? 'key' : `key.${ref.field}`, error: ref.message };
  const foreign = registered !== undefined && registered.length > 1 ? unregisteredProblem(ref.ref.k8sCluster, registered) : foreignClusterProblem(ref.ref, k8sCluster);
  if (foreign !== undefined) return { ok: false, field: 'key.k8sCluster', error: foreign };
  const unwatched = unwatchedNamespaceProblem(ref.ref, watchNamespaces);
  if (unwatched !== undefined) return { ok: false, field: 'key.namespace', error: unwatched };
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    return { ok: false, field: 'kind', error: `kind must be 1-64 letters, digits, '.', '_' or '-', got ${typeof kind === 'string' ? quoteForEcho(kind) : clipForEcho(String(JSON.stringify(kind)))}` };
  }
  return { ok: true, key, kind };
}

function unregisteredProblem(k8sCluster: string, registered: readonly string[]): string | undefined {
  if (registered.includes(k8sCluster)) return undefined;
  return `key.k8sCluster ${quoteForEcho(k8sCluster)} is not an EKS cluster this deployment manages (registered: ${registered.join(', ')})`;
}
