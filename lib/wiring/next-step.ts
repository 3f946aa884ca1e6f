/**
 * What the next reconcile step of one TidbCluster would do, without doing it: the step's own observe
 * function reads the cluster (Kubernetes and PD reads only), the planner runs the registry's rules,
 * and the commit's schedule arithmetic says when the key would wake. Nothing is claimed, written,
 * sent or armed: the persisted part of the snapshot is a fresh in-memory state (fence 0, no failures,
 * no deadlines — what a first step sees), and every port but the observer refuses to be used.
 *
 * This is the one place `plan` meets the step engine's and planner's entry points.
 */

import { randomUUID } from 'node:crypto';

import type { ClusterKey, ClusterRef } from '../model/key.js';
import type { Plan } from '../model/plan.js';
import type { Snapshot } from '../model/snapshot.js';
import type { Clock } from '../platform/clock.js';
import type { StepConfig } from '../platform/config.js';
import { TerminalError } from '../platform/errors.js';
import { silentLogger } from '../platform/logger.js';
import { silentMetrics } from '../platform/metrics.js';
import { clusterRules } from '../reconcile/cluster/recipe.js';
import { planStep } from '../reconcile/engine/planner.js';
import type { StateRecord } from '../state/port.js';
import type { StepContext } from '../step/context.js';
import { observeStep } from '../step/observe.js';
import type { StepPorts } from '../step/ports.js';
import { planSchedule } from '../step/schedule.js';
import type { ClusterClients } from './clients.js';
import { ObservedIndex } from './observed.js';
import { LiveObserver } from './observer.js';

/** The trigger a planned step is described with (it never reaches a queue or a history record). */
export const PLAN_TRIGGER = 'plan';

/**
 * What the next step would do: its snapshot and plan, and when it would ask to be woken. For a paused
 * cluster, `resumed` is the plan the same step would make were `spec.paused` false (what `resume`
 * would do).
 */
export type NextStep =
  | { readonly ok: true; readonly snapshot: Snapshot; readonly plan: Plan; readonly wakeAtMs: number | undefined; readonly resumed?: Plan }
  | { readonly ok: false; readonly error: string };

/** What planning one cluster needs: read-only clients bounded by `deadlineAtMs`, a clock and the settings. */
export type NextStepInput = {
  readonly clients: ClusterClients;
  readonly clock: Clock;
  readonly config: StepConfig;
  readonly key: ClusterKey;
  readonly ref: ClusterRef;
  readonly deadlineAtMs: number;
};

/**
 * Observes the cluster and plans its next step. Guarantees: only the observer's reads reach the
 * cluster; a read that fails is the answer's `error`, never a throw; the wake-up is the one the
 * commit would arm for this outcome (the backoff of a failure with its jitter at the middle).
 */
export async function planNextStep(input: NextStepInput): Promise<NextStep> {
  const observed = await observeCluster(input);
  if (!observed.ok) return observed;
  const { snapshot, claimed, trigger } = observed;
  const plan = planStep(snapshot, clusterRules);
  const schedule = planSchedule({
    outcome: plan.outcome,
    planWakeAtMs: plan.nextWakeAtMs,
    nowMs: snapshot.nowMs,
    claimed,
    trigger,
    backoff: input.config.reconcile.backoff,
    random: () => 0.5,
  });
  const cluster = snapshot.cluster;
  const resumed = cluster?.spec.paused === true ? planStep({ ...snapshot, cluster: { ...cluster, spec: { ...cluster.spec, paused: false } } }, clusterRules) : undefined;
  return { ok: true, snapshot, plan, wakeAtMs: schedule.wantWakeAtMs, ...(resumed ? { resumed } : {}) };
}

type Observed = { readonly ok: true; readonly snapshot: Snapshot; readonly claimed: StateRecord; readonly trigger: StepContext['trigger'] } | { readonly ok: false; readonly error: string };

/**
 * The snapshot a step would see (the TidbCluster, what it owns, its volumes, PD), read with the
 * step's own observe function and nothing else; a read that fails is the answer's `error`.
 */
export async function observeCluster(input: NextStepInput): Promise<Observed> {
  const { clock, config, key, ref } = input;
  const nowMs = clock.nowMs();
  const claimed: StateRecord = { key, fence: 0, lease: undefined, dirty: false, failures: 0, nextWakeAtMs: undefined, lastStep: undefined };
  const ctx: StepContext = {
    key,
    ref,
    trigger: { reason: PLAN_TRIGGER },
    owner: PLAN_TRIGGER,
    reconcileId: randomUUID(),
    ports: readOnlyPorts(new LiveObserver(input.clients, new ObservedIndex()), clock),
    config,
    startedAtMs: nowMs,
    deadlineAtMs: input.deadlineAtMs,
    fence: 0,
    claimed,
    deadlines: [],
    storeIds: [],
    workSignal: AbortSignal.timeout(Math.max(1, input.deadlineAtMs - nowMs)),
    commitSignal: AbortSignal.timeout(Math.max(1, input.deadlineAtMs - nowMs)),
  };
  const observed = await observeStep(ctx);
  if (!observed.ok) return { ok: false, error: observed.outcome.error };
  return { ok: true, snapshot: observed.snapshot, claimed, trigger: ctx.trigger };
}

/** Step ports whose every part but the observer and the clock refuses: a plan changes nothing. */
function readOnlyPorts(observer: LiveObserver, clock: Clock): StepPorts {
  return {
    observer,
    clock,
    logger: silentLogger,
    metrics: silentMetrics,
    state: refusing('state'),
    executor: refusing('executor'),
    timers: refusing('timers'),
    queue: refusing('queue'),
  };
}

function refusing<T extends object>(port: string): T {
  return new Proxy({} as T, {
    get: (_target, method) => () => {
      throw new TerminalError(`a plan only reads: ${port}.${String(method)} is not allowed`);
    },
  });
}
