/**
 * Structural equality of JSON values, for "did the status change?". Object key order does not
 * matter; a property set to `undefined` equals a missing one (JSON drops both alike). Every step
 * compares whole statuses and templates with it, so it walks the keys in place, allocating nothing.
 */

/** Whether `a` and `b` serialise to the same JSON value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const key in ao) if (Object.hasOwn(ao, key) && !jsonEqual(ao[key], own(bo, key))) return false;
  for (const key in bo) if (Object.hasOwn(bo, key) && !Object.hasOwn(ao, key) && bo[key] !== undefined) return false;
  return true;
}

/** `o[key]` when `o` has it as its own property (a JSON object's keys may name prototype members). */
function own(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}
