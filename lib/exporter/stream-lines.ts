/**
 * Newline-delimited JSON framing for watch streams: the API server writes one event per line, but
 * network chunks split and join lines arbitrarily (and may split a multi-byte UTF-8 character).
 */

/**
 * Yields each non-empty line of `stream` (a web stream or a Node readable, e.g. an HTTP answer) as
 * it completes; `onChunk` runs for every chunk received (the caller's idle timer). A final line
 * without a newline is yielded when the stream ends. The stream is released however the iteration
 * ends (`for await` cancels or destroys it), so an abandoned watch frees its connection.
 */
export async function* readLines(stream: AsyncIterable<Uint8Array>, onChunk: () => void = () => undefined): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const value of stream) {
    onChunk();
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
