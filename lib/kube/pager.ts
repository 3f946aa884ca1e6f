/**
 * Every page of one LIST, as client-go's pager (k8s.io/client-go/tools/pager/pager.go): ask for
 * `limit` objects at a time and follow `metadata.continue` to the end, so no answer is larger than
 * a page (see `KUBE_ANSWER_MAX_BYTES`). All pages are one snapshot at the first page's
 * resourceVersion, which the result keeps. A continue token that expired between pages (410
 * Expired: the server compacted past the list's resourceVersion) restarts the list from its first
 * page — client-go would instead fall back to one unpaged LIST, which is exactly the unbounded
 * answer paging exists to avoid — at most `MAX_LIST_RESTARTS` times.
 */
import type { KubeObject } from './port.js';
import { KubeStatusError } from './errors.js';
import { TransientError } from '../platform/errors.js';

/** A LIST answer's parts the pager reads. */
export type RawList = { items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };

/** How often a list whose continue token expired is started over before the failure is returned. */
export const MAX_LIST_RESTARTS = 2;

/**
 * The items of every page `fetchPage` returns (called with no token for the first page, then with
 * each page's `continue`), and the first page's resourceVersion. Guarantees: a partial list is never
 * returned; an expired token restarts the list (see the module comment); any other failure is thrown
 * as it came.
 */
export async function listAllPages(fetchPage: (continueToken: string | undefined) => Promise<RawList>): Promise<{ items: KubeObject[]; resourceVersion: string }> {
  return restartOnExpiredContinue(() => collectPages(fetchPage));
}

/**
 * `listOnce()`, started over when a continue token expired between its pages (see the module
 * comment), at most `MAX_LIST_RESTARTS` times; `onRestart` is told each restart. For a lister that
 * keeps less than every item (the sweep keeps keys only); any other failure is thrown as it came.
 */
export async function restartOnExpiredContinue<T>(listOnce: () => Promise<T>, onRestart?: (restarts: number) => void): Promise<T> {
  for (let restarts = 0; ; restarts++) {
    try {
      return await listOnce();
    } catch (err) {
      if (!isExpiredContinue(err) || restarts >= MAX_LIST_RESTARTS) throw err;
      onRestart?.(restarts + 1);
    }
  }
}

async function collectPages(fetchPage: (continueToken: string | undefined) => Promise<RawList>): Promise<{ items: KubeObject[]; resourceVersion: string }> {
  let page = await fetchPage(undefined);
  const resourceVersion = page.metadata?.resourceVersion ?? '';
  const items = page.items ?? [];
  while (page.metadata?.continue) {
    page = await fetchPage(page.metadata.continue);
    for (const item of page.items ?? []) items.push(item);
  }
  return { items, resourceVersion };
}

/** True for the 410 Expired a continued page gets once its token is too old. */
export function isExpiredContinue(err: unknown): boolean {
  return err instanceof TransientError && err.cause instanceof KubeStatusError && err.cause.code === 410;
}
