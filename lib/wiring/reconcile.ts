/**
 * The reconcile function's work for one SQS batch: malformed messages are set aside, the rest go to
 * the engine's `runBatch` (one step per key), and the two lists of failures make the partial batch
 * response, in record order.
 *
 * A malformed message can never succeed, yet it is reported as a batch item failure, not
 * acknowledged: the queue (docs/ARCHITECTURE.md, Queue semantics) sends poison messages to the dead-letter queue after `maxReceiveCount`
 * (5), where an operator can read the body and fix its producer — an acknowledged one would be gone
 * with only a log line to show for it. The cost is four more receives that fail at parsing, before any
 * claim or request. Each one is logged at error level with the bad field and counted
 * (`MalformedMessages`), so an alarm sees it long before the DLQ's. The key it may have named is
 * still stepped by the sweep.
 *
 * A key naming another Kubernetes cluster than the runtime's is malformed too: this deployment can
 * only read its own cluster. An event that is not SQS-shaped fails as a whole with a `TerminalError`
 * naming the field; a record in it without a `messageId` cannot be reported (Lambda would fail the
 * whole batch on an unknown item identifier), so it is logged and counted and the rest still step.
 */

import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';

import { TerminalError } from '../platform/errors.js';
import { METRIC } from '../platform/metrics.js';
import { clipForEcho } from '../model/echo.js';
import { parseReconcileMessage } from '../queue/message.js';
import { readSqsRecords, type SqsRecordProblem } from '../queue/sqs-event.js';
import { runBatch, type BatchRecord } from '../step/batch.js';
import { deadlineOf, stepPorts, type Invocation, type Runtime } from './ports.js';

/** The record fields the reconcile function reads (an `SQSRecord` fits). */
export type ReconcileRecord = BatchRecord & { readonly attributes?: Partial<SQSRecord['attributes']> };

/**
 * Runs one Lambda event. Guarantees: an event without a `Records` array throws a `TerminalError`
 * naming the field (never a `TypeError`); otherwise as `reconcileRecords`, with each record that is
 * not SQS-shaped set aside like a malformed message (reported when it has a `messageId`).
 */
export async function reconcileEvent(runtime: Runtime, event: unknown, invocation: Invocation): Promise<SQSBatchResponse> {
  const read = readSqsRecords(event);
  if (!read.ok) {
    runtime.metrics.count(METRIC.malformedMessages);
    runtime.metrics.flush();
    runtime.logger.error('the reconcile function was invoked with an event that is not an SQS event', { field: read.field, error: read.message });
    throw new TerminalError(read.message, { field: read.field });
  }
  const rejected = read.problems.map((problem) => rejectRecord(runtime, problem));
  const response = await reconcileRecords(runtime, read.records, invocation);
  const failed = new Set([...rejected, ...response.batchItemFailures.map((f) => f.itemIdentifier)]);
  // In event order, each id once (SQS may deliver one message twice in a batch).
  const ids = read.messageIds.filter((id): id is string => id !== undefined && failed.delete(id));
  return { batchItemFailures: ids.map((itemIdentifier) => ({ itemIdentifier })) };
}

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
    const deps = { ports, k8sCluster: runtime.k8sCluster, config: runtime.config.step, invocationId: invocation.invocationId, remainingMs: invocation.remainingMs };
    const { response } = await runBatch(wellFormed, deps);
    for (const failure of response.batchItemFailures) failed.add(failure.itemIdentifier);
    return { batchItemFailures: records.filter((r) => failed.has(r.messageId)).map((r) => ({ itemIdentifier: r.messageId })) };
  } finally {
    runtime.metrics.flush();
  }
}

function rejectRecord(runtime: Runtime, problem: SqsRecordProblem): string | undefined {
  runtime.metrics.count(METRIC.malformedMessages);
  const fate = problem.messageId === undefined ? 'dropped: it has no messageId to report' : 'left for the dead-letter queue';
  runtime.logger.error(`malformed SQS record: ${fate}`, { messageId: problem.messageId, index: problem.index, field: problem.field, error: problem.message });
  return problem.messageId;
}

function isWellFormed(runtime: Runtime, record: ReconcileRecord): boolean {
  const parsed = parseReconcileMessage(record.body, { k8sCluster: runtime.k8sCluster, ...(runtime.config.watchNamespaces ? { watchNamespaces: runtime.config.watchNamespaces } : {}) });
  if (parsed.ok) return true;
  runtime.metrics.count(METRIC.malformedMessages);
  runtime.logger.error('malformed reconcile message: left for the dead-letter queue', {
    messageId: record.messageId,
    receiveCount: record.attributes?.ApproximateReceiveCount,
    field: parsed.error.field,
    error: parsed.error.message,
    // The error already quotes a bad field (clipped); the body is shown only when it is the problem.
    ...(parsed.error.field === 'body' ? { body: clipForEcho(record.body) } : {}),
  });
  return false;
}
