/**
 * Lambda entry point for timers (DESIGN §3). One-time EventBridge Scheduler schedules deliver their
 * wake-ups to the reconcile queue directly, so this function has no event source and is invoked with
 * IAM only. Until the runtime is wired it fails loudly on every invocation.
 */
import middy from '@middy/core';

/** The deployed handler (`functions/timer.handler` in serverless.yml); always throws for now. */
export const handler = middy<unknown, never>().handler(async () => {
  throw new Error('timer is not available until the runtime is wired');
});
