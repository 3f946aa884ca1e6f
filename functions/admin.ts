/**
 * Lambda entry point for operator actions, invoked with IAM (`aws lambda invoke`): reconcile now,
 * force-upgrade (PD), pause, resume, status, history (`lib/wiring/admin.ts`). Every answer is data —
 * `{ok: true, action, cluster, ...}` or `{ok: false, error, field}` — so an invalid request or a
 * missing cluster reads as a reason, never as a function error.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { runAdmin, type AdminResult } from '../lib/wiring/admin.js';
import { invocationOf, lambdaRuntime, type Runtime } from '../lib/wiring/ports.js';

/** What the handler is built from: `runtime` builds the ports (default: from the environment). */
export type AdminHandlerOptions = { readonly runtime?: () => Runtime };

/**
 * Builds the handler around a runtime made on first use (see `createReconcileHandler`). The request
 * is validated first; a runtime that cannot be built (a configuration error) is answered as
 * `{ok: false}` whose error names the variables (no `field`: that names request fields only).
 */
export function createAdminHandler(options: AdminHandlerOptions = {}) {
  const build = options.runtime ?? (() => lambdaRuntime());
  let runtime: Runtime | undefined;
  const getRuntime = (): Runtime => (runtime ??= build());
  return middy<unknown, AdminResult, Error, Context>().handler(async (event, context) => runAdmin(getRuntime, event, invocationOf(context)));
}

/** The deployed handler (`functions/admin.handler` in serverless.yml). */
export const handler = createAdminHandler();
