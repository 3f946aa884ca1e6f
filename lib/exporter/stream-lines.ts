/**
 * Newline-delimited JSON framing for watch streams: the API server writes one event per line, but
 * network chunks split and join lines arbitrarily (and may split a multi-byte UTF-8 character).
 */

/**
 * Yields each non-empty line of `stream` as it completes; `onChunk` runs for every chunk received
 * (the caller's idle timer). A final line without a newline is yielded when the stream ends. The
 * reader is released however the iteration ends, so an abandoned watch frees its connection.
 */
export async function* readLines(stream: ReadableStream<Uint8Array>, onChunk: () => void = () => undefined): AsyncGenerator<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
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
  } finally {
    // Cancelling an aborted or finished stream rejects; there is nothing left to clean up then.
    await reader.cancel().catch(() => undefined);
  }
}
