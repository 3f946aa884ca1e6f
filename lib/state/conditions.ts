/**
 * DynamoDB condition expressions built from named fragments, so every conditional write in the
 * adapter reads as a sentence: `leaseIsFree(nowMs)`, `and(heldByMe(owner), fenceIs(fence))`.
 * Each fragment carries its own attribute names and values; `and`/`or` merge them and refuse two
 * different values under one placeholder, so fragments cannot silently clobber each other.
 */

import { ATTR } from './table.js';

/** A condition (or update) expression with the placeholders it uses. */
export type Expr = {
  text: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
};

const n = (attr: keyof typeof ATTR): Record<string, string> => ({ [`#${attr}`]: ATTR[attr] });

/** The item does not exist yet. */
export const itemAbsent = (): Expr => ({ text: 'attribute_not_exists(#pk)', names: n('pk'), values: {} });

/** The item exists (a write under it updates, never creates). */
export const itemPresent = (): Expr => ({ text: 'attribute_exists(#pk)', names: n('pk'), values: {} });

/** Nobody has ever held the lease, or the last holder released it. */
export const noLeaseOwner = (): Expr => ({
  text: 'attribute_not_exists(#leaseOwner)',
  names: n('leaseOwner'),
  values: {},
});

/** The lease's end time has passed (a crashed step's lease can be taken over). */
export const leaseExpired = (nowMs: number): Expr => ({
  text: '#leaseUntilMs <= :nowMs',
  names: n('leaseUntilMs'),
  values: { ':nowMs': nowMs },
});

/** The item's layout is one this code knows: no version (older than versions, 1) or at most `version`. */
export const schemaKnown = (version: number): Expr =>
  or({ text: 'attribute_not_exists(#schema)', names: n('schema'), values: {} }, { text: '#schema <= :schema', names: n('schema'), values: { ':schema': version } });

/** The lease can be claimed: no owner, or expired. */
export const leaseIsFree = (nowMs: number): Expr => or(noLeaseOwner(), leaseExpired(nowMs));

/** Some step holds a lease that has not expired at `nowMs`. */
export const leaseIsHeld = (nowMs: number): Expr => ({
  text: 'attribute_exists(#leaseOwner) AND #leaseUntilMs > :nowMs',
  names: { ...n('leaseOwner'), ...n('leaseUntilMs') },
  values: { ':nowMs': nowMs },
});

/** `owner` is the recorded lease holder (expired or not: only a new claim ends its tenure). */
export const heldByMe = (owner: string): Expr => ({
  text: '#leaseOwner = :owner',
  names: n('leaseOwner'),
  values: { ':owner': owner },
});

/** The fence is exactly `fence`, i.e. no claim happened since the caller's. */
export const fenceIs = (fence: number): Expr => ({
  text: '#fence = :fence',
  names: n('fence'),
  values: { ':fence': fence },
});

/** The lease is owned by someone (used with `fenceIs`: a released fence no longer writes). */
export const leaseIsOwned = (): Expr => ({
  text: 'attribute_exists(#leaseOwner)',
  names: n('leaseOwner'),
  values: {},
});

/** The lease's end time is still ahead of `nowMs` (whoever holds it). */
export const leaseNotExpired = (nowMs: number): Expr => ({
  text: '#leaseUntilMs > :nowMs',
  names: n('leaseUntilMs'),
  values: { ':nowMs': nowMs },
});

/** No wake-up is set, or the set one is later than `atMs` (wake-ups only move earlier). */
export const wakeIsUnsetOrLater = (atMs: number): Expr => ({
  text: 'attribute_not_exists(#nextWakeAtMs) OR #nextWakeAtMs > :atMs',
  names: n('nextWakeAtMs'),
  values: { ':atMs': atMs },
});

/** The item was last written by `fence` or an older one (an older step never overwrites a newer). */
export const writtenByFenceAtMost = (fence: number): Expr => ({
  text: 'attribute_not_exists(#fence) OR #fence <= :fence',
  names: n('fence'),
  values: { ':fence': fence },
});

/** All of `parts` hold. */
export function and(...parts: Expr[]): Expr {
  return join('AND', parts);
}

/** At least one of `parts` holds. */
export function or(...parts: Expr[]): Expr {
  return join('OR', parts);
}

/**
 * Command fields for an UpdateItem/PutItem/DeleteItem: update text, its values, a condition, and
 * `names` for placeholders that are not table attributes (e.g. a key inside a map attribute).
 */
export type WriteParts = {
  update?: string;
  values?: Record<string, unknown>;
  condition?: Expr;
  names?: Record<string, string>;
};

/**
 * Builds `UpdateExpression`, `ConditionExpression` and the placeholder maps. Attribute names in the
 * update text are written `#<ATTR key>` and resolved here, because DynamoDB rejects a request that
 * declares a placeholder it does not use; values are merged with the same clash check as `and`/`or`.
 */
export function writeInput(parts: WriteParts): {
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  const own = parts.update ? namesIn(parts.update, parts.names ?? {}) : {};
  const names = merge(own, parts.condition?.names ?? {}, 'name');
  const values = merge(parts.values ?? {}, parts.condition?.values ?? {}, 'value');
  return {
    ...(parts.update ? { UpdateExpression: parts.update } : {}),
    ...(parts.condition ? { ConditionExpression: parts.condition.text } : {}),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/**
 * The `#name` placeholders in `text`, each mapped through `ATTR` or the caller's `extra` names; an
 * unknown one is a bug here.
 */
function namesIn(text: string, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, attr] of text.matchAll(/#(\w+)/g)) {
    const given = extra[`#${String(attr)}`];
    if (given !== undefined) {
      out[`#${String(attr)}`] = given;
      continue;
    }
    if (attr === undefined || !(attr in ATTR)) throw new Error(`unknown attribute placeholder #${String(attr)}`);
    out[`#${attr}`] = ATTR[attr as keyof typeof ATTR];
  }
  return out;
}

function join(op: 'AND' | 'OR', parts: Expr[]): Expr {
  let names: Record<string, string> = {};
  let values: Record<string, unknown> = {};
  for (const p of parts) {
    names = merge(names, p.names, 'name');
    values = merge(values, p.values, 'value');
  }
  return { text: parts.map((p) => `(${p.text})`).join(` ${op} `), names, values };
}

function merge<T>(a: Record<string, T>, b: Record<string, T>, what: string): Record<string, T> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (k in out && out[k] !== v) {
      throw new Error(`expression ${what} ${k} bound twice: ${String(out[k])} vs ${String(v)}`);
    }
    out[k] = v;
  }
  return out;
}
