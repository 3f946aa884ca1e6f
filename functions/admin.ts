/**
 * Lambda entry point for operator actions (`lib/wiring/admin.ts`): reconcile now, force-upgrade (PD),
 * pause, resume, status, history. Two ways in: the function URL (AWS_IAM auth: Lambda verifies the
 * caller's SigV4 signature and names the caller; every action, the mutating ones authorised by the
 * caller's Kubernetes RBAC) and a direct `aws lambda invoke` (no caller: status and history only).
 * Every answer is data — `{ok: true, action, cluster, ...}` or `{ok: false, error, field?}` — returned
 * as is to a direct invoke and as the body of a function URL response (200; 403 when the caller may
 * not act; 400/405 when the request cannot be read).
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { EksAccessEntries } from '../lib/eks/client.js';
import type { AccessEntries } from '../lib/eks/port.js';
import { readAdminEvent } from '../lib/platform/admin-caller.js';
import { runAdmin, type AdminAnswer } from '../lib/wiring/admin.js';
import { lambdaSettings } from '../lib/wiring/lambda-env.js';
import { redriveSettings } from '../lib/wiring/admin-redrive.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import { withoutSdkLogging } from '../lib/queue/aws-call.js';
import { SqsDeadLetterRedrive, type DeadLetterRedrive } from '../lib/queue/redrive.js';
import { type Fleet, fleetBuilder } from '../lib/wiring/fleet.js';
import { invocationOf, type Runtime } from '../lib/wiring/ports.js';

/**
 * What the handler is built from: `runtime` builds the ports (default: from the environment),
 * `accessEntries` the EKS cluster's access entries (default: the EKS API for CLUSTER_NAME in
 * AWS_REGION) and `redrive` the dead-letter redrive (default: SQS, the queues RECONCILE_DLQ_URL,
 * RECONCILE_DLQ_ARN and RECONCILE_QUEUE_ARN name).
 */
export type AdminHandlerOptions = {
  readonly runtime?: () => Runtime;
  /** The access entries of EKS cluster `k8sCluster` (default: the EKS API for that registered cluster). */
  readonly accessEntries?: (k8sCluster?: string) => AccessEntries;
  readonly redrive?: () => DeadLetterRedrive;
  /** One runtime per registered EKS cluster (docs/adr/0027; default: from the environment, or `runtime` alone). */
  readonly fleet?: () => Fleet;
};

/** A function URL's answer (payload format 2.0): the admin answer as the JSON body. */
export type AdminUrlResponse = { readonly statusCode: number; readonly headers: Record<string, string>; readonly body: string };

/**
 * Builds the handler around a runtime made on first use (see `createReconcileHandler`). The request
 * is validated first; a runtime that cannot be built (a configuration error) is answered as
 * `{ok: false}` whose error names the variables (no `field`: that names request fields only).
 */
export function createAdminHandler(options: AdminHandlerOptions = {}) {
  const buildFleet = fleetBuilder(options);
  const buildEntries = options.accessEntries ?? ((k8sCluster?: string) => eksAccessEntries(process.env, k8sCluster));
  const buildRedrive = options.redrive ?? (() => sqsRedrive(process.env));
  let fleet: Fleet | undefined;
  // The fleet is built (DescribeCluster included) before the request is run; a failure is kept and
  // thrown where the request first asks for a runtime, so it is answered as before, and retried next time.
  let fleetFailure: unknown;
  const entries = new Map<string, AccessEntries>();
  let redrive: DeadLetterRedrive | undefined;
  const getFleet = (): Fleet => fleet ?? raise(fleetFailure);
  const getRuntime = (): Runtime => getFleet().runtimes[0] ?? fail('a fleet has at least one EKS cluster');
  const getAccessEntries = (k8sCluster?: string): AccessEntries => {
    const name = k8sCluster ?? '';
    const known = entries.get(name) ?? buildEntries(k8sCluster);
    entries.set(name, known);
    return known;
  };
  const deps = { getRuntime, getFleet, getAccessEntries, getRedrive: (): DeadLetterRedrive => (redrive ??= buildRedrive()) };
  return middy<unknown, AdminAnswer | AdminUrlResponse, Error, Context>().handler(async (event, context) => {
    const read = readAdminEvent(event);
    if (read.kind === 'url-error') return urlResponse(read.statusCode, { ok: false, error: read.error });
    if (fleet === undefined) {
      try {
        fleet = await buildFleet();
        fleetFailure = undefined;
      } catch (err) {
        fleetFailure = err;
      }
    }
    const result = await runAdmin(deps, read, invocationOf(context));
    if (read.kind === 'direct') return result;
    return urlResponse(result.ok ? 200 : result.forbidden ? 403 : 200, result);
  });
}

function urlResponse(statusCode: number, result: AdminAnswer): AdminUrlResponse {
  return { statusCode, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(result) };
}

function sqsRedrive(env: NodeJS.ProcessEnv): DeadLetterRedrive {
  const queues = redriveSettings(env);
  return new SqsDeadLetterRedrive({ client: withoutSdkLogging(new SQSClient({ region: lambdaSettings(env).region })), ...queues });
}

/** The EKS API's access entries of registered cluster `k8sCluster` (default: the first), in that cluster's region. */
function eksAccessEntries(env: NodeJS.ProcessEnv, k8sCluster?: string): AccessEntries {
  const s = lambdaSettings(env);
  const eks = s.eksClusters.find((c) => c.name === k8sCluster) ?? s.eksClusters[0];
  return new EksAccessEntries(eks?.name ?? s.clusterName, eks?.region ?? s.region);
}

function raise(err: unknown): never {
  throw err;
}

function fail(message: string): never {
  throw new TypeError(message);
}

/** The deployed handler (`functions/admin.handler` in serverless.yml). */
export const handler = createAdminHandler();
