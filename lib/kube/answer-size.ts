/**
 * Size caps on what a remote end may send us, and the readers that enforce them. Without a cap one
 * oversized answer (a huge LIST, a runaway proxy, a broken component) is buffered whole and then
 * parsed: a 300 MB answer raised a 512 MB function's RSS by 918 MB and failed its whole batch. A
 * capped read stops at the cap, destroys the connection (so nothing more is buffered) and throws
 * `AnswerTooLargeError`, which is terminal for the call: repeating it would read the same answer.
 *
 * Budget: a 512 MB function holds one answer's text, its parse (3–5× the text) and the step's own
 * state at once, so no single answer may be more than a few tens of MiB.
 */
import type { IncomingMessage } from 'node:http';
import { TerminalError } from '../platform/errors.js';

/**
 * Largest Kubernetes answer read (a GET, or one LIST page). Pages are asked for with
 * `KUBE_LIST_PAGE_LIMIT` objects; a StatefulSet or Pod of a TiDB component is 5–30 KB of JSON, so a
 * full page is ~15 MB at worst, and one object alone is at most etcd's 1.5 MiB request limit
 * (`--max-request-bytes`), a few MiB as JSON. 32 MiB passes every real answer and still leaves a
 * 512 MB function room to parse it.
 */
export const KUBE_ANSWER_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Objects per LIST page, as client-go's pager (`k8s.io/client-go/tools/pager`, `defaultPageSize =
 * 500`): a page of the largest objects we list stays well under `KUBE_ANSWER_MAX_BYTES`.
 */
export const KUBE_LIST_PAGE_LIMIT = 500;

/**
 * Largest component answer read (PD, TiKV, TiDB, TiFlash, TiCDC, Pump, through the API server's
 * proxy or directly). The largest we ask for is PD's `/pd/api/v1/stores?state=2`, every tombstone
 * store the cluster ever had at ~1.5 KB each: 8 MiB holds over 5 000; the other answers are a few KB.
 */
export const COMPONENT_ANSWER_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Longest line of a watch stream: one event carries one object (at most etcd's 1.5 MiB as stored,
 * somewhat more as JSON) in a small envelope. A line past this is not an event we can use; the
 * watch fails rather than buffer an unbounded line.
 */
export const WATCH_LINE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * An answer larger than the cap its reader allows. Terminal: the same request gets the same answer.
 * Names the URL path (never the query or the host, never a credential) and the cap.
 */
export class AnswerTooLargeError extends TerminalError {
  constructor(
    readonly path: string,
    readonly maxBytes: number,
    /** How many bytes had been read (or were announced by Content-Length) when reading stopped. */
    readonly readBytes: number,
    /** What was too large: the answer, or one line of a streamed answer. */
    part = 'the answer',
  ) {
    super(`${part} to ${path} is larger than ${formatBytes(maxBytes)} (${readBytes} bytes read or announced); reading stopped`);
  }
}

/** The path of a request path or URL without its query (which may carry selectors or tokens). */
export function pathOnly(pathOrUrl: string): string {
  const q = pathOrUrl.indexOf('?');
  return q < 0 ? pathOrUrl : pathOrUrl.slice(0, q);
}

/**
 * The whole body of an answer as UTF-8 text, at most `maxBytes`: an announced Content-Length over
 * the cap fails before reading, and a body that grows past it fails as soon as it does, destroying
 * the response and its socket. Rejects when the body ends early (the request was destroyed, the
 * connection reset). Read with stream events: an async iterator costs a promise per chunk.
 */
export function readCappedText(res: IncomingMessage, maxBytes: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const announced = Number(res.headers['content-length']);
    if (Number.isFinite(announced) && announced > maxBytes) {
      const error = new AnswerTooLargeError(pathOnly(path), maxBytes, announced);
      res.destroy(error);
      reject(error);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      chunks.length = 0;
      const error = new AnswerTooLargeError(pathOnly(path), maxBytes, size);
      reject(error);
      // Destroying the answer destroys its socket: nothing more is read or buffered.
      res.destroy(error);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    // 'close' without 'end' (and without an error) is a body cut short; after 'end' this rejection is ignored.
    res.on('close', () => {
      if (!res.complete) reject(new Error('the answer ended before its body was complete'));
    });
  });
}

/**
 * A fetch answer's body as UTF-8 text, at most `maxBytes` (as `readCappedText`): past the cap the
 * body stream is cancelled, which closes the connection.
 */
export async function readCappedFetchText(res: Response, maxBytes: number, path: string): Promise<string> {
  const announced = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(announced) && announced > maxBytes) {
    await res.body?.cancel();
    throw new AnswerTooLargeError(pathOnly(path), maxBytes, announced);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new AnswerTooLargeError(pathOnly(path), maxBytes, size);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `n` bytes in the largest whole binary unit (`32 MiB`, `4 KiB`), or bytes. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
