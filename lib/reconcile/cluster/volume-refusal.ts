/**
 * A volume change the cluster cannot make is never silent (ours; TiDB Operator v1.6 only logs it,
 * docs/reference/volumes.md "Ours"): while any claim of a component cannot take the size the spec
 * asks — its StorageClass does not allow expansion, or the size is smaller than the claim's — the
 * TidbCluster carries the condition `VolumeModifyRefused` (status True) naming the component, the
 * claims and the StorageClass, and a Warning Event with the condition's reason and message is
 * recorded each time that message changes. The condition goes once nothing is refused.
 */

import type { EventAction } from '../../model/action.js';
import type { TidbCluster, TidbClusterStatus } from '../../model/kube.js';
import { toKubeTime, type ClusterCondition } from './condition.js';
import { clusterWarning } from './events.js';
import type { VolumeRefusal } from '../member/volume-phase.js';

/** The condition type of a refused volume change. */
export const VOLUME_REFUSED_CONDITION = 'VolumeModifyRefused';

/** Reasons of that condition and its Warning Event. */
export const VOLUME_REFUSED_REASON = {
  noExpansion: 'StorageClassDisallowsExpansion',
  shrink: 'VolumeShrinkRefused',
  classChange: 'StorageClassChangeRefused',
} as const;

/** The refusals of one component, titled as messages name it (`TiKV`). */
export type ComponentRefusals = { readonly title: string; readonly refusals: readonly VolumeRefusal[] };

const list = (names: readonly string[]): string => names.join(', ');

/** One sentence per kind of refusal of a component, naming its claims and the StorageClass. */
export function describeRefusals(group: ComponentRefusals): string[] {
  const out: string[] = [];
  const byClass = new Map<string, VolumeRefusal[]>();
  for (const r of group.refusals) if (r.kind === 'noExpansion') byClass.set(r.storageClass, [...(byClass.get(r.storageClass) ?? []), r]);
  for (const [sc, rs] of byClass) {
    const why = rs.some((r) => r.kind === 'noExpansion' && !r.found) ? `StorageClass "${sc}" does not exist` : `StorageClass "${sc}" does not allow volume expansion (allowVolumeExpansion is not true)`;
    out.push(`${group.title} claims ${list(rs.map((r) => r.claim))} cannot grow: ${why}`);
  }
  const changes = group.refusals.filter((r): r is Extract<VolumeRefusal, { kind: 'classChange' }> => r.kind === 'classChange');
  const byWhy = new Map<string, typeof changes>();
  for (const r of changes) byWhy.set(`${r.from}\n${r.to}\n${r.why}`, [...(byWhy.get(`${r.from}\n${r.to}\n${r.why}`) ?? []), r]);
  for (const rs of byWhy.values()) {
    const first = rs[0];
    if (first) out.push(`${group.title} claims ${list(rs.map((r) => r.claim))} cannot move from StorageClass "${first.from}" to "${first.to}": ${first.why}`);
  }
  const shrinks = group.refusals.filter((r): r is Extract<VolumeRefusal, { kind: 'shrink' }> => r.kind === 'shrink');
  if (shrinks.length > 0) {
    const first = shrinks[0];
    out.push(`${group.title} claims ${list(shrinks.map((r) => r.claim))} cannot shrink from ${first?.from ?? ''} to ${first?.to ?? ''}: a volume can only grow`);
  }
  return out;
}

/**
 * The status and actions for `groups` (components with at least one refusal). Guarantees: the
 * status is unchanged (undefined) when the condition already says exactly this (or is absent and
 * nothing is refused); one Warning Event only when the message changes.
 */
export function planRefusalCondition(tc: TidbCluster, status: TidbClusterStatus, groups: readonly ComponentRefusals[], nowMs: number): { status?: TidbClusterStatus; actions: EventAction[]; message?: string } {
  const current = status.conditions ?? [];
  const reported = current.find((c) => c.type === VOLUME_REFUSED_CONDITION);
  const sentences = groups.flatMap(describeRefusals);
  if (sentences.length === 0) {
    if (!reported) return { actions: [] };
    return { status: { ...status, conditions: current.filter((c) => c.type !== VOLUME_REFUSED_CONDITION) }, actions: [] };
  }
  const message = `${sentences.join('; ')}; the spec's storage request is not applied to these claims`;
  const has = (kind: VolumeRefusal['kind']): boolean => groups.some((g) => g.refusals.some((r) => r.kind === kind));
  const reason = has('noExpansion') ? VOLUME_REFUSED_REASON.noExpansion : has('classChange') ? VOLUME_REFUSED_REASON.classChange : VOLUME_REFUSED_REASON.shrink;
  if (reported?.status === 'True' && reported.message === message && reported.reason === reason) return { actions: [], message };
  const now = toKubeTime(nowMs);
  const since = reported?.status === 'True' ? (reported.lastTransitionTime ?? now) : now;
  const condition: ClusterCondition = { type: VOLUME_REFUSED_CONDITION, status: 'True', reason, message, lastUpdateTime: now, lastTransitionTime: since };
  const conditions = [...current.filter((c) => c.type !== VOLUME_REFUSED_CONDITION), condition];
  return { status: { ...status, conditions }, actions: [clusterWarning(tc, reason, message)], message };
}
