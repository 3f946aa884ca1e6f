/**
 * Turns a request's `labelSelector` and `fieldSelector` into one object predicate, parsing both up
 * front so a bad selector is a 400 before any work is done.
 */
import type { KubeObject } from './object.js';
import { matchesFieldSelector, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ObjectFilter } from './store.js';

/** The predicate for the two selector query values (either may be null or empty). */
export function buildFilter(kind: string, labelSelector: string | null | undefined, fieldSelector: string | null | undefined): ObjectFilter {
  const labels = parseLabelSelector(labelSelector ?? '');
  const fields = parseFieldSelector(kind, fieldSelector ?? '');
  if (labels.length === 0 && fields.length === 0) return () => true;
  return (obj: KubeObject) => matchesLabels(labels, obj.metadata.labels) && matchesFieldSelector(fields, obj);
}
