/**
 * Lambda entry point for the periodic sweep (EventBridge Scheduler, every 5 minutes): every
 * TidbCluster is enqueued once, unless its own wake-up is due sooner, and the fleet's health is
 * reported as metrics (`lib/wiring/sweep.ts`). A failed sweep throws, so the scheduler retries it.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { invocationOf, lambdaRuntime, type Runtime } from '../lib/wiring/ports.js';
import { sweepFleet, type SweepSummary } from '../lib/wiring/sweep.js';

/** What the handler is built from: `runtime` builds the ports (default: from the environment). */
export type SweepHandlerOptions = { readonly runtime?: () => Runtime };

/** Builds the handler around a runtime made on first use (see `createReconcileHandler`). */
export function createSweepHandler(options: SweepHandlerOptions = {}) {
  const build = options.runtime ?? (() => lambdaRuntime());
  let runtime: Runtime | undefined;
  return middy<unknown, SweepSummary, Error, Context>().handler(async (_event, context) => {
    runtime ??= build();
    return sweepFleet(runtime, invocationOf(context));
  });
}

/** The deployed handler (`functions/sweep.handler` in serverless.yml). */
export const handler = createSweepHandler();
