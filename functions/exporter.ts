/**
 * Lambda entry point for the exporter: a bounded Kubernetes watch session, started every minute,
 * that forwards TidbCluster/StatefulSet/Pod/PVC changes to the reconcile queue. Until the runtime is
 * wired it fails loudly on every invocation instead of pretending to have watched anything.
 */
import middy from '@middy/core';

/** The deployed handler (`functions/exporter.handler` in serverless.yml); always throws for now. */
export const handler = middy<unknown, never>().handler(async () => {
  throw new Error('exporter is not available until the runtime is wired');
});
