/**
 * Lambda entry point for timers (docs/ARCHITECTURE.md, Timers), invoked with `{key, kind}`: the wake-up is enqueued as
 * a `timer:<kind>` reconcile message (`lib/wiring/timer.ts`). One-time EventBridge Scheduler
 * schedules deliver to the reconcile queue directly, so this function has no event source; it is for
 * targets and operators that can only invoke a function. A malformed payload is answered with the
 * bad field; a failure to enqueue throws, so the invoker retries.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type EnqueueRuntime, lambdaEnqueueRuntime } from '../lib/wiring/enqueue-runtime.js';
import { wakeFromTimer, type TimerResult } from '../lib/wiring/timer.js';

/**
 * What the handler is built from: `runtime` builds the ports (default: from the environment, only
 * the queue: this function needs nothing else, so its bundle loads nothing else).
 */
export type TimerHandlerOptions = { readonly runtime?: () => EnqueueRuntime };

/** Builds the handler around a runtime made on first use (see `createReconcileHandler`). */
export function createTimerHandler(options: TimerHandlerOptions = {}) {
  const build = options.runtime ?? (() => lambdaEnqueueRuntime());
  let runtime: EnqueueRuntime | undefined;
  return middy<unknown, TimerResult, Error, Context>().handler(async (event) => {
    runtime ??= build();
    return wakeFromTimer(runtime, event);
  });
}

/** The deployed handler (`functions/timer.handler` in serverless.yml). */
export const handler = createTimerHandler();
