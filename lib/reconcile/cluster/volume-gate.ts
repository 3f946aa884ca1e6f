/**
 * When a component's claims may be resized, and how its status says one is under way. As TiDB
 * Operator v1.6's modifier: only while `status.<component>.phase` is `Normal` (not scaling,
 * upgrading or suspended). Ours on top (the member recipe's rolling gate): every pod of the component
 * Ready, every PD member healthy and every TiKV / TiFlash store Up — a volume is never grown while a
 * member is unhealthy. Progress shows in `status.<component>.conditions` as the older v1 resizer set
 * it: `ComponentVolumeResizing` True (`BeginResizing`) while claims are in flight, False
 * (`EndResizing`, "All volumes are resized") once they are.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbClusterStatus } from '../../model/kube.js';
import type { RuleInput } from '../engine/rule.js';
import type { ComponentDeclaration } from '../member/component.js';
import { componentStatusIn } from '../member/member-status.js';
import { toKubeTime } from './condition.js';

/** The component condition type of the v1 resizer (exact string). */
export const VOLUME_RESIZING_CONDITION = 'ComponentVolumeResizing';

type MetaCondition = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };

const isReady = (pod: IPod): boolean => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Why the claims of `component` may not be resized now, or undefined when they may. */
export function resizeGateProblem(input: RuleInput, component: ComponentDeclaration, pods: readonly IPod[]): string | undefined {
  const status = componentStatusIn(component, input.status) as { phase?: string } | undefined;
  if (status?.phase !== 'Normal') return `component phase is ${status?.phase ?? 'unknown'}, not Normal`;
  const notReady = pods.filter((p) => !isReady(p) || p.metadata?.deletionTimestamp !== undefined).map((p) => p.metadata?.name ?? '');
  if (notReady.length > 0) return `pods not ready: ${notReady.join(', ')}`;
  if (component.name === 'pd') {
    const sick = Object.values(input.status.pd?.members ?? {}).filter((m) => !m.health).map((m) => m.name);
    if (sick.length > 0) return `PD members not healthy: ${sick.join(', ')}`;
  }
  if (component.name === 'tikv' || component.name === 'tiflash') {
    const stores = Object.values(input.status[component.name]?.stores ?? {});
    const down = stores.filter((s) => s.state !== 'Up').map((s) => `${s.podName} (${s.state})`);
    if (down.length > 0) return `stores not Up: ${down.join(', ')}`;
  }
  return undefined;
}

/**
 * The status with `status.<component>.conditions[ComponentVolumeResizing]` set for `resizing`.
 * Guarantees: the same status object when nothing changes — a component that never resized gets no
 * condition; one that did keeps a False condition once done.
 */
export function withResizingCondition(status: TidbClusterStatus, component: ComponentDeclaration, resizing: boolean, nowMs: number): TidbClusterStatus {
  const own = componentStatusIn(component, status) as { conditions?: MetaCondition[] } | undefined;
  if (own === undefined) return status;
  const conditions = own.conditions ?? [];
  const current = conditions.find((c) => c.type === VOLUME_RESIZING_CONDITION);
  if (!resizing && current === undefined) return status;
  const want = resizing
    ? { status: 'True', reason: 'BeginResizing', message: 'Set resizing condition to begin resizing' }
    : { status: 'False', reason: 'EndResizing', message: 'All volumes are resized' };
  if (current?.status === want.status) return status;
  const next: MetaCondition = { type: VOLUME_RESIZING_CONDITION, ...want, lastTransitionTime: toKubeTime(nowMs) };
  return { ...status, [component.name]: { ...own, conditions: [...conditions.filter((c) => c.type !== VOLUME_RESIZING_CONDITION), next] } };
}
