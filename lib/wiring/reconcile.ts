/**
 * The reconcile function's work for one SQS batch: malformed messages are set aside, the rest go to
 * the engine's `runBatch` (one step per key), and the two lists of failures make the partial batch
 * response, in record order.
 *
 * A malformed message can never succeed, yet it is reported as a batch item failure, not
 * acknowledged: DESIGN §2 sends poison messages to the dead-letter queue after `maxReceiveCount`
 * (5), where an operator can read the body and fix its producer — an acknowledged one would be gone
 * with only a log line to show for it. The cost is four more receives that fail at parsing, before any
 * claim or request. Each one is logged at error level with the bad field and counted
 * (`MalformedMessages`), so an alarm sees it long before the DLQ's. The key it may have named is
 * still stepped by the sweep.
 */

import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';

import { METRIC } from '../platform/metrics.js';
import { parseReconcileMessage } from '../queue/message.js';
import { runBatch, type BatchRecord } from '../step/batch.js';
import { deadlineOf, stepPorts, type Invocation, type Runtime } from './ports.js';

/** The record fields the reconcile function reads (an `SQSRecord` fits). */
export type ReconcileRecord = BatchRecord & { readonly attributes?: Partial<SQSRecord['attributes']> };

/**
 * Runs one batch. Guarantees: never throws; a record is in `batchItemFailures` exactly when it is
 * malformed or its step asks for redelivery; metrics are flushed before returning.
 */
export async function reconcileRecords(runtime: Runtime, records: readonly ReconcileRecord[], invocation: Invocation): Promise<SQSBatchResponse> {
  try {
    const wellFormed: ReconcileRecord[] = [];
    const failed = new Set<string>();
    for (const record of records) {
      if (isWellFormed(runtime, record)) wellFormed.push(record);
      else failed.add(record.messageId);
    }
    const ports = stepPorts(runtime, deadlineOf(runtime, invocation));
    const deps = { ports, config: runtime.config.step, invocationId: invocation.invocationId, remainingMs: invocation.remainingMs };
    const { response } = await runBatch(wellFormed, deps);
    for (const failure of response.batchItemFailures) failed.add(failure.itemIdentifier);
    return { batchItemFailures: records.filter((r) => failed.has(r.messageId)).map((r) => ({ itemIdentifier: r.messageId })) };
  } finally {
    runtime.metrics.flush();
  }
}

function isWellFormed(runtime: Runtime, record: ReconcileRecord): boolean {
  const parsed = parseReconcileMessage(record.body);
  if (parsed.ok) return true;
  runtime.metrics.count(METRIC.malformedMessages);
  runtime.logger.error('malformed reconcile message: left for the dead-letter queue', {
    messageId: record.messageId,
    receiveCount: record.attributes?.ApproximateReceiveCount,
    field: parsed.error.field,
    error: parsed.error.message,
    body: record.body.slice(0, 256),
  });
  return false;
}
