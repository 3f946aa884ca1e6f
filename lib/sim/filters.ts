/**
 * Turns a request's `labelSelector` and `fieldSelector` into one object predicate, parsing both up
 * front so a bad selector is a 400 before any work is done.
 */
import type { KubeObject } from './object.js';
import { type LabelRequirement, matchesFieldSelector, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { LabelEquals } from './store-bucket.js';
import type { ObjectFilter } from './store.js';

/**
 * A parsed selection: the predicate, and the `key=value` terms it requires (for the store's label
 * index; the predicate alone decides what matches).
 */
export type Selection = { readonly filter: ObjectFilter; readonly labels: LabelEquals };

/** The predicate for the two selector query values (either may be null or empty). */
export function buildFilter(kind: string, labelSelector: string | null | undefined, fieldSelector: string | null | undefined): ObjectFilter {
  return buildSelection(kind, labelSelector, fieldSelector).filter;
}

/** `buildFilter`'s predicate with the label equalities it requires. */
export function buildSelection(kind: string, labelSelector: string | null | undefined, fieldSelector: string | null | undefined): Selection {
  const labels = parseLabelSelector(labelSelector ?? '');
  const fields = parseFieldSelector(kind, fieldSelector ?? '');
  if (labels.length === 0 && fields.length === 0) return { filter: () => true, labels: [] };
  return { filter: (obj: KubeObject) => matchesLabels(labels, obj.metadata.labels) && matchesFieldSelector(fields, obj), labels: equalities(labels) };
}

/** The requirements that name exactly one value (`a=b`, `a==b`, `a in (b)`). */
function equalities(requirements: readonly LabelRequirement[]): LabelEquals {
  return requirements.flatMap((r) => (r.operator === 'In' && r.values.length === 1 && r.values[0] !== undefined ? [{ key: r.key, value: r.values[0] }] : []));
}
