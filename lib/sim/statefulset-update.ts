/**
 * What the API server checks when a StatefulSet's spec is updated (kubernetes
 * pkg/apis/apps/validation/validation.go `ValidateStatefulSetUpdate`): the spec is immutable except
 * `replicas`, `ordinals`, `template`, `updateStrategy`, `revisionHistoryLimit`,
 * `persistentVolumeClaimRetentionPolicy` and `minReadySeconds` — a changed `volumeClaimTemplates`,
 * `selector`, `serviceName` or `podManagementPolicy` is 422 `spec: Forbidden: …`. The comparison is
 * `apiequality.Semantic.DeepEqual`, which counts an empty list or map as equal to an absent one.
 */

import { jsonEqual, type KubeObject } from './object.js';
import type { Cause } from './validation.js';

/** The spec fields an update may change (the clone's overwritten fields in `ValidateStatefulSetUpdate`). */
const MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

/** The real message (Kubernetes ≥ 1.27, where `ordinals` joined the list). */
export const STATEFULSET_SPEC_FORBIDDEN =
  "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/** `value` with empty lists and maps (and nulls) dropped, at every depth: Semantic.DeepEqual's view. */
function semantic(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(semantic);
  if (value === null || typeof value !== 'object') return value ?? undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const s = semantic(v);
    if (s !== undefined) out[k] = s;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function frozen(sts: KubeObject): unknown {
  const spec: Record<string, unknown> = { ...(sts.spec ?? {}) };
  for (const field of MUTABLE) delete spec[field];
  return semantic(spec);
}

/** The causes `ValidateStatefulSetUpdate` finds in `next` against `old` beyond the spec's own validation (none when valid). */
export function statefulSetUpdateCauses(old: KubeObject, next: KubeObject): Cause[] {
  if (jsonEqual(frozen(next), frozen(old))) return [];
  return [{ field: 'spec', reason: 'FieldValueForbidden', message: STATEFULSET_SPEC_FORBIDDEN }];
}
