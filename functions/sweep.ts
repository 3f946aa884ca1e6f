/**
 * Lambda entry point for the periodic sweep (EventBridge Scheduler, every 5 minutes): every
 * TidbCluster is enqueued once, unless its own wake-up is due sooner, and the fleet's health is
 * reported as metrics (`lib/wiring/sweep.ts`). A failed sweep throws, so the scheduler retries it.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type Fleet, fleetBuilder } from '../lib/wiring/fleet.js';
import { sweepEveryCluster, type FleetSweepSummary } from '../lib/wiring/fleet-sweep.js';
import { invocationOf, type Runtime } from '../lib/wiring/ports.js';

/**
 * What the handler is built from: `fleet` builds one runtime per registered EKS cluster (default:
 * from the environment, docs/adr/0027), each swept on its own; `runtime` is a fleet of one.
 */
export type SweepHandlerOptions = { readonly runtime?: () => Runtime; readonly fleet?: () => Fleet };

/** Builds the handler around a runtime made on first use (see `createReconcileHandler`). */
export function createSweepHandler(options: SweepHandlerOptions = {}) {
  const build = fleetBuilder(options);
  let fleet: Fleet | undefined;
  return middy<unknown, FleetSweepSummary, Error, Context>().handler(async (_event, context) => {
    fleet ??= await build();
    return sweepEveryCluster(fleet, invocationOf(context));
  });
}

/** The deployed handler (`functions/sweep.handler` in serverless.yml). */
export const handler = createSweepHandler();
