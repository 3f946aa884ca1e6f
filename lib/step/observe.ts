/**
 * Observing: the Observer's view of the world plus the key's persisted deadlines (returned by the
 * claim), assembled into the snapshot the rules read.
 */

import type { Snapshot } from '../model/snapshot.js';
import { operatorCheckDue } from '../model/tidb-operator.js';
import type { FailOutcome } from '../model/outcome.js';
import type { StoredDeadline, VerifiedCluster } from '../state/port.js';
import type { StepContext } from './context.js';
import { outcomeForError } from './error-outcome.js';
import { isHealthTrigger, type Observation } from './ports.js';
import { SWEEP_REASON } from './sweep.js';

/** The snapshot, or the failure that prevented it (the step then commits that failure). */
export type ObserveResult =
  | { readonly ok: true; readonly snapshot: Snapshot }
  | { readonly ok: false; readonly outcome: FailOutcome };

/**
 * Reads the world. Guarantees: never throws; any error becomes a
 * `fail` outcome (terminal for `TerminalError`); the snapshot's `nowMs` is taken after the reads, so
 * rules compare deadlines with a time no earlier than what they observed.
 */
export async function observeStep(ctx: StepContext): Promise<ObserveResult> {
  const { ports, key, ref } = ctx;
  const signal = ctx.workSignal;
  try {
    const verified = restVerification(ctx);
    const nowMs = ports.clock.nowMs();
    // A producer that saw a controller manager appear (or may have missed it) asks for the check (docs/adr/0024).
    const checkOperator = ctx.trigger.checkTidbOperator === true || operatorCheckDue(ctx.deadlines, nowMs, undefined);
    const persistedRead = ctx.claimed.lastStep?.persistedRead;
    const health = verified !== undefined && isHealthTrigger(ctx.trigger) ? { health: true, ...(persistedRead === undefined ? {} : { persistedRead }) } : {};
    const observation = await ports.observer.observe({ key, ref, fence: ctx.fence, nowMs, signal, ...(verified ? { verified } : {}), ...health, ...(checkOperator ? { checkTidbOperator: true as const } : {}) });
    return { ok: true, snapshot: toSnapshot(ctx, observation, ctx.deadlines) };
  } catch (err) {
    return { ok: false, outcome: outcomeForError(err, 'observe') };
  }
}

/**
 * What the step may read at rest against: the cluster the last step verified, when that step
 * completed and this trigger is not the sweep's (the sweep's step reads everything, so drift of what
 * is skipped at rest is found within a sweep interval).
 */
export function restVerification(ctx: Pick<StepContext, 'claimed' | 'trigger'>): VerifiedCluster | undefined {
  const last = ctx.claimed.lastStep;
  if (last?.outcome !== 'complete' || ctx.trigger.reason === SWEEP_REASON) return undefined;
  return last.verified;
}

function toSnapshot(ctx: StepContext, observation: Observation, deadlines: readonly StoredDeadline[]): Snapshot {
  const { claimed } = ctx;
  return {
    key: ctx.key,
    ref: ctx.ref,
    nowMs: ctx.ports.clock.nowMs(),
    cluster: observation.cluster,
    owned: observation.owned,
    components: observation.components,
    ...(observation.volumes === undefined ? {} : { volumes: observation.volumes }),
    ...(observation.tikvLeaders === undefined ? {} : { tikvLeaders: observation.tikvLeaders }),
    ...(observation.nodes === undefined ? {} : { nodes: observation.nodes }),
    ...(observation.storageClasses === undefined ? {} : { storageClasses: observation.storageClasses }),
    ...(observation.ebsModifications === undefined ? {} : { ebsModifications: observation.ebsModifications }),
    ...(observation.ebsReadError === undefined ? {} : { ebsReadError: observation.ebsReadError }),
    ...(observation.missingSecrets === undefined ? {} : { missingSecrets: observation.missingSecrets }),
    ...(observation.reads === undefined ? {} : { reads: observation.reads }),
    ...(observation.tidbOperator === undefined ? {} : { tidbOperator: observation.tidbOperator }),
    ...(observation.pendingPitrRestores === undefined ? {} : { pendingPitrRestores: observation.pendingPitrRestores }),
    state: {
      fence: ctx.fence,
      failures: claimed.failures,
      nextWakeAtMs: claimed.nextWakeAtMs,
      lastOutcome: claimed.lastStep?.outcome,
      deadlines: deadlines.map(({ component, member, kind, sinceMs, deadlineAtMs }) => ({
        component,
        member,
        kind,
        sinceMs,
        deadlineAtMs,
      })),
      storeIds: ctx.storeIds.map(({ component, podName, storeId }) => ({ component, podName, storeId })),
    },
    config: ctx.config.reconcile,
  };
}
