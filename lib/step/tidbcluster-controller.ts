/**
 * The TidbCluster controller as the step engine runs it: the Observer port reads the cluster into a
 * snapshot (`observe.ts`), the TidbCluster recipe decides (`lib/reconcile/cluster/recipe.ts`), and
 * the commit writes the status subresource and forgets the key once the TidbCluster is gone.
 */

import type { Plan } from '../model/plan.js';
import type { Snapshot } from '../model/snapshot.js';
import { fail } from '../reconcile/engine/outcome.js';
import { planStep } from '../reconcile/engine/planner.js';
import { clusterRules } from '../reconcile/cluster/recipe.js';
import type { Rule } from '../reconcile/engine/rule.js';
import type { VerifiedCluster } from '../state/port.js';
import type { CommitSubject, Controller } from './controller.js';
import { observeStep } from './observe.js';
import { errorText } from './error-outcome.js';

/** The TidbCluster controller running `rules` (the product's recipe unless a test narrows it). */
export function tidbClusterController(rules: readonly Rule[] = clusterRules): Controller<TidbClusterObservation> {
  return {
    kind: 'TidbCluster',
    async observe(ctx) {
      const observed = await observeStep(ctx);
      return observed.ok ? { ok: true, snapshot: { snapshot: observed.snapshot, lastVerified: ctx.claimed.lastStep?.verified } } : observed;
    },
    decide: (observation) => decideStep(observation.snapshot, rules),
    subject: (observation) => subjectOf(observation),
  };
}

/** The snapshot, with the TidbCluster the last step verified (what a read at rest relies on). */
export type TidbClusterObservation = { readonly snapshot: Snapshot; readonly lastVerified: VerifiedCluster | undefined };

/**
 * Only an observation that succeeded can say the TidbCluster is gone. The TidbCluster it vouches for:
 * the one it read, when it read everything; at rest, the one verified before (which is the one it
 * read: the observer checked uid and generation), so a full observation's time (`fullAtMs`) is
 * carried until the next one.
 */
function subjectOf({ snapshot, lastVerified }: TidbClusterObservation): CommitSubject {
  const cluster = snapshot.cluster;
  const { uid, generation } = cluster?.metadata ?? {};
  const verified = uid === undefined || generation === undefined ? undefined : snapshot.reads === 'rest' ? lastVerified : { uid, generation, fullAtMs: snapshot.nowMs };
  return { cluster, gone: cluster === undefined, ...(verified ? { verified } : {}) };
}

/**
 * Decides (pure). A rule that throws is a bug, not a state of the world: the step fails (retryable,
 * so a fixed deployment picks the key up again) with no actions and no status change.
 */
export function decideStep(snapshot: Snapshot, rules: readonly Rule[] = clusterRules): Plan {
  try {
    return planStep(snapshot, rules);
  } catch (err) {
    return { actions: [], status: undefined, outcome: fail(`decide: ${errorText(err)}`), ruleResults: [] };
  }
}
