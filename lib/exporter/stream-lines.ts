/**
 * Newline-delimited JSON framing for watch streams: the API server writes one event per line, but
 * network chunks split and join lines arbitrarily (and may split a multi-byte UTF-8 character).
 */
import { AnswerTooLargeError, WATCH_LINE_MAX_BYTES } from '../kube/answer-size.js';

/** Options of `readLines`: `onChunk` runs for every chunk received; a line may be `maxLineBytes` long. */
export type ReadLinesOptions = { onChunk?: () => void; maxLineBytes?: number; path?: string };

/**
 * Yields each non-empty line of `stream` (a web stream or a Node readable, e.g. an HTTP answer) as
 * it completes; `onChunk` runs for every chunk received (the caller's idle timer). A final line
 * without a newline is yielded when the stream ends. A line growing past `maxLineBytes` (default
 * `WATCH_LINE_MAX_BYTES`) throws `AnswerTooLargeError` naming `path` as soon as it does, so an
 * endless line is never buffered. The stream is released however the iteration ends (`for await`
 * cancels or destroys it), so an abandoned watch frees its connection.
 */
export async function* readLines(stream: AsyncIterable<Uint8Array>, options: ReadLinesOptions = {}): AsyncGenerator<string> {
  const maxLineBytes = options.maxLineBytes ?? WATCH_LINE_MAX_BYTES;
  const decoder = new TextDecoder();
  let buffer = '';
  // Bytes of the line not yet complete: counted on the raw chunks, so the cap is exact in bytes.
  let pendingBytes = 0;
  for await (const value of stream) {
    options.onChunk?.();
    const lastNewline = value.lastIndexOf(0x0a);
    pendingBytes = lastNewline < 0 ? pendingBytes + value.byteLength : value.byteLength - lastNewline - 1;
    if (pendingBytes > maxLineBytes) throw new AnswerTooLargeError(options.path ?? 'a stream', maxLineBytes, pendingBytes, 'a line of the answer');
    buffer += decoder.decode(value, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield line;
      newline = buffer.indexOf('\n');
    }
  }
  const last = (buffer + decoder.decode()).trim();
  if (last) yield last;
}
