/**
 * Unmanaged is never silent. A TidbCluster may hold component sections no rule of the recipe
 * reconciles (PD microservices `pdms`, or a component whose declaration is not in the
 * recipe): TiDB Operator would run them, so leaving them alone without a word would let a user
 * believe they run. Each step the cluster carries the condition `Unmanaged` (status True, reason
 * `UnmanagedComponents`) naming them, and a Warning Event with the same reason and message is
 * recorded when that message changes (once per set of sections, not on every sweep); the condition is
 * removed once no such section is left. Nothing else is held back: the other components are
 * reconciled as usual in the same step (the `Ready` condition still counts what is not running).
 */

import type { TidbClusterStatus } from '../../model/kube.js';
import { complete } from '../engine/outcome.js';
import type { Decision, Rule, RuleInput } from '../engine/rule.js';
import { toKubeTime, type ClusterCondition } from './condition.js';
import { clusterWarning } from './events.js';

/** The condition type naming the sections nothing reconciles. */
export const UNMANAGED_CONDITION = 'Unmanaged';

/** The reason of that condition and of its Warning Event. */
export const UNMANAGED_REASON = 'UnmanagedComponents';

/** The TidbCluster spec sections that are components (TiDB Operator v1 runs each), with how messages call them. */
export const COMPONENT_SECTIONS: Readonly<Record<string, string>> = {
  pd: 'PD',
  pdms: 'PD microservices',
  tiproxy: 'TiProxy',
  tiflash: 'TiFlash',
  tikv: 'TiKV',
  pump: 'Pump',
  tidb: 'TiDB',
  ticdc: 'TiCDC',
};

/** The spec sections the blocks of `rules` reconcile (each component block names its section). */
export function managedSections(rules: readonly Rule[]): ReadonlySet<string> {
  return new Set(rules.flatMap((rule) => (rule.kind === 'block' && rule.section !== undefined ? [rule.section] : [])));
}

/** The component sections `spec` holds that are not in `managed`, in `COMPONENT_SECTIONS` order. */
export function unmanagedSections(spec: Readonly<Record<string, unknown>>, managed: ReadonlySet<string>): string[] {
  return Object.keys(COMPONENT_SECTIONS).filter((section) => spec[section] !== undefined && spec[section] !== null && !managed.has(section));
}

/** `spec.tiproxy (TiProxy), spec.pdms (PD microservices) are not reconciled: …`. */
export function describeUnmanaged(sections: readonly string[]): string {
  const named = sections.map((s) => `spec.${s} (${COMPONENT_SECTIONS[s] ?? s})`).join(', ');
  const verb = sections.length === 1 ? 'is' : 'are';
  return `${named} ${verb} not reconciled by tidb-reconciler: no objects are created or changed for ${sections.length === 1 ? 'it' : 'them'}; the rest of the cluster is reconciled`;
}

function unmanagedCondition(previous: ClusterCondition | undefined, message: string, nowMs: number): ClusterCondition {
  const now = toKubeTime(nowMs);
  const since = previous?.status === 'True' ? (previous.lastTransitionTime ?? now) : now;
  return { type: UNMANAGED_CONDITION, status: 'True', reason: UNMANAGED_REASON, message, lastUpdateTime: now, lastTransitionTime: since };
}

/**
 * The `Unmanaged` rule, for a recipe whose blocks reconcile `managed`. Guarantees: always completes
 * and never stops the sequence; asks for one Warning Event only when the condition's message changes;
 * leaves the status unchanged (undefined) when the condition is already as it should be, so a steady
 * cluster writes nothing; removes the condition once no unmanaged section is left.
 */
export function planUnmanaged(input: RuleInput, managed: ReadonlySet<string>): Decision {
  const { cluster, status, snapshot } = input;
  const sections = unmanagedSections(cluster.spec as Record<string, unknown>, managed);
  const current = status.conditions ?? [];
  const reported = current.find((c) => c.type === UNMANAGED_CONDITION);
  if (sections.length === 0) {
    if (reported === undefined) return { actions: [], outcome: complete() };
    const next: TidbClusterStatus = { ...status, conditions: current.filter((c) => c.type !== UNMANAGED_CONDITION) };
    return { status: next, actions: [], outcome: complete('no unmanaged section left') };
  }
  const message = describeUnmanaged(sections);
  if (reported?.status === 'True' && reported.message === message) return { actions: [], outcome: complete() };
  const conditions = [...current.filter((c) => c.type !== UNMANAGED_CONDITION), unmanagedCondition(reported, message, snapshot.nowMs)];
  return { status: { ...status, conditions }, actions: [clusterWarning(cluster, UNMANAGED_REASON, message)], outcome: complete(message) };
}
