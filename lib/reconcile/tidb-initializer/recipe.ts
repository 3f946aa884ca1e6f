/**
 * The TidbInitializer controller's recipe, as v1's `tidbInitManager.Sync`
 * (`pkg/manager/member/tidb_init_manager.go:69-128` on release-1.6), one named stage a line:
 *   Validate   the spec (validate.ts): invalid ⇒ Failed with a Warning naming the field, terminal
 *   Done       Completed stays Completed: the Job is never run again, even when it is deleted (v1
 *              would re-create it and fail "Access denied", flipping the phase to Failed)
 *   Cluster    the TidbCluster missing, or without `spec.tidb` ⇒ Pending, re-checked every 30 s
 *   Job        `<cluster>-tidb-initializer` exists: another initializer's (or an earlier one's of
 *              this name, not yet garbage-collected) ⇒ Pending until it goes (v1 would copy its
 *              status as its own); ours ⇒ its status copied, phase from its conditions (v1's `updateStatus`)
 *   Mounts     what the pod mounts is missing ⇒ Pending, re-checked every 30 s (v1's pod would sit in
 *              ContainerCreating)
 *   Create     the ConfigMap (once, never updated, as v1; an earlier initializer's ⇒ Pending until it
 *              is garbage-collected) and the Job ⇒ Running
 * A Failed initializer whose Job is deleted runs again (a fresh Job), as in v1. The step writes the
 * object once, after its creates (no status subresource); Events only when the phase changes.
 */

import type { Action, EventAction } from '../../model/action.js';
import type { KubeObject, TidbCluster } from '../../model/kube.js';
import type { Outcome } from '../../model/outcome.js';
import type { Plan, RuleResult } from '../../model/plan.js';
import type { Job } from '../backup/types.js';
import { jsonEqual } from '../engine/equal.js';
import { complete, fail, wait } from '../engine/outcome.js';
import { buildInitConfigMap, buildInitJob, initializerMemberName } from './job.js';
import type { InitializePhase, TidbInitializer, TidbInitializerStatus } from './types.js';
import { type MountedSources, prerequisiteProblem, validateInitializerSpec } from './validate.js';

/** How often a Pending initializer looks again (v1's informer resync). */
export const PENDING_RECHECK_MS = 30_000;

/** One step's reads: the initializer, its TidbCluster, the Job and ConfigMap of that name, what the pod mounts. */
export type InitializerSnapshot = {
  readonly nowMs: number;
  readonly ti: TidbInitializer | undefined;
  readonly tc: TidbCluster | undefined;
  readonly job: Job | undefined;
  /** The ConfigMap `<cluster>-tidb-initializer`, if it exists. */
  readonly configMap: KubeObject | undefined;
  readonly sources: MountedSources;
};

type Draft = { status: TidbInitializerStatus; readonly creates: Action[]; readonly events: EventAction[]; readonly results: RuleResult[]; wakeAtMs?: number };

/** Plans one step of a TidbInitializer. Pure. */
export function planTidbInitializer(snap: InitializerSnapshot): Plan {
  const ti = snap.ti;
  if (ti === undefined) return { actions: [], status: undefined, outcome: complete('TidbInitializer not found'), ruleResults: [] };
  if (ti.metadata.deletionTimestamp) return { actions: [], status: undefined, outcome: complete('TidbInitializer is being deleted'), ruleResults: [] };
  const draft: Draft = { status: { ...(ti.status ?? {}) }, creates: [], events: [], results: [] };
  const outcome = runStages(draft, snap, ti);
  return toPlan(draft, ti, outcome);
}

