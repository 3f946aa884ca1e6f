/**
 * A StatefulSet's history, as controller_history.go and getStatefulSetRevisions keep it: one
 * ControllerRevision `<set>-<hash>` per distinct pod template (data = the template as a replace
 * patch), a template that returns to an old value reuses that revision with its Revision number
 * bumped, hash collisions bump status.collisionCount, and revisions no pod uses are pruned beyond
 * revisionHistoryLimit.
 */
import { ApiError } from '../api-error.js';
import { type KubeObject, controllerOf, jsonEqual } from '../object.js';
import { matchLabelSelector } from '../selectors.js';
import type { ObjectStore } from '../store.js';
import { controllerRef, createdAtMs, isControlledBy } from './base.js';
import { contentHash } from './hash.js';
import { REVISION_LABEL, podRevision, statefulSetSpec } from './statefulset-pods.js';

/** The revision a sync rolls from and the one it rolls to, and the collision count it used. */
export type RevisionPair = { current: KubeObject; update: KubeObject; collisionCount: number };

/** The revision's data: the set's pod template as a strategic-merge `replace` patch (getPatch). */
export function revisionData(set: KubeObject): { spec: { template: Record<string, unknown> } } {
  return { spec: { template: { ...structuredClone(set.spec?.template ?? {}), $patch: 'replace' } } };
}

/** The pod template stored in a revision (ApplyRevision), without the patch directive. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function revisionTemplate(revision: KubeObject): any {
  const { $patch: _directive, ...template } = (revision.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template ?? {};
  return template;
}

/** Revisions by Revision number, then creation time, then name (SortControllerRevisions). */
export function sortRevisions(revisions: KubeObject[]): KubeObject[] {
  const num = (r: KubeObject): number => (typeof r.revision === 'number' ? r.revision : 0);
  return revisions.sort((a, b) => num(a) - num(b) || createdAtMs(a) - createdAtMs(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** The set's revisions, adopting orphans its selector matches (unless the set is being deleted). */
export function listRevisions(store: ObjectStore, set: KubeObject): KubeObject[] {
  const out: KubeObject[] = [];
  for (const rev of store.list('ControllerRevision', set.metadata.namespace)) {
    if (!matchLabelSelector(set.spec?.selector, rev.metadata.labels)) continue;
    if (isControlledBy(rev, set.metadata.uid)) out.push(rev);
    else if (!controllerOf(rev) && !set.metadata.deletionTimestamp) {
      const refs = [...(rev.metadata.ownerReferences ?? []), controllerRef(set)];
      out.push(store.update('ControllerRevision', { ...rev, metadata: { ...rev.metadata, ownerReferences: refs } }));
    }
  }
  return sortRevisions(out);
}

function newRevision(set: KubeObject, revision: number, collisionCount: number): KubeObject {
  const data = revisionData(set);
  const hash = contentHash(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${set.metadata.name ?? ''}-${hash}`,
      namespace: set.metadata.namespace,
      labels: { ...(set.spec?.template?.metadata?.labels ?? {}), [REVISION_LABEL]: hash },
      ...(set.metadata.annotations ? { annotations: { ...set.metadata.annotations } } : {}),
      ownerReferences: [controllerRef(set)],
    },
    data,
    revision,
  };
}

/** Creates the revision, moving past names taken by different data (CreateControllerRevision). */
function createRevision(store: ObjectStore, set: KubeObject, revision: number, collisionCount: number): { created: KubeObject; collisionCount: number } {
  for (let count = collisionCount; ; count++) {
    const candidate = newRevision(set, revision, count);
    try {
      return { created: store.create('ControllerRevision', candidate), collisionCount: count };
    } catch (err) {
      if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
      const existing = store.get('ControllerRevision', set.metadata.namespace, candidate.metadata.name ?? '');
      if (existing && jsonEqual(existing.data, candidate.data)) return { created: existing, collisionCount: count };
    }
  }
}

/**
 * getStatefulSetRevisions: the update revision is the latest revision when its data equals the
 * template, an older equal revision renumbered to the next Revision (a rollback), or a new one; the
 * current revision is the one named in status.currentRevision, else the update revision.
 */
export function syncRevisions(store: ObjectStore, set: KubeObject, revisions: readonly KubeObject[]): RevisionPair {
  let collisionCount = typeof set.status?.collisionCount === 'number' ? set.status.collisionCount : 0;
  const data = revisionData(set);
  const last = revisions[revisions.length - 1];
  const next = (typeof last?.revision === 'number' ? last.revision : 0) + 1;
  const equal = revisions.filter((r) => jsonEqual(r.data, data));
  const latestEqual = equal[equal.length - 1];
  let update: KubeObject;
  if (latestEqual && last && latestEqual.metadata.name === last.metadata.name) {
    update = last;
  } else if (latestEqual) {
    update = store.update('ControllerRevision', { ...latestEqual, revision: next });
  } else {
    const result = createRevision(store, set, next, collisionCount);
    update = result.created;
    collisionCount = result.collisionCount;
  }
  const current = revisions.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
  return { current, update, collisionCount };
}

/**
 * truncateHistory: revisions that are neither current, update, nor any pod's are history; the
 * oldest history beyond revisionHistoryLimit is deleted.
 */
export function truncateHistory(store: ObjectStore, set: KubeObject, pods: readonly KubeObject[], revisions: readonly KubeObject[], pair: RevisionPair): void {
  const live = new Set([pair.current.metadata.name, pair.update.metadata.name, ...pods.map(podRevision)]);
  const history = revisions.filter((r) => !live.has(r.metadata.name));
  const excess = history.length - statefulSetSpec(set).revisionHistoryLimit;
  for (const rev of history.slice(0, Math.max(0, excess))) {
    try {
      store.delete('ControllerRevision', rev.metadata.namespace, rev.metadata.name ?? '');
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
}
