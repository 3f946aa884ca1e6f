/**
 * Lambda's function URL, played locally: the event a function URL with AWS_IAM auth hands the
 * function once it has verified the caller's signature (payload format 2.0, the caller in
 * `requestContext.authorizer.iam`), and reading the function's answer back as Lambda turns it into
 * the HTTP response. Shape from https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html
 * ("Request payload", "Response payload"); the fields the admin function does not read are filled
 * as Lambda fills them for a POST to `/`.
 */
import { randomUUID } from 'node:crypto';

/** The verified caller: its ARN and account, and the access key id it signed with. */
export type UrlCaller = { readonly arn: string; readonly accountId: string; readonly accessKeyId?: string };

/** The event for a POST of `body` (JSON text) to the function URL by `caller`. */
export function functionUrlEvent(body: string, caller: UrlCaller, requestId: string = randomUUID()): Record<string, unknown> {
  const nowMs = Date.now();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', host: 'local.lambda-url.local.on.aws' },
    requestContext: {
      accountId: caller.accountId,
      apiId: 'local',
      authorizer: {
        // IAM's unique ids (AROA…:session) are not modelled: the admin function reads userArn and accountId only.
        iam: { accessKey: caller.accessKeyId ?? '', accountId: caller.accountId, callerId: `LOCAL:${sessionOf(caller.arn)}`, cognitoIdentity: null, principalOrgId: null, userArn: caller.arn, userId: `LOCAL:${sessionOf(caller.arn)}` },
      },
      domainName: 'local.lambda-url.local.on.aws',
      domainPrefix: 'local',
      http: { method: 'POST', path: '/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'tidb-reconciler' },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: new Date(nowMs).toUTCString(),
      timeEpoch: nowMs,
    },
    body,
    isBase64Encoded: false,
  };
}

function sessionOf(arn: string): string {
  return arn.slice(arn.lastIndexOf('/') + 1);
}

/** A function URL response as the admin function returns it. */
export type UrlResponse = { readonly statusCode: number; readonly body: string };

/**
 * The HTTP status and body Lambda sends for `result`: a `{statusCode, body}` object as given; any
 * other value as a 200 with the value as JSON (Lambda's inference for a non-conforming response).
 */
export function urlResponseOf(result: unknown): UrlResponse {
  if (typeof result === 'object' && result !== null && typeof (result as { statusCode?: unknown }).statusCode === 'number') {
    const r = result as { statusCode: number; body?: unknown };
    return { statusCode: r.statusCode, body: typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? '') };
  }
  return { statusCode: 200, body: JSON.stringify(result) };
}
