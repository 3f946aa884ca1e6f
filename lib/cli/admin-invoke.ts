/**
 * Sending one admin request: to a deployed stack's admin function URL (a POST signed with SigV4 with
 * the caller's credentials from the AWS SDK's default provider chain), to its admin Lambda by direct
 * invoke (AWS SDK Lambda client, synchronous `RequestResponse`), or to the local stack's admin
 * endpoint (signed with the local operator's credentials from its endpoint file). Either way the
 * result is the function's answer, or why there is none — a function error (with the error Lambda
 * reported), a request the URL refused (bad signature), or a call that failed.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { AwsCredentialIdentity } from '@smithy/types';
import { readCappedFetchText } from '../kube/answer-size.js';
import { LAMBDA_RESPONSE_MAX_BYTES, readEndpointFile } from '../local/admin-endpoint.js';
import { signAdminPost } from '../platform/admin-signing.js';
import type { AdminRequest } from '../platform/admin-request.js';
import type { RedriveRequest } from '../platform/redrive-request.js';
import type { AdminTarget } from './admin-args.js';

/**
 * The alias every invoker of a deployed function uses (serverless.yml `custom.liveAlias.name`,
 * scripts/osls-live-alias.cjs): a direct invoke of the admin function goes to it too, so a canary or
 * a rollback applies to operators' calls as to the queue's.
 */
export const LIVE_ALIAS = 'live';

/**
 * The qualifier to invoke `functionName` with: none when it names a version or alias already
 * (`name:7`, `name:blue`, or an ARN `arn:…:function:name:blue`), else the live alias.
 */
export function qualifierFor(functionName: string): string | undefined {
  const afterFunction = functionName.includes('function:') ? functionName.slice(functionName.lastIndexOf('function:') + 'function:'.length) : functionName;
  return afterFunction.includes(':') ? undefined : LIVE_ALIAS;
}

/** What came back: the function's answer, a function error, or a failed call. */
export type InvokeOutcome =
  | { readonly kind: 'answer'; readonly answer: unknown }
  | { readonly kind: 'function-error'; readonly errorKind: string; readonly errorType: string; readonly errorMessage: string }
  | { readonly kind: 'call-failed'; readonly error: string };

/** Sends `request` to `target`, giving up after `timeoutMs`. Never throws. */
export async function invokeAdmin(target: AdminTarget, request: AdminRequest | RedriveRequest, timeoutMs: number): Promise<InvokeOutcome> {
  switch (target.kind) {
    case 'lambda':
      return invokeLambda(target, request, timeoutMs);
    case 'url':
      return invokeUrl(target, request, timeoutMs);
    case 'local':
      return invokeLocal(target.stackFile, request, timeoutMs);
    default: {
      const never: never = target;
      return { kind: 'call-failed', error: `unknown target ${JSON.stringify(never)}` };
    }
  }
}

async function invokeUrl(target: Extract<AdminTarget, { kind: 'url' }>, request: AdminRequest | RedriveRequest, timeoutMs: number): Promise<InvokeOutcome> {
  let credentials: AwsCredentialIdentity;
  // The SDK's default provider chain (environment, profile, SSO, instance/container role), as the AWS CLI uses.
  const client = new LambdaClient({ region: target.region });
  try {
    credentials = await client.config.credentials();
  } catch (err) {
    return { kind: 'call-failed', error: `no AWS credentials to sign the request with: ${describeError(err, timeoutMs)}` };
  } finally {
    client.destroy();
  }
  return postSigned(target.url, target.region, credentials, request, timeoutMs, `the admin function URL ${target.url}`);
}

/**
 * POSTs `request` signed for `region`. The function URL's answer is the admin answer as JSON, whatever
 * the status (403: the caller may not); a body without `ok` is the URL's own refusal (`{Message}`) or
 * a function error (`{errorType, errorMessage}`).
 */
