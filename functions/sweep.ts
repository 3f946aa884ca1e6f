/**
 * Lambda entry point for the periodic sweep (EventBridge Scheduler, every 5 minutes), which will
 * enqueue every TidbCluster so each is stepped at least once per interval. Until the runtime is
 * wired it fails loudly on every invocation instead of pretending to have swept anything.
 */
import middy from '@middy/core';

/** The deployed handler (`functions/sweep.handler` in serverless.yml); always throws for now. */
export const handler = middy<unknown, never>().handler(async () => {
  throw new Error('sweep is not available until the runtime is wired');
});
