/**
 * Lambda entry point for the reconcile queue (SQS, `ReportBatchItemFailures`). Each record's body is
 * parsed with `parseReconcileMessage`; the step engine that would run one reconcile step per message
 * is not wired yet, so every record is reported as failed (malformed ones with a `TerminalError`
 * naming the bad field) and nothing is ever acknowledged without having been reconciled.
 */
import middy from '@middy/core';
import sqsPartialBatchFailure from '@middy/sqs-partial-batch-failure';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { TerminalError } from '../lib/platform/errors.js';
import { parseReconcileMessage } from '../lib/queue/message.js';

/** Writes one structured log line; the default prints it as JSON on stderr. */
export type LogLine = (line: Record<string, unknown>) => void;

/** What the reconcile handler is built from; every field has a production default. */
export type ReconcileHandlerOptions = {
  readonly log?: LogLine;
};

/**
 * Builds the middy handler. Guarantees: the response lists, in `batchItemFailures`, every record
 * whose processing failed, and one log line is written per failed record (message id, error name,
 * field when known, message). With no engine wired, that is every record of the batch.
 */
export function createReconcileHandler(options: ReconcileHandlerOptions = {}) {
  const log = options.log ?? logToStderr;
  // The middleware turns the settled results (in record order) into batchItemFailures.
  return middy<SQSEvent, SQSBatchResponse | PromiseSettledResult<void>[], Error, Context>()
    .use(sqsPartialBatchFailure({ logger: (reason: unknown, record: SQSRecord) => log(failureLine(reason, record)) }))
    .handler(async (event) => Promise.allSettled(event.Records.map(processRecord)));
}

/** The deployed handler (`functions/reconcile.handler` in serverless.yml). */
export const handler = createReconcileHandler();

async function processRecord(record: SQSRecord): Promise<void> {
  const parsed = parseReconcileMessage(record.body);
  if (!parsed.ok) {
    throw new TerminalError(`malformed reconcile message: ${parsed.error.message}`, { field: parsed.error.field });
  }
  // Failing (rather than acknowledging) keeps the message: it is retried and then kept in the DLQ.
  throw new Error(`reconcile engine not available yet: ${parsed.message.key} was not reconciled`);
}

function failureLine(reason: unknown, record: SQSRecord): Record<string, unknown> {
  const error = reason instanceof Error ? reason : new Error(String(reason));
  return {
    level: 'warn',
    msg: 'reconcile record failed',
    messageId: record.messageId,
    receiveCount: record.attributes.ApproximateReceiveCount,
    error: error.name,
    ...(error instanceof TerminalError && error.field !== undefined ? { field: error.field } : {}),
    detail: error.message,
  };
}

function logToStderr(line: Record<string, unknown>): void {
  console.warn(JSON.stringify(line));
}
