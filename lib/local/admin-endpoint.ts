/**
 * The local stack's admin endpoint: the admin function's handler behind a small HTTP server bound
 * to 127.0.0.1, so `tidb-reconciler admin` in another process reaches the running `npm start` the
 * way it reaches a deployed stack's admin Lambda. `POST /admin` with the admin payload answers the
 * handler's result (200); a handler that throws answers 500 with `{errorType, errorMessage}`, as
 * Lambda reports an unhandled function error, and so is an answer over Lambda's synchronous response
 * limit (`Function.ResponseSizeTooLarge`). Where it listens is written to an endpoint file in the
 * working directory (`LOCAL_STACK_FILE`), removed again on stop.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { Context } from 'aws-lambda';

/** The endpoint file, relative to the local stack's working directory. */
export const LOCAL_STACK_FILE = '.tidb-reconciler/local-stack.json';

/** The endpoint file's content. */
export type LocalStackEndpoints = { readonly pid: number; readonly adminUrl: string; readonly apiServerUrl: string };

/** An admin handler as `createAdminHandler` builds it. */
export type AdminInvoke = (payload: unknown, context: Context) => Promise<unknown>;

/** The running endpoint. */
export type AdminEndpoint = { readonly url: string; stop(): Promise<void> };

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
export async function startAdminEndpoint(invoke: AdminInvoke): Promise<AdminEndpoint> {
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      if (Buffer.byteLength(text) > LAMBDA_RESPONSE_MAX_BYTES) return void res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify(RESPONSE_TOO_LARGE));
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(text);
    };
    if (req.method !== 'POST' || req.url !== '/admin') return answer(404, { errorType: 'NotFound', errorMessage: 'POST /admin only' });
    void readBody(req).then(
      async (text) => {
        let payload: unknown;
        try {
          payload = JSON.parse(text);
        } catch {
          return answer(400, { errorType: 'InvalidRequestContentException', errorMessage: 'the request body is not JSON' });
        }
        try {
          answer(200, await invoke(payload, localContext()));
        } catch (err) {
          answer(500, { errorType: err instanceof Error ? err.name : 'Error', errorMessage: err instanceof Error ? err.message : String(err) });
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
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes the endpoint file (creating its directory); returns a function that removes it if it is still ours. */
export function writeEndpointFile(path: string, endpoints: LocalStackEndpoints): () => void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(endpoints, null, 2)}\n`);
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
    if (typeof doc.adminUrl === 'string' && typeof doc.pid === 'number' && typeof doc.apiServerUrl === 'string') return { ok: true, endpoints: doc as LocalStackEndpoints };
  } catch {
    // reported below
  }
  return { ok: false, error: `${path} is not a local stack endpoint file (expected {pid, adminUrl, apiServerUrl})` };
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
