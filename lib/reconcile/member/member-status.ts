/**
 * Reading and replacing `status.<component>` as the rules before this one left it, for the shared
 * rules (a component's own rules use its typed status).
 */

import type { TidbClusterStatus } from '../../model/kube.js';
import type { ComponentDeclaration, MemberInput, MemberName, MemberStatus, UpgradeBlocker } from './component.js';
import { SUSPEND_PHASE } from './suspend.js';

/** The component's status in `status` (`status.<component>`, or where its declaration says), if any. */
export function componentStatusIn(component: ComponentDeclaration, status: TidbClusterStatus): MemberStatus | undefined {
  if (component.statusAt) return component.statusAt.read(status);
  return status[component.name as MemberName];
}

/** `status` with the component's status replaced by `next` (where its declaration says it lives). */
export function withComponentStatusIn(component: ComponentDeclaration, status: TidbClusterStatus, next: MemberStatus): TidbClusterStatus {
  if (component.statusAt) return component.statusAt.write(status, next);
  return { ...status, [component.name]: next };
}

/** `status.<component>` as this step has it so far (empty when there is none). */
export function memberStatusOf(input: MemberInput): MemberStatus {
  return componentStatusIn(input.scope.component, input.status) ?? {};
}

/** The status with `status.<component>` changed by `change` (the rest of it kept). */
export function withMemberStatus(input: MemberInput, change: Partial<MemberStatus>): TidbClusterStatus {
  const { component } = input.scope;
  return withComponentStatusIn(component, input.status, { ...componentStatusIn(component, input.status), ...change });
}

/**
 * Whether the component's status is synced this step: the declaration's own judgement when it has
 * one (TiDB's status has no `synced` field), else `status.<component>.synced`.
 */
export function isMemberSynced(input: MemberInput): boolean {
  const judge = input.scope.component.isSynced;
  return judge ? judge(input) : memberStatusOf(input).synced === true;
}

/**
 * The first of `blockers` in one of its phases (§1.5), or another component whose status is not
 * synced this step, as the reason, or undefined. A suspended component blocks nothing: its status is
 * cleared and not synced on purpose, and it neither upgrades nor scales while suspended (as TiDB
 * Operator's `isTiKVReadyToUpgrade`, which waits for TiFlash only in `Upgrade` or `Scale`).
 */
export function phaseBlocker(input: MemberInput, blockers: readonly UpgradeBlocker[]): string | undefined {
  for (const blocker of blockers) {
    const status = input.status[blocker.name];
    const phase = status?.phase;
    if (phase === SUSPEND_PHASE) continue;
    if (phase !== undefined && blocker.phases.includes(phase)) return `${blocker.title} is ${phase === 'Scale' ? 'scaling' : 'upgrading'}`;
    // Another component whose status could not be synced this step may be about to upgrade or scale
    // without its phase saying so yet: what waits for it waits (TiDB Operator's sync stops at its error).
    const other = blocker.name !== input.scope.component.name && input.cluster.spec[blocker.name] !== undefined;
    if (other && status !== undefined && 'synced' in status && status.synced === false) return `${blocker.title}'s status is not synced`;
  }
  return undefined;
}
