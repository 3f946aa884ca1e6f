/**
 * An HTTP front that puts IAM before a local AWS server (dynalite, the local SQS server), which
 * ignore it: the caller is the principal its SigV4 `Authorization` header's access key id names,
 * the action and resources come from the request (`lib/local/iam/wire.ts`), and a denied call is
 * answered in the service's wire format, so the SDK raises exactly what AWS would make it raise.
 * Allowed calls are passed on unchanged. The signature itself is not verified (ADR 0014).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LocalIam } from './authority.js';
import { AccessDeniedError } from './authority.js';
import { listenOnLoopback } from '../loopback.js';
import { type AwsCall, type WireService, callOf, errorBody } from './wire.js';

/** A running front: the endpoint clients use instead of the server's. */
export type IamFront = { readonly endpoint: string; close(): Promise<void> };

/** How long a passed-on request may take before the front answers 504 (the local servers answer in ms). */
const UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * Starts a front on 127.0.0.1 (a free port) for `service` at `target` (e.g. `http://127.0.0.1:8000`).
 * `onRequest` is told of every request as it arrives (refused or not), with its caller: `deployer`,
 * a principal's label, or `unknown` (no or an unknown access key).
 */
export async function startIamFront(options: { readonly service: WireService; readonly target: string; readonly iam: LocalIam; readonly onRequest?: (caller: string) => void }): Promise<IamFront> {
  const { service, iam } = options;
  const target = new URL(options.target);
  const server: Server = createServer((req, res) => {
    readBody(req)
      .then((body) => handle(req, res, body))
      .catch((err: unknown) => {
        // A policy the evaluator cannot read (UnsupportedPolicyError) is a fault of the local world: say so.
        if (res.headersSent) return res.destroy();
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ __type: 'InternalFailure', message: `local IAM front: ${err instanceof Error ? err.message : String(err)}` }));
      });
  });
  function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    options.onRequest?.(callerOf(iam, req));
    const refused = refusal(service, iam, req, body);
    if (refused !== undefined) {
      res.writeHead(refused.status, refused.headers);
      res.end(refused.body);
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, timeout: UPSTREAM_TIMEOUT_MS },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error(`${service} server did not answer within ${UPSTREAM_TIMEOUT_MS} ms`)));
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    upstream.end(body);
  }
  return listenOnLoopback(server);
}

type Refusal = { readonly status: number; readonly headers: Record<string, string>; readonly body: string };

/** The answer to a call IAM refuses, or undefined to pass it on. */
function refusal(service: WireService, iam: LocalIam, req: IncomingMessage, body: Buffer): Refusal | undefined {
  const accessKeyId = accessKeyOf(req.headers['authorization']);
  if (accessKeyId === undefined) return errorBody(service, 'missing-token', 'Request is missing Authentication Token');
  const principal = iam.principalOfAccessKey(accessKeyId);
  if (principal === undefined) return errorBody(service, 'invalid-token', 'The security token included in the request is invalid.');
  if (principal === 'deployer') return undefined;
  let calls: AwsCall[];
  try {
    calls = callOf(service, req.headers, body, iam.resolver);
  } catch {
    // A request the front cannot read is the server's to refuse (it answers as it does today).
    return undefined;
  }
  try {
    for (const call of calls) iam.authorize(principal, call.action, call.resources, call.context ?? {});
    return undefined;
  } catch (err) {
    if (err instanceof AccessDeniedError) return errorBody(service, 'access-denied', err.message);
    throw err;
  }
}

/** Who sent `req`, by its access key: `deployer`, a principal's label, or `unknown`. */
function callerOf(iam: LocalIam, req: IncomingMessage): string {
  const accessKeyId = accessKeyOf(req.headers['authorization']);
  const principal = accessKeyId === undefined ? undefined : iam.principalOfAccessKey(accessKeyId);
  return principal === undefined ? 'unknown' : principal === 'deployer' ? 'deployer' : principal.label;
}

/** The access key id of a SigV4 `Authorization` header (`AWS4-HMAC-SHA256 Credential=<id>/<date>/…`). */
export function accessKeyOf(authorization: string | string[] | undefined): string | undefined {
  const header = Array.isArray(authorization) ? authorization[0] : authorization;
  return header === undefined ? undefined : /Credential=([^/,\s]+)\//.exec(header)?.[1];
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
