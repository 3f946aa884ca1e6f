/**
 * Bounding bad input before it is echoed into a log line, an error or an answer: a message says
 * what was wrong and shows the value, but never more than `ECHO_MAX_BYTES` of it, and says how
 * large it was. Pure and dependency-free, so rules, models and adapters all use it.
 */

/**
 * The most of one bad input value echoed into a log line, an error or an answer, in UTF-8 bytes. A
 * longer value (a 100 KB queue key, a 1.5 MB admin field) is clipped, so bad input can make no log
 * line or answer much larger than this: a log line per delivery stays small, and an admin answer
 * stays far below Lambda's 6 MB response limit.
 */
export const ECHO_MAX_BYTES = 1024;

/**
 * `text` as is when it is at most `maxBytes` of UTF-8, else its first `maxBytes` (never splitting
 * a character) followed by `… (102400 bytes, first 1024 shown)`, which states the original size.
 */
export function clipForEcho(text: string, maxBytes = ECHO_MAX_BYTES): string {
  const kept = utf8Prefix(text, maxBytes);
  return kept.length === text.length ? text : `${kept}… (${Buffer.byteLength(text, 'utf8')} bytes, first ${Buffer.byteLength(kept, 'utf8')} shown)`;
}

/**
 * `value` as a JSON string literal (quotes and escapes make its edges and control characters
 * visible), at most `maxBytes` of it, followed by the same note as `clipForEcho` when clipped.
 */
export function quoteForEcho(value: string, maxBytes = ECHO_MAX_BYTES): string {
  // Only the head is quoted: a huge value is never copied whole.
  const quoted = JSON.stringify(value.length > maxBytes ? value.slice(0, maxBytes) : value);
  const kept = utf8Prefix(quoted, maxBytes);
  if (kept.length === quoted.length && value.length <= maxBytes) return quoted;
  return `${kept}… (${Buffer.byteLength(value, 'utf8')} bytes, first ${Buffer.byteLength(kept, 'utf8')} shown)`;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a whole character. */
function utf8Prefix(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: a short string needs no encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text.length > maxBytes ? text.slice(0, maxBytes) : text, 'utf8');
  if (bytes.length <= maxBytes && text.length <= maxBytes) return text;
  // A cut inside a multi-byte character decodes to U+FFFD at the end: drop it.
  return bytes.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD+$/, '');
}
