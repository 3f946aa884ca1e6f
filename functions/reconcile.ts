/**
 * Lambda entry point for the reconcile queue (SQS, `ReportBatchItemFailures`): one reconcile step
 * per cluster key of the batch (`lib/wiring/reconcile.ts`), the time budget taken from the Lambda
 * context. Records whose step asks for redelivery, and malformed records, are reported as batch item
 * failures; a malformed record so ends in the dead-letter queue after `maxReceiveCount` deliveries,
 * logged and counted on each (the reasoning is in `lib/wiring/reconcile.ts`). An event that is not
 * SQS-shaped fails with an error naming the field.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type Fleet, fleetBuilder } from '../lib/wiring/fleet.js';
import { reconcileFleetEvent } from '../lib/wiring/fleet-reconcile.js';
import { invocationOf, type Runtime } from '../lib/wiring/ports.js';

/**
 * What the handler is built from: `fleet` builds one runtime per registered EKS cluster (default:
 * from the environment, docs/adr/0027); `runtime` is a fleet of one.
 */
export type ReconcileHandlerOptions = { readonly runtime?: () => Runtime; readonly fleet?: () => Fleet };

/**
 * Builds the handler around a runtime made on first use, so a warm container keeps its clients and a
 * configuration error fails the invocation (the batch is redelivered) naming every bad variable.
 * Tests and the local stack pass `runtime` (e.g. `localRuntime(...)`); nothing else differs.
 */
export function createReconcileHandler(options: ReconcileHandlerOptions = {}) {
  const build = fleetBuilder(options);
  let fleet: Fleet | undefined;
  return middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event, context) => {
    fleet ??= await build();
    // The event is read defensively: a direct invoke may pass anything, and gets an error naming the field.
    return reconcileFleetEvent(fleet, event as unknown, invocationOf(context));
  });
}

/** The deployed handler (`functions/reconcile.handler` in serverless.yml). */
export const handler = createReconcileHandler();
