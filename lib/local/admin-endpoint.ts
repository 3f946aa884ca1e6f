/**
 * The local stack's admin endpoint, playing the admin function URL (AWS_IAM auth): the admin
 * function's handler behind a small HTTP server bound to 127.0.0.1, so `tidb-reconciler admin` in
 * another process reaches the running `npm start` the way it reaches a deployed stack's function
 * URL. `POST /admin` must be SigV4-signed (service `lambda`) with the local stack's credentials: the
 * signature is verified as AWS verifies it (`verifyAdminPost`; a bad one is answered 403 and the
 * handler is not invoked), and the handler gets the function URL event naming the caller those
 * credentials stand for (the local operator's role session). Its response is sent as Lambda sends a
 * function URL response; a handler that throws answers 502 with `{errorType, errorMessage}`, and so
 * is an answer over Lambda's synchronous response limit (`Function.ResponseSizeTooLarge`). Where it
 * listens and the credentials are written to an endpoint file in the working directory
 * (`LOCAL_STACK_FILE`, readable by its owner only), removed again on stop.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { Context } from 'aws-lambda';
import { verifyAdminPost } from '../platform/admin-signing.js';
import { LOCAL_ACCOUNT_ID } from './admin-identity.js';
import { LOCAL_REGION } from './iam/resolve.js';
import { functionUrlEvent, urlResponseOf } from './function-url.js';

/** The endpoint file, relative to the local stack's working directory. */
export const LOCAL_STACK_FILE = '.tidb-reconciler/local-stack.json';

/** The local credentials the CLI signs with, and the caller they stand for. */
export type LocalCredentials = { readonly accessKeyId: string; readonly secretAccessKey: string; readonly callerArn: string };

/** The endpoint file's content: where the stack listens, the SigV4 region, and the local credentials. */
export type LocalStackEndpoints = { readonly pid: number; readonly adminUrl: string; readonly apiServerUrl: string; readonly region: string; readonly credentials: LocalCredentials };

/** An admin handler as `createAdminHandler` builds it. */
export type AdminInvoke = (event: unknown, context: Context) => Promise<unknown>;

/** The running endpoint and the credentials it accepts. */
export type AdminEndpoint = { readonly url: string; readonly region: string; readonly credentials: LocalCredentials; stop(): Promise<void> };

/** Fresh local credentials for `callerArn` (a new secret per stack: an old endpoint file's are void). */
export function newLocalCredentials(callerArn: string): LocalCredentials {
  return { accessKeyId: `LOCAL${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(30).toString('base64'), callerArn };
}

// The deployed admin function's timeout (serverless.yml provider.timeout).
const FUNCTION_TIMEOUT_MS = 30_000;
const MAX_BODY_BYTES = 256 * 1024;
/**
 * Lambda's limit on a synchronous invocation's response: "6 MB" on the quotas page, enforced as
 * 6 291 556 bytes; a larger result is the function error `Function.ResponseSizeTooLarge`.
 */
export const LAMBDA_RESPONSE_MAX_BYTES = 6_291_556;
const RESPONSE_TOO_LARGE = { errorType: 'Function.ResponseSizeTooLarge', errorMessage: `Response payload size exceeded maximum allowed payload size (${LAMBDA_RESPONSE_MAX_BYTES} bytes).` };

/**
 * Serves `invoke` on 127.0.0.1 (a free port). Guarantees: only loopback connections can reach it;
 * every request gets one JSON answer; a body that is not JSON is answered 400 without invoking.
 */
export async function startAdminEndpoint(invoke: AdminInvoke, credentials: LocalCredentials): Promise<AdminEndpoint> {
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown): void => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      if (Buffer.byteLength(text) > LAMBDA_RESPONSE_MAX_BYTES) return void res.writeHead(502, { 'Content-Type': 'application/json' }).end(JSON.stringify(RESPONSE_TOO_LARGE));
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(text);
    };
    if (req.method !== 'POST' || req.url !== '/admin') return answer(404, { errorType: 'NotFound', errorMessage: 'POST /admin only' });
    void readBody(req).then(
      async (text) => {
        const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
        const verified = await verifyAdminPost({ method: 'POST', url, headers, body: text }, (key) => (key === credentials.accessKeyId ? credentials.secretAccessKey : undefined), Date.now());
        // As a function URL with AWS_IAM auth: an unsigned or badly signed request never reaches the function.
        if (!verified.ok) return answer(403, { Message: `Forbidden: ${verified.error}` });
        try {
          const context = localContext();
          const response = urlResponseOf(await invoke(functionUrlEvent(text, { arn: credentials.callerArn, accountId: LOCAL_ACCOUNT_ID, accessKeyId: verified.accessKeyId }, context.awsRequestId), context));
          answer(response.statusCode, response.body);
        } catch (err) {
          answer(502, { errorType: err instanceof Error ? err.name : 'Error', errorMessage: err instanceof Error ? err.message : String(err) });
        }
      },
      (err: Error) => answer(413, { errorType: 'RequestTooLargeException', errorMessage: err.message }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin`;
  return {
    url,
    region: LOCAL_REGION,
    credentials,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes the endpoint file (creating its directory); returns a function that removes it if it is still ours. */
export function writeEndpointFile(path: string, endpoints: LocalStackEndpoints): () => void {
  mkdirSync(dirname(path), { recursive: true });
  // It holds the local credentials: readable by its owner only, as ~/.aws/credentials should be.
  writeFileSync(path, `${JSON.stringify(endpoints, null, 2)}\n`, { mode: 0o600 });
  return () => {
    const current = readEndpointFile(path);
    if (current.ok && current.endpoints.pid === endpoints.pid) rmSync(path, { force: true });
  };
}

/** Reads an endpoint file; the error says what to do when there is none. */
export function readEndpointFile(path: string): { ok: true; endpoints: LocalStackEndpoints } | { ok: false; error: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, error: `no local stack: ${path} does not exist (start one with \`npm start\` in this directory, or name a deployed stack with --function and --region)` };
    return { ok: false, error: `cannot read ${path}: ${code ?? (err as Error).message}` };
  }
  try {
    const doc = JSON.parse(text) as Partial<LocalStackEndpoints>;
    const c = doc.credentials;
    const hasCredentials = typeof c === 'object' && c !== null && typeof c.accessKeyId === 'string' && typeof c.secretAccessKey === 'string' && typeof c.callerArn === 'string';
    if (typeof doc.adminUrl === 'string' && typeof doc.pid === 'number' && typeof doc.apiServerUrl === 'string' && typeof doc.region === 'string' && hasCredentials) return { ok: true, endpoints: doc as LocalStackEndpoints };
  } catch {
    // reported below
  }
  return { ok: false, error: `${path} is not a local stack endpoint file (expected {pid, adminUrl, apiServerUrl, region, credentials}; restart \`npm start\` if it was written by an older version)` };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`the request body exceeds ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A Lambda context for one local invocation: a fresh id and the deployed function's time budget. */
function localContext(): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_MS;
  return {
    awsRequestId: `local-admin-${randomUUID()}`,
    functionName: 'tidb-reconciler-local-admin',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:tidb-reconciler-local-admin',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/local-admin',
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
