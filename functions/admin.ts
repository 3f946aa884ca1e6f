/**
 * Lambda entry point for operator actions, invoked with IAM (`aws lambda invoke`): reconcile now,
 * force-upgrade a component, pause, resume, status, history. The input is validated with
 * `parseAdminRequest`; no action is carried out until the runtime is wired, and the result says so.
 */
import middy from '@middy/core';
import { parseAdminRequest } from '../lib/platform/admin-request.js';

/**
 * The admin function's response. Errors are returned, not thrown, so the caller gets a readable
 * reason: `invalid-request` names the bad field, `not-available` the action that cannot run yet.
 * Until the runtime is wired every response is an error; success results arrive with it.
 */
export type AdminResult = {
  readonly ok: false;
  readonly error: { readonly code: 'invalid-request' | 'not-available'; readonly message: string; readonly field?: string };
};

/**
 * Maps one admin payload to its result. Guarantees: never throws; an invalid payload yields
 * `invalid-request` with the field, and a valid one yields `not-available` until the runtime is wired.
 */
export function runAdmin(event: unknown): AdminResult {
  const parsed = parseAdminRequest(event);
  if (!parsed.ok) {
    return { ok: false, error: { code: 'invalid-request', message: parsed.error.message, field: parsed.error.field } };
  }
  const { action, cluster } = parsed.request;
  return {
    ok: false,
    error: {
      code: 'not-available',
      message: `${action} for ${cluster.namespace}/${cluster.name} is not available until the runtime is wired`,
    },
  };
}

/** The deployed handler (`functions/admin.handler` in serverless.yml). */
export const handler = middy<unknown, AdminResult>().handler(async (event) => runAdmin(event));
