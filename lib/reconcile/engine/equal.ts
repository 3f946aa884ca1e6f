/**
 * Structural equality of JSON values, for "did the status change?". Object key order does not
 * matter; a property set to `undefined` equals a missing one (JSON drops both alike).
 */

/** Whether `a` and `b` serialise to the same JSON value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const key of keys) if (!jsonEqual(ao[key], bo[key])) return false;
  return true;
}