function runStages(draft: Draft, snap: InitializerSnapshot, ti: TidbInitializer): Outcome {
  const ns = ti.metadata.namespace ?? '';
  const spec = ti.spec ?? {};
  const invalid = validateInitializerSpec(ns, spec);
  if (invalid !== undefined) {
    setPhase(draft, ti, 'Failed', 'InvalidSpec', invalid);
    return note(draft, 'Validate', fail(`invalid spec: ${invalid}`, true));
  }
  const job = snap.job;
  const jobName = initializerMemberName(spec.cluster?.name ?? '');
  if (draft.status.phase === 'Completed') {
    if (job !== undefined && ownedBy(job, ti)) copyJobStatus(draft, job);
    return note(draft, 'Done', complete('initialization Completed; it is never run again'));
  }
  const tc = snap.tc;
  if (tc === undefined || tc.spec.tidb === undefined) {
    const why = tc === undefined ? `spec.cluster.name: TidbCluster ${ns}/${spec.cluster?.name ?? ''} not found` : `spec.cluster.name: TidbCluster ${ns}/${spec.cluster?.name ?? ''} has no spec.tidb: there is no TiDB to initialise`;
    return pending(draft, ti, snap, 'Cluster', why);
  }
  if (job !== undefined) {
    if (!ownedBy(job, ti)) {
      const owner = (job.metadata.ownerReferences ?? []).find((r) => r.controller === true);
      const whose = owner ? `${owner.kind} ${owner.name}${owner.name === ti.metadata.name ? ` (uid ${owner.uid}, an earlier one)` : ''}` : 'no TidbInitializer';
      return pending(draft, ti, snap, 'Job', `Job ${ns}/${jobName} belongs to ${whose}: a TidbCluster runs one initializer at a time; waiting for that Job to go`);
    }
    const phase = copyJobStatus(draft, job);
    if (phase === 'Failed') recordChange(draft, ti, 'Failed', 'Warning', 'InitializeFailed', `Job ${ns}/${jobName} failed: delete it to run the initialization again`);
    if (phase === 'Completed') recordChange(draft, ti, 'Completed', 'Normal', 'InitializeCompleted', `Job ${ns}/${jobName} completed: TidbCluster ${ns}/${spec.cluster?.name ?? ''} is initialised`);
    setPhase(draft, ti, phase);
    return note(draft, 'Job', phase === 'Running' ? wait(`Job ${jobName} is running`) : complete(`Job ${jobName} ${phase === 'Completed' ? 'completed' : 'failed'}`));
  }
  const missing = prerequisiteProblem(ns, spec, snap.sources);
  if (missing !== undefined) return pending(draft, ti, snap, 'Mounts', missing);
  const configMap = snap.configMap;
  const otherOwner = configMap === undefined || ownedBy(configMap, ti) ? undefined : (configMap.metadata.ownerReferences ?? []).find((r) => r.controller === true && r.kind === 'TidbInitializer');
  // An earlier initializer's ConfigMap is garbage-collected with it: the new Job's pod would lose its scripts.
  if (otherOwner !== undefined) return pending(draft, ti, snap, 'Create', `ConfigMap ${ns}/${jobName} belongs to TidbInitializer ${otherOwner.name} (uid ${otherOwner.uid}); waiting for it to go`);
  if (configMap === undefined) draft.creates.push(createAction(buildInitConfigMap(ti, tc)));
  draft.creates.push(createAction(buildInitJob(ti, tc)));
  // A re-run (the Job of a Failed initializer deleted) starts from a clean Job status.
  draft.status = { phase: draft.status.phase ?? 'Running' };
  setPhase(draft, ti, 'Running', 'SuccessfulCreate', `create Job ${ns}/${jobName} for TidbCluster ${spec.cluster?.name ?? ''} successful`, 'Normal');
  return note(draft, 'Create', wait(`Job ${jobName} created`));
}

function pending(draft: Draft, ti: TidbInitializer, snap: InitializerSnapshot, rule: string, why: string): Outcome {
  setPhase(draft, ti, 'Pending', 'Waiting', why);
  draft.wakeAtMs = snap.nowMs + PENDING_RECHECK_MS;
  return note(draft, rule, wait(why));
}

/** Copies the Job's status inline (v1's `updateStatus`) and answers the phase its conditions give. */
function copyJobStatus(draft: Draft, job: Job): InitializePhase {
  const status = (job.status ?? {}) as Record<string, unknown>;
  draft.status = { ...status, ...(draft.status.phase === undefined ? {} : { phase: draft.status.phase }) };
  const conditions = job.status?.conditions ?? [];
  if (conditions.some((c) => c.type === 'Complete' && c.status === 'True')) return 'Completed';
  if (conditions.some((c) => c.type === 'Failed' && c.status === 'True')) return 'Failed';
  return 'Running';
}

/** Sets the phase; on a change, records the Event given (a Warning unless said otherwise). */
function setPhase(draft: Draft, ti: TidbInitializer, phase: InitializePhase, reason?: string, message?: string, type: 'Normal' | 'Warning' = 'Warning'): void {
  if (reason !== undefined && message !== undefined) recordChange(draft, ti, phase, type, reason, message);
  draft.status = { ...draft.status, phase };
}

function recordChange(draft: Draft, ti: TidbInitializer, phase: InitializePhase, type: 'Normal' | 'Warning', reason: string, message: string): void {
  if (ti.status?.phase === phase) return;
  draft.events.push({ kind: 'event', type, reason, message, object: { kind: 'TidbInitializer', namespace: ti.metadata.namespace ?? '', name: ti.metadata.name ?? '' }, ...(ti.metadata.uid === undefined ? {} : { involvedUid: ti.metadata.uid }) });
}

function ownedBy(object: KubeObject, ti: TidbInitializer): boolean {
  return (object.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.kind === 'TidbInitializer' && r.name === ti.metadata.name && (ti.metadata.uid === undefined || r.uid === ti.metadata.uid));
}

function createAction(object: KubeObject): Action {
  const kind = object.kind === 'Job' ? 'Job' : 'ConfigMap';
  return { kind: 'create', ref: { kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '' }, object };
}

function note(draft: Draft, rule: string, outcome: Outcome): Outcome {
  draft.results.push({ rule, outcome });
  return outcome;
}

/** The creates, then the one write of the object when its status changed, then Events. */
function toPlan(draft: Draft, ti: TidbInitializer, outcome: Outcome): Plan {
  const actions: Action[] = [...draft.creates];
  if (!jsonEqual(draft.status, ti.status ?? {})) {
    const ref = { kind: 'TidbInitializer' as const, namespace: ti.metadata.namespace ?? '', name: ti.metadata.name ?? '' };
    actions.push({ kind: 'update', ref, object: { ...ti, status: draft.status }, resourceVersion: ti.metadata.resourceVersion ?? '' });
  }
  actions.push(...draft.events);
  const plan: Plan = { actions, status: undefined, outcome, ruleResults: draft.results };
  return draft.wakeAtMs === undefined ? plan : { ...plan, nextWakeAtMs: draft.wakeAtMs };
}
