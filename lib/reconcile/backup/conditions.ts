/**
 * Backup and Restore conditions as v1 keeps them (TiDB Operator v1's `pkg/apis/pingcap/v1alpha1`): one entry per type,
 * an entry of a new type appended, `status.phase` set to the type of the condition last written —
 * except `Restart`, which never changes the phase (`UpdateBackupCondition`, `backup.go:131-171`).
 * Old entries are never removed.
 */

import type { BackupCondition } from './types.js';

/** The status shape conditions live in (Backup's and Restore's). */
export type WithConditions = { readonly phase?: string; readonly conditions?: readonly BackupCondition[]; readonly [field: string]: unknown };

/** Kubernetes' `metav1.Time` text (RFC 3339, whole seconds) of `nowMs`. */
export function kubeTime(nowMs: number): string {
  return new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Epoch ms of a `metav1.Time`, or undefined when absent or unparsable. */
export function parseKubeTime(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * `status` with `condition` written as v1 writes it. Guarantees: the entry of that type is replaced
 * (its `lastTransitionTime` kept when its status did not change) or appended; `phase` becomes the
 * condition's type unless it is `Restart`; nothing else changes.
 */
export function withCondition<S extends WithConditions>(status: S, condition: Omit<BackupCondition, 'lastTransitionTime'>, nowMs: number): S {
  const conditions = [...(status.conditions ?? [])];
  const index = conditions.findIndex((c) => c.type === condition.type);
  const previous = index < 0 ? undefined : conditions[index];
  const since = previous !== undefined && previous.status === condition.status ? previous.lastTransitionTime : kubeTime(nowMs);
  const entry: BackupCondition = { ...condition, ...(since === undefined ? {} : { lastTransitionTime: since }) };
  if (index < 0) conditions.push(entry);
  else conditions[index] = entry;
  const phase = condition.type === 'Restart' ? status.phase : condition.type;
  return { ...status, conditions, ...(phase === undefined ? {} : { phase }) };
}

/** Whether the condition of `type` is True. */
export function hasCondition(status: WithConditions | undefined, type: string): boolean {
  return (status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}
