/**
 * Sending one admin request: to a deployed admin Lambda (AWS SDK Lambda client, the caller's
 * credentials from the default provider chain, synchronous `RequestResponse` invoke) or to the local
 * stack's admin endpoint. Either way the result is the function's answer, or why there is none — a
 * function error (`FunctionError` with the error Lambda reported) or a call that failed.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { readCappedFetchText } from '../kube/answer-size.js';
import { LAMBDA_RESPONSE_MAX_BYTES, readEndpointFile } from '../local/admin-endpoint.js';
import type { AdminRequest } from '../platform/admin-request.js';
import type { AdminTarget } from './admin-args.js';

/** What came back: the function's answer, a function error, or a failed call. */
export type InvokeOutcome =
  | { readonly kind: 'answer'; readonly answer: unknown }
  | { readonly kind: 'function-error'; readonly errorKind: string; readonly errorType: string; readonly errorMessage: string }
  | { readonly kind: 'call-failed'; readonly error: string };

/** Sends `request` to `target`, giving up after `timeoutMs`. Never throws. */
export async function invokeAdmin(target: AdminTarget, request: AdminRequest, timeoutMs: number): Promise<InvokeOutcome> {
  return target.kind === 'lambda' ? invokeLambda(target, request, timeoutMs) : invokeLocal(target.stackFile, request, timeoutMs);
}

async function invokeLambda(target: Extract<AdminTarget, { kind: 'lambda' }>, request: AdminRequest, timeoutMs: number): Promise<InvokeOutcome> {
  const client = new LambdaClient({
    region: target.region,
    ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
    // One attempt: the admin actions write, and a timed-out invoke may still have run.
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeoutMs, connectionTimeout: Math.min(timeoutMs, 10_000) },
  });
  try {
    const out = await client.send(
      new InvokeCommand({ FunctionName: target.functionName, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(request)) }),
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

async function invokeLocal(stackFile: string, request: AdminRequest, timeoutMs: number): Promise<InvokeOutcome> {
  const file = readEndpointFile(stackFile);
  if (!file.ok) return { kind: 'call-failed', error: file.error };
  const url = file.endpoints.adminUrl;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request), signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    return { kind: 'call-failed', error: `the local stack at ${url} (${stackFile}, pid ${file.endpoints.pid}) does not answer: ${describeError(err, timeoutMs)}; is \`npm start\` still running?` };
  }
  let text: string;
  try {
    // Nothing real answers more than Lambda lets through; a stray process on that port may.
    text = await readCappedFetchText(res, LAMBDA_RESPONSE_MAX_BYTES, new URL(url).pathname);
  } catch (err) {
    return { kind: 'call-failed', error: `the local stack at ${url}: ${describeError(err, timeoutMs)}` };
  }
  if (res.status === 200) return parseAnswer(text);
  return functionError(res.status >= 500 ? 'Unhandled' : `HTTP ${res.status}`, text);
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
