/**
 * The local stack's admin endpoint is as strict as Lambda about the size of an answer: a result over
 * the synchronous response limit is the function error `Function.ResponseSizeTooLarge`, not a
 * 7 MB answer a deployed function could never give.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { type AdminEndpoint, LAMBDA_RESPONSE_MAX_BYTES, newLocalCredentials, startAdminEndpoint } from '../../lib/local/admin-endpoint.js';
import { signAdminPost } from '../../lib/platform/admin-signing.js';

let endpoint: AdminEndpoint | undefined;
afterEach(async () => {
  await endpoint?.stop();
  endpoint = undefined;
});

describe('the local admin endpoint answers within Lambda’s response limit', () => {
  it.each([
    // The answer is {"a":"…"}: 8 bytes around the string.
    { name: 'an answer of exactly 6 291 556 bytes passes', size: LAMBDA_RESPONSE_MAX_BYTES - 8, status: 200 },
    // A function URL answers a function error 502 (Bad Gateway).
    { name: 'one byte more is Function.ResponseSizeTooLarge', size: LAMBDA_RESPONSE_MAX_BYTES - 7, status: 502 },
  ])('$name', async ({ size, status }) => {
    // Prepare
    const credentials = newLocalCredentials('arn:aws:sts::000000000000:assumed-role/local-operator/test');
    endpoint = await startAdminEndpoint(async () => ({ a: 'A'.repeat(size) }), credentials);
    const signed = await signAdminPost(endpoint.url, '{}', endpoint.region, credentials);

    // Act
    const res = await fetch(endpoint.url, { method: 'POST', headers: signed.headers, body: '{}', signal: AbortSignal.timeout(10_000) });
    const text = await res.text();

    // Assess
    expect(res.status).toBe(status);
    if (status === 200) expect(Buffer.byteLength(text)).toBe(LAMBDA_RESPONSE_MAX_BYTES);
    else expect(JSON.parse(text)).toEqual({ errorType: 'Function.ResponseSizeTooLarge', errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).' });
  });
});
