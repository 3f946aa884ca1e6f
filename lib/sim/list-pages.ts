/**
 * LIST with `limit` and `continue`, as the API server's etcd3 storage serves it
 * (k8s.io/apiserver/pkg/storage/etcd3/store.go `GetList`, storage/continue.go):
 * - a page holds at most `limit` matching objects; when more remain its `metadata.continue` is the
 *   token `base64url({"v":"meta.k8s.io/v1","rv":<list rv>,"start":"<last key>\u0000"})` (RawURLEncoding,
 *   no padding), and `remainingItemCount` is set only when the list has no label or field selector;
 * - a continued page is read at the token's resourceVersion, so every page of one list is one
 *   consistent snapshot (objects written since neither appear nor vanish), and its
 *   `metadata.resourceVersion` is the first page's;
 * - a token whose resourceVersion is compacted away (here: older than the retained event history)
 *   is 410 Gone, reason Expired, with the message of etcd3's `interpretListError` and an
 *   "inconsistent" token (rv -1) that continues at the same key against the current state;
 * - a token that does not decode is 400 `invalid continue token: continue key is not valid…`, and
 *   `resourceVersion` (other than "0") together with `continue` is 400.
 */
import { ApiError, badRequest } from './api-error.js';
import type { KubeObject } from './object.js';
import { compareKeys, keyOf } from './store-bucket.js';
import type { LabelEquals } from './store-bucket.js';
import type { ObjectFilter, ObjectStore } from './store.js';

/** What one list request asks for: its scope, selection, and paging parameters. */
export type ListQuery = {
  kind: string;
  namespace: string | undefined;
  filter: ObjectFilter;
  /** Label equalities `filter` also requires: the store narrows a current read with them. */
  labels: LabelEquals;
  /** True when a label or field selector narrows the list (then `remainingItemCount` is unknown). */
  selective: boolean;
  limit: number;
  continueToken: string | null;
  resourceVersion: string | null;
};

/** One page: its items and the list metadata to send with them. */
export type ListPage = { items: KubeObject[]; metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } };

const TOKEN_VERSION = 'meta.k8s.io/v1';

// The messages of k8s.io/apiserver/pkg/storage/etcd3/errors.go.
const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, ' +
  'or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an ' +
  'inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** Serves one page of `q` from `store` (see the module comment). */
export function listPage(store: ObjectStore, q: ListQuery): ListPage {
  const current = store.currentResourceVersion();
  let atRv = current;
  let after: { key: string; inclusive: boolean } | undefined;
  if (q.continueToken) {
    if (q.resourceVersion && q.resourceVersion !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(q.continueToken, q.namespace);
    after = { key: token.start, inclusive: token.inclusive };
    // rv -1 is the "inconsistent" token of a 410: continue against the latest state.
    if (token.rv > 0) atRv = token.rv;
  }
  const all = snapshotAt(store, q, atRv, after);
  const page = q.limit > 0 ? all.slice(0, q.limit) : all;
  const metadata: ListPage['metadata'] = { resourceVersion: String(atRv) };
  const last = page[page.length - 1];
  if (page.length < all.length && last) {
    metadata.continue = encodeContinue(atRv, relativeKey(last, q.namespace) + '\u0000');
    if (!q.selective) metadata.remainingItemCount = all.length - page.length;
  }
  return { items: page, metadata };
}

/**
 * The objects of `q` as they were at resourceVersion `atRv`, after the key `after`, sorted: the
 * current objects with every retained change since `atRv` undone, newest first. 410 Expired when
 * the history no longer reaches back to `atRv` (as etcd after compaction).
 */
function snapshotAt(store: ObjectStore, q: ListQuery, atRv: number, after: { key: string; inclusive: boolean } | undefined): KubeObject[] {
  const isAfter = (key: string): boolean => !after || (after.inclusive ? compareKeys(key, after.key) >= 0 : compareKeys(key, after.key) > 0);
  // The current state: read through the store's label index, as every first page is.
  if (atRv >= store.currentResourceVersion()) return store.list(q.kind, q.namespace, q.filter, q.labels).filter((obj) => isAfter(keyOf(obj)));
  const byKey = new Map<string, KubeObject>();
  for (const obj of store.list(q.kind, q.namespace)) byKey.set(keyOf(obj), obj);
  if (atRv < store.oldestResumableVersion()) throw expired(after, q.namespace);
  const changes = store.eventsSince(q.kind, atRv);
  for (let i = changes.length - 1; i >= 0; i--) {
    const ev = changes[i];
    if (!ev || (q.namespace !== undefined && ev.object.metadata.namespace !== q.namespace)) continue;
    const key = keyOf(ev.object);
    const before = ev.type === 'ADDED' ? undefined : ev.previous;
    if (before) byKey.set(key, before);
    else byKey.delete(key);
  }
  const out: KubeObject[] = [];
  for (const [key, obj] of byKey) if (isAfter(key) && q.filter(obj)) out.push(obj);
  return out.sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
}

/** 410 Expired for a token too old to be served, carrying the inconsistent token that continues at its key. */
function expired(after: { key: string; inclusive: boolean } | undefined, namespace: string | undefined): ApiError {
  const start = after ? (namespace !== undefined ? after.key.slice(namespace.length + 1) : after.key) + (after.inclusive ? '' : '\u0000') : '';
  return new ApiError(410, 'Expired', INCONSISTENT_CONTINUE, undefined, start ? { continue: encodeContinue(-1, start) } : undefined);
}

/** The object's key below the list's prefix: `name` in a namespace, `namespace/name` across them. */
function relativeKey(obj: KubeObject, namespace: string | undefined): string {
  return namespace !== undefined ? (obj.metadata.name ?? '') : keyOf(obj);
}

/** As storage.EncodeContinue: base64url (no padding) of the JSON token. */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv, start })).toString('base64url');
}

/**
 * As storage.DecodeContinue: the start key (made absolute for the list's namespace; a trailing
 * NUL, as the server writes it, means "after this key") and the resourceVersion. Any problem is
 * 400 `invalid continue token: …` with DecodeContinue's error text.
 */
function decodeContinue(token: string, namespace: string | undefined): { start: string; inclusive: boolean; rv: number } {
  const invalid = (why: string): ApiError => badRequest(`invalid continue token: ${why}`);
  if (!/^[A-Za-z0-9_-]*$/.test(token)) throw invalid('continue key is not valid: illegal base64 data');
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof parsed;
  } catch (err) {
    throw invalid(`continue key is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.v !== TOKEN_VERSION) {
    throw invalid(`continue key is not valid: server does not recognize this encoded version ${String(parsed?.v ?? '')}`);
  }
  if (typeof parsed.rv !== 'number' || !Number.isInteger(parsed.rv) || parsed.rv === 0) {
    throw invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof parsed.start !== 'string' || parsed.start === '') throw invalid('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // As DecodeContinue's path.Clean check: a key that would range outside the list's prefix is refused.
  const segments = parsed.start.replace(/^\//, '').split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw invalid(`continue key is not valid: ${parsed.start}`);
  const inclusive = !parsed.start.endsWith('\u0000');
  const relative = segments.join('/').replace(/\u0000$/, '');
  return { start: namespace !== undefined ? `${namespace}/${relative}` : relative, inclusive, rv: parsed.rv };
}
