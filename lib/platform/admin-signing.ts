/**
 * SigV4 for the admin function URL (service `lambda`): the CLI signs its POST with the caller's AWS
 * credentials, as AWS requires for a function URL with AWS_IAM auth
 * (https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html), and the local stack's endpoint —
 * playing the function URL — verifies the signature the same way AWS does: by signing the request
 * again with the secret key it holds for that access key id and comparing. Signing uses
 * @smithy/signature-v4, the AWS SDK's own signer.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';

/** The SigV4 service name of Lambda function URLs. */
export const FUNCTION_URL_SERVICE = 'lambda';

/** A signed POST: where to send it and the headers to send (the body is sent as given). */
export type SignedPost = { readonly url: string; readonly headers: Record<string, string> };

/** Signs a JSON POST of `body` to `url` for `region` with `credentials`, at `now`. */
export async function signAdminPost(url: string, body: string, region: string, credentials: AwsCredentialIdentity, now: Date = new Date()): Promise<SignedPost> {
  const u = new URL(url);
  const signer = new SignatureV4({ credentials, region, service: FUNCTION_URL_SERVICE, sha256: Sha256 });
  const signed = await signer.sign(
    { method: 'POST', protocol: u.protocol, hostname: u.hostname, ...(u.port ? { port: Number(u.port) } : {}), path: u.pathname, query: queryOf(u), headers: { host: u.host, 'content-type': 'application/json' }, body },
    { signingDate: now },
  );
  return { url, headers: signed.headers as Record<string, string> };
}

/** A request as the local endpoint received it. */
export type ReceivedRequest = { readonly method: string; readonly url: URL; readonly headers: Readonly<Record<string, string | undefined>>; readonly body: string };

/** How long a signature stays valid: AWS refuses a request signed more than 5 minutes away from its clock. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

// Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261128/region/lambda/aws4_request, SignedHeaders=a;b, Signature=hex
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/**
 * Verifies a request's SigV4 signature against the secret of its access key id (`secretOf`;
 * undefined: unknown key). Returns the access key id, or why the request is refused — in AWS's own
 * words where it has them (`InvalidSignatureException` messages are shortened to the reason).
 */
export async function verifyAdminPost(req: ReceivedRequest, secretOf: (accessKeyId: string) => string | undefined, nowMs: number): Promise<{ ok: true; accessKeyId: string } | { ok: false; error: string }> {
  const m = AUTHORIZATION.exec(req.headers['authorization'] ?? '');
  if (!m) return { ok: false, error: 'Missing Authentication Token: the request must be signed with SigV4 (AWS_IAM auth)' };
  const [, accessKeyId = '', , region = '', service, signedHeaders = ''] = m;
  if (service !== FUNCTION_URL_SERVICE) return { ok: false, error: `Credential should be scoped to correct service: '${FUNCTION_URL_SERVICE}'` };
  const secret = secretOf(accessKeyId);
  if (secret === undefined) return { ok: false, error: 'The security token included in the request is invalid (unknown access key id)' };
  const date = parseAmzDate(req.headers['x-amz-date'] ?? '');
  if (date === undefined) return { ok: false, error: 'the request has no valid X-Amz-Date' };
  if (Math.abs(date.getTime() - nowMs) > MAX_CLOCK_SKEW_MS) return { ok: false, error: 'Signature expired: the request was signed more than 5 minutes from now' };
  // A signed payload hash stands for the body in the signature: it must be the body's.
  const payloadHash = req.headers['x-amz-content-sha256'];
  if (payloadHash !== undefined && payloadHash !== createHash('sha256').update(req.body, 'utf8').digest('hex')) {
    return { ok: false, error: 'The provided x-amz-content-sha256 header does not match what was computed' };
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) headers[name] = req.headers[name] ?? '';
  const sessionToken = req.headers['x-amz-security-token'];
  const signer = new SignatureV4({ credentials: { accessKeyId, secretAccessKey: secret, ...(sessionToken ? { sessionToken } : {}) }, region, service: FUNCTION_URL_SERVICE, sha256: Sha256 });
  const again = await signer.sign(
    { method: req.method, protocol: req.url.protocol, hostname: req.url.hostname, path: req.url.pathname, query: queryOf(req.url), headers, body: req.body },
    { signingDate: date, signableHeaders: new Set(signedHeaders.split(';')) },
  );
  const expected = Buffer.from(String(again.headers['authorization'] ?? ''));
  const got = Buffer.from(req.headers['authorization'] ?? '');
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) {
    return { ok: false, error: 'The request signature we calculated does not match the signature you provided' };
  }
  return { ok: true, accessKeyId };
}

function queryOf(u: URL): Record<string, string> {
  return Object.fromEntries(u.searchParams.entries());
}

/** `20261128T091500Z` → the Date, or undefined. */
function parseAmzDate(text: string): Date | undefined {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}
