/**
 * The reconcile function's work for a deployment of several EKS clusters (docs/adr/0027): one SQS
 * batch is split by the EKS cluster each key names, and each part runs on that cluster's runtime
 * (`reconcileEvent`) at the same time as the others, so a cluster whose API server is slow or down
 * holds up only its own steps. A message naming an EKS cluster that is not registered can never
 * succeed here: it is logged at error level naming the registered clusters, counted
 * (`MalformedMessages`) and reported as a batch item failure like every malformed message, so the
 * queue moves it to the dead-letter queue after `maxReceiveCount` (5) receives — no step, no claim,
 * no Kubernetes request, and no retry beyond those five. A fleet of one is `reconcileEvent` itself.
 */

import type { SQSBatchResponse } from 'aws-lambda';

import { METRIC } from '../platform/metrics.js';
import { parseReconcileMessage } from '../queue/message.js';
import { type Fleet, onlyRuntime, runtimeFor, unregisteredClusterProblem } from './fleet.js';
import type { Invocation, Runtime } from './ports.js';
import { reconcileEvent } from './reconcile.js';

/**
 * Runs one Lambda event over `fleet`. Guarantees: as `reconcileEvent` for a fleet of one; otherwise
 * each record is handled by the runtime of its key's EKS cluster (records that do not parse by the
 * first runtime, which rejects them as `reconcileEvent` does), the parts run concurrently, an event
 * that is not SQS-shaped throws as `reconcileEvent` does, and the failures come back in event order.
 */
export async function reconcileFleetEvent(fleet: Fleet, event: unknown, invocation: Invocation): Promise<SQSBatchResponse> {
  const only = onlyRuntime(fleet);
  const first = fleet.runtimes[0];
  const records = recordsOf(event);
  if (only !== undefined || first === undefined || records === undefined) return reconcileEvent(only ?? first ?? failNoRuntime(), event, invocation);
  const parts = new Map<Runtime, unknown[]>();
  const refused: string[] = [];
  for (const record of records) {
    const cluster = clusterOf(record);
    const runtime = cluster === undefined ? first : runtimeFor(fleet, cluster);
    if (runtime === undefined && cluster !== undefined) {
      const id = refuse(first, fleet, record, cluster);
      if (id !== undefined) refused.push(id);
      continue;
    }
    const target = runtime ?? first;
    parts.set(target, [...(parts.get(target) ?? []), record]);
  }
  const answers = await Promise.all([...parts].map(([runtime, part]) => reconcileEvent(runtime, { Records: part }, invocation)));
  if (refused.length > 0) first.metrics.flush();
  const failed = new Set([...refused, ...answers.flatMap((a) => a.batchItemFailures.map((f) => f.itemIdentifier))]);
  const ids = records.map(messageIdOf).filter((id): id is string => id !== undefined && failed.delete(id));
  return { batchItemFailures: ids.map((itemIdentifier) => ({ itemIdentifier })) };
}

function recordsOf(event: unknown): readonly unknown[] | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const records = (event as { Records?: unknown }).Records;
  return Array.isArray(records) ? records : undefined;
}

/** The EKS cluster a record's key names, when its body parses as a reconcile message. */
function clusterOf(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const parsed = parseReconcileMessage((record as { body?: unknown }).body);
  return parsed.ok ? parsed.message.ref.k8sCluster : undefined;
}

function messageIdOf(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const id = (record as { messageId?: unknown }).messageId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function refuse(runtime: Runtime, fleet: Fleet, record: unknown, cluster: string): string | undefined {
  const messageId = messageIdOf(record);
  runtime.metrics.count(METRIC.malformedMessages);
  runtime.logger.error('reconcile message for an unregistered EKS cluster: left for the dead-letter queue', { messageId, field: 'key.k8sCluster', error: unregisteredClusterProblem(fleet, cluster) });
  return messageId;
}

function failNoRuntime(): never {
  throw new TypeError('a fleet has at least one EKS cluster');
}
