/**
 * The snapshot: everything one step's rules may read, observed at the start of the step. Rules
 * read nothing else — no clock (they get `nowMs`), no environment (they get `config`), no I/O.
 */

import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';

import type { DeadlineSpec } from './action.js';
import type { ReconcileConfig } from './config.js';
import type { ClusterKey, ClusterRef } from './key.js';
import type { OwnedObjects, TidbCluster } from './kube.js';
import type { OutcomeKind } from './outcome.js';
import type { PdView } from './pd.js';

/**
 * What the reconciler itself persisted for the key (DynamoDB), as of this step's claim: the fence of
 * this step, the failure counter, the armed wake-up, the deadlines, and the previous step's outcome.
 */
export type PersistedState = {
  readonly fence: number;
  readonly failures: number;
  readonly nextWakeAtMs: number | undefined;
  readonly lastOutcome: OutcomeKind | undefined;
  readonly deadlines: readonly DeadlineSpec[];
};

/**
 * Why PD could not be read: `noLeader` when a PD member answered that the cluster has no leader (PD's
 * redirector says so with HTTP 503 "no leader" — what losing raft quorum looks like to a client);
 * `unreachable` for everything else (no endpoints, connection refused, timeouts, other errors).
 */
export type PdReadFailure = 'noLeader' | 'unreachable';

/**
 * One step's view of the world. `cluster` is undefined when the TidbCluster no longer exists. `pd`
 * is undefined when PD was not read (no PD in the spec, cluster gone) or could not be reached; in the
 * latter case `pdError` says why, so a rule can tell "no PD" from "PD down", and `pdErrorKind` says
 * what kind of failure it was (see `PdReadFailure`).
 */
export type Snapshot = {
  readonly key: ClusterKey;
  readonly ref: ClusterRef;
  readonly nowMs: number;
  readonly cluster: TidbCluster | undefined;
  readonly owned: OwnedObjects;
  /**
   * The PersistentVolumes bound to the cluster's claims (cluster-scoped, so not in `owned`); absent
   * when none was read (no claim bound yet, or an observer that does not read volumes).
   */
  readonly volumes?: readonly IPersistentVolume[];
  readonly pd: PdView | undefined;
  readonly pdError?: string;
  /** Secrets the reconciler itself needs that do not exist (cluster TLS: `<tc>-cluster-client-secret`). */
  readonly missingSecrets?: readonly string[];
  readonly pdErrorKind?: PdReadFailure;
  readonly state: PersistedState;
  readonly config: ReconcileConfig;
};