async function postSigned(url: string, region: string, credentials: AwsCredentialIdentity, request: AdminRequest | RedriveRequest, timeoutMs: number, where: string): Promise<InvokeOutcome> {
  const body = JSON.stringify(request);
  let res: Response;
  try {
    const signed = await signAdminPost(url, body, region, credentials);
    res = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    return { kind: 'call-failed', error: `${where} does not answer: ${describeError(err, timeoutMs)}` };
  }
  let text: string;
  try {
    // Nothing real answers more than Lambda lets through; a stray process on that port may.
    text = await readCappedFetchText(res, LAMBDA_RESPONSE_MAX_BYTES, new URL(url).pathname);
  } catch (err) {
    return { kind: 'call-failed', error: `${where}: ${describeError(err, timeoutMs)}` };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { kind: 'call-failed', error: `${where} answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}` };
  }
  if (typeof (doc as { ok?: unknown } | null)?.ok === 'boolean') return { kind: 'answer', answer: doc };
  const message = (doc as { Message?: unknown; message?: unknown } | null)?.Message ?? (doc as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return { kind: 'call-failed', error: `${where} refused the request (HTTP ${res.status}): ${message}` };
  return functionError(res.status >= 500 ? 'Unhandled' : `HTTP ${res.status}`, text);
}

async function invokeLambda(target: Extract<AdminTarget, { kind: 'lambda' }>, request: AdminRequest | RedriveRequest, timeoutMs: number): Promise<InvokeOutcome> {
  const client = new LambdaClient({
    region: target.region,
    ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
    // One attempt: the admin actions write, and a timed-out invoke may still have run.
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeoutMs, connectionTimeout: Math.min(timeoutMs, 10_000) },
  });
  try {
    const out = await client.send(
      new InvokeCommand({ FunctionName: target.functionName, Qualifier: qualifierFor(target.functionName), InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(request)) }),
      { abortSignal: AbortSignal.timeout(timeoutMs) },
    );
    const text = out.Payload === undefined ? '' : new TextDecoder().decode(out.Payload);
    if (out.FunctionError !== undefined) return functionError(out.FunctionError, text);
    return parseAnswer(text);
  } catch (err) {
    return { kind: 'call-failed', error: `invoking ${target.functionName} in ${target.region}: ${describeError(err, timeoutMs)}` };
  } finally {
    client.destroy();
  }
}

async function invokeLocal(stackFile: string, request: AdminRequest | RedriveRequest, timeoutMs: number): Promise<InvokeOutcome> {
  const file = readEndpointFile(stackFile);
  if (!file.ok) return { kind: 'call-failed', error: file.error };
  const { adminUrl, region, credentials, pid } = file.endpoints;
  const outcome = await postSigned(adminUrl, region, credentials, request, timeoutMs, `the local stack at ${adminUrl} (${stackFile}, pid ${pid})`);
  return outcome.kind === 'call-failed' && outcome.error.includes('does not answer') ? { ...outcome, error: `${outcome.error}; is \`npm start\` still running?` } : outcome;
}

function parseAnswer(text: string): InvokeOutcome {
  try {
    return { kind: 'answer', answer: JSON.parse(text) };
  } catch {
    return { kind: 'call-failed', error: `the answer is not JSON: ${text.slice(0, 200)}` };
  }
}

/** Lambda's error payload is `{errorType, errorMessage, trace?}`; anything else is shown as text. */
function functionError(errorKind: string, text: string): InvokeOutcome {
  try {
    const doc = JSON.parse(text) as { errorType?: unknown; errorMessage?: unknown };
    if (typeof doc.errorMessage === 'string') return { kind: 'function-error', errorKind, errorType: typeof doc.errorType === 'string' ? doc.errorType : 'Error', errorMessage: doc.errorMessage };
  } catch {
    // not JSON: the text is the message
  }
  return { kind: 'function-error', errorKind, errorType: 'Error', errorMessage: text.slice(0, 500) };
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${Math.round(timeoutMs / 1000)}s`;
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const code = (cause as { code?: string } | undefined)?.code ?? (err as { code?: string }).code;
    return code ? `${err.name}: ${err.message} (${code})` : `${err.name}: ${err.message}`;
  }
  return String(err);
}
