/**
 * One full LIST of a watched resource, page by page, as the exporter takes it to resync or to
 * rebuild what it keeps from a resource (the reference index).
 */
import type { KubeObject } from '../kube/port.js';
import type { WatchSource } from './ports.js';
import type { WatchedResource } from './resources.js';

/**
 * Every page of one LIST of `resource`: one snapshot, at the first page's resourceVersion.
 * Guarantees: follows `continue` tokens until the last page; throws (without a result) when
 * `isStopping` holds before the last page was read, so a partial list is never used.
 */
export async function listAll(source: WatchSource, resource: WatchedResource, pageSize: number, isStopping: () => boolean): Promise<{ resourceVersion: string; items: KubeObject[] }> {
  let page = await source.list(resource, { limit: pageSize });
  const { resourceVersion } = page;
  const items = [...page.items];
  while (page.continue && !isStopping()) {
    page = await source.list(resource, { limit: pageSize, continue: page.continue });
    items.push(...page.items);
  }
  if (isStopping()) throw new Error(`stopped during a list of ${resource.name}`);
  return { resourceVersion, items };
}
