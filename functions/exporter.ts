/**
 * Lambda entry point for the exporter (EventBridge Scheduler, every `exporterSessionMinutes`, 15): one bounded watch
 * session over TidbClusters and the StatefulSets, Pods and PVCs they manage, forwarding coalesced
 * reconcile triggers to the queue and checkpointing the watch positions in the state table
 * (lib/exporter/lambda.ts); with several EKS clusters registered (`EKS_CLUSTERS`), one such session
 * per cluster, side by side (lib/exporter/fleet.ts). Sessions end a safety margin before the function's timeout.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type FleetSessionSummary, fleetExporterFromEnv } from '../lib/exporter/fleet.js';
import type { LambdaExporter } from '../lib/exporter/lambda.js';

/**
 * Builds the handler around an exporter made on first use (`build`, by default from the process
 * environment), so a warm container keeps its clients and its last session's carry, and a
 * configuration error fails the invocation naming every bad variable.
 */
export function createExporterHandler(
  build: () => Pick<LambdaExporter, 'run'> | { run(remainingMs: number): Promise<FleetSessionSummary> } | Promise<{ run(remainingMs: number): Promise<FleetSessionSummary> }> = () => fleetExporterFromEnv(process.env),
) {
  let exporter: { run(remainingMs: number): Promise<FleetSessionSummary> } | undefined;
  return middy<unknown, FleetSessionSummary, Error, Context>().handler(async (_event, context) => {
    if (exporter === undefined) {
      // A synchronous builder (tests, a registry that needs no DescribeCluster) starts the session without an extra turn.
      const built = build();
      exporter = built instanceof Promise ? await built : built;
    }
    return exporter.run(context.getRemainingTimeInMillis());
  });
}

/** The deployed handler (`functions/exporter.handler` in serverless.yml). */
export const handler = createExporterHandler();
