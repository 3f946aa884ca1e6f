/**
 * Small HTTP helpers for the simulated API server: reading bodies with a size limit, answering JSON
 * and Status errors, and turning anything thrown into the Status the real server would send.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest, statusBody } from './api-error.js';

/** Largest request body accepted (the real server's default limit is 3 MiB for most writes). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole request body as text; 413 past the limit. */
export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

/** Reads the whole request body as bytes (protobuf bodies are binary); 413 past the limit. */
export async function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body, or 400 with the parser's message. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw badRequest('the request body is empty');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(`the body of the request was in an unknown format: ${(err as Error).message}`);
  }
}

/** Sends a JSON body with the status code (and any extra headers). */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Sends the Status for an error; non-API errors become 500 InternalError (never a crash). An error
 * whose details carry `retryAfterSeconds` (a 429 from flow control, say) also gets the
 * `Retry-After` header, as the real API server sends both.
 */
export function sendError(res: ServerResponse, err: unknown): void {
  const apiErr = err instanceof ApiError ? err : new ApiError(500, 'InternalError', `Internal error occurred: ${(err as Error)?.message ?? String(err)}`);
  if (res.headersSent) {
    res.end();
    return;
  }
  const after = apiErr.details?.retryAfterSeconds;
  const headers: Record<string, string> = typeof after === 'number' ? { 'Retry-After': String(after) } : {};
  sendJson(res, apiErr.code, statusBody(apiErr), headers);
}
