/**
 * The short template hashes Kubernetes controllers put in names and labels
 * (`controller-revision-hash`, `pod-template-hash`): a 32-bit FNV hash of the object's content plus
 * the collision count, printed in decimal and mapped onto the consonant-and-digit alphabet of
 * apimachinery's rand.SafeEncodeString, so names look like `web-7b4c9d8f5` and never spell words.
 * The content is canonical JSON (sorted keys), so a template that returns to an old value hashes to
 * the old name.
 */

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with object keys sorted at every level (undefined members dropped), a stable hashing input. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

/** FNV-1 (32-bit) of the UTF-8 bytes of `text`, as Go's hash/fnv New32. */
export function fnv32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash = Math.imul(hash, 0x01000193) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash;
}

/** apimachinery's rand.SafeEncodeString: each character mapped onto a vowel-free alphabet. */
export function safeEncode(text: string): string {
  let out = '';
  for (const ch of text) out += SAFE_ALPHABET[(ch.codePointAt(0) ?? 0) % SAFE_ALPHABET.length];
  return out;
}

/** The hash of `content` with `collisionCount` (as HashControllerRevision / ComputeHash). */
export function contentHash(content: unknown, collisionCount: number): string {
  return safeEncode(String(fnv32(canonicalJson(content) + String(collisionCount))));
}
