/**
 * Bounding outside text (a message's free-text reason, a remote error) before it reaches a log line
 * or a table item, without ever splitting a character. Pure.
 */

/** `text` cut to at most about `keepBytes` of UTF-8, never inside a character, saying how much went. */
export function cutText(text: string, keepBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= keepBytes) return text;
  // A cut inside a multi-byte character decodes to U+FFFD at the end: drop it.
  const kept = bytes.subarray(0, keepBytes).toString('utf8').replace(/\uFFFD+$/, '');
  return `${kept}… [cut: ${bytes.length - Buffer.byteLength(kept, 'utf8')} bytes]`;
}

