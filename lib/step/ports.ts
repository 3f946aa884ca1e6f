/**
 * The ports the step engine sequences. The engine owns no adapter: it gets a StateStore, a queue, the
 * timers, a clock, a logger and metrics, plus two small ports defined here for what is still being
 * built elsewhere — an `Observer` that reads the world into a snapshot and an `Executor` that runs one
 * action — so the Kubernetes and PD adapters plug in without the engine knowing their shapes.
 */

import type { RemoteAction } from '../model/action.js';
import type { ClusterKey, ClusterRef } from '../model/key.js';
import type { OwnedObjects, TidbCluster } from '../model/kube.js';
import { OBSERVED_COMPONENTS, type Snapshot } from '../model/snapshot.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { Metrics } from '../platform/metrics.js';
import type { ReconcileQueue } from '../queue/port.js';
import type { Requester, StateStore, VerifiedCluster } from '../state/port.js';
import type { ApiBudget } from '../budget/port.js';
import type { Timers } from '../timer/port.js';
import type { ControllerSet } from './controller.js';

/**
 * Why a step runs: the message's `reason` (`watch`, `sweep`, `dirty`, `timer:<kind>`, `admin`, …),
 * when it was enqueued (for queue lag) and the SQS message id when there is one. `receiptHandles`
 * are the handles of the queue records the step stands for (one per record of its key in the
 * batch): a step that claims the lease makes them reappear when the lease ends should it die.
 * `dueAtMs` is the time a timer's wake-up was armed for, when its message says. `requestedBy` names
 * the person who asked (admin actions): it goes into the step's history record and log line.
 */
export type Trigger = {
  readonly reason: string;
  readonly requestedBy?: Requester;
  readonly enqueuedAtMs?: number;
  readonly messageId?: string;
  readonly receiptHandles?: readonly string[];
  readonly dueAtMs?: number;
  /** A producer asked for the TiDB Operator verdict to be re-checked now (`ReconcileMessage.checkTidbOperator`). */
  readonly checkTidbOperator?: true;
  /** The step holds a reservation of its EKS cluster's API budget from this time (`ReconcileMessage.budgetAtMs`, docs/adr/0028). */
  readonly budgetAtMs?: number;
};

/**
 * What the Observer is asked: one cluster, read now for the step holding `fence`, to be abandoned
 * when `signal` aborts.
 */
export type ObserveRequest = {
  readonly key: ClusterKey;
  readonly ref: ClusterRef;
  readonly fence: number;
  readonly nowMs: number;
  readonly signal: AbortSignal;
  /**
   * Set when the step may read at rest: the last step completed on a full observation of this
   * TidbCluster (uid, generation) — or on one at rest since — and this trigger is not the sweep's.
   * If the TidbCluster is still that one, the observer skips what only the discovery rule reads.
   */
  readonly verified?: VerifiedCluster;
  /**
   * Set when the key's persisted verdict on TiDB Operator is due for a re-check (or there is none):
   * the observer then also reads its controller managers (`Observation.tidbOperator`).
   */
  readonly checkTidbOperator?: true;
  /**
   * A health step (docs/adr/0024): with `verified`, the observer may take what the API server would
   * answer from the step before (in this process, fence − 1, no write since) and read only the
   * components; it reads at rest otherwise.
   */
  readonly health?: boolean;
  /**
   * With `health`: the fence of the whole read kept in the state table that the step before stood on
   * (`StepSummary.persistedRead`); the observer may take that read when this process has none.
   */
  readonly persistedRead?: number;
};

/**
 * What the Observer reads: the TidbCluster (undefined when it does not exist), what it owns that is
 * no component's, and each component (its objects and its API's view). A component API that cannot
 * be reached is not an observe failure: its `view` is undefined and its `error` says why, so rules
 * can still sync status and act on what does not need it.
 */
export type Observation = {
  readonly cluster: TidbCluster | undefined;
  readonly owned: OwnedObjects;
  readonly components: Snapshot['components'];
  /** The PersistentVolumes bound to the cluster's claims, when read. */
  readonly volumes?: Snapshot['volumes'];
  /** The leader counts of the TiKV pods being evicted, when any is. */
  readonly tikvLeaders?: Snapshot['tikvLeaders'];
  /** The Nodes the store pods run on, when store labels are wanted. */
  readonly nodes?: Snapshot['nodes'];
  /** The StorageClasses of claims the spec resizes, when any claim needs a change. */
  readonly storageClasses?: Snapshot['storageClasses'];
  /** EC2's last modification of the volumes the EBS modifier works on (the `VolumeModifying` gate). */
  readonly ebsModifications?: Snapshot['ebsModifications'];
  readonly ebsReadError?: Snapshot['ebsReadError'];
  /** Secrets the reconciler needs that do not exist; components are not contacted without them. */
  readonly missingSecrets?: readonly string[];
  /** `rest` when the observer read at rest (see `Snapshot.reads`). */
  readonly reads?: Snapshot['reads'];
  /** TiDB Operator's controller managers, when the request asked for them (`checkTidbOperator`). */
  readonly tidbOperator?: Snapshot['tidbOperator'];
  /** The pending PiTR Restores into the cluster, when they were read (Snapshot's). */
  readonly pendingPitrRestores?: Snapshot['pendingPitrRestores'];
};

/**
 * Reads the world for one step. Reads only; throws the typed errors of `lib/platform/errors.ts`
 * (`TransientError` for timeouts and 5xx, `TerminalError` for what retrying cannot fix).
 */
export interface Observer {
  observe(request: ObserveRequest): Promise<Observation>;
  /**
   * The fence of the kept whole read (docs/adr/0024) the observation of `key` by the step holding
   * `fence` is, when that step has written nothing to the API server since; undefined otherwise
   * (or when the observer keeps none).
   */
  persistedRead?(key: ClusterKey, fence: number): number | undefined;
}

/** One action to run, with the step's fence (for writes that must not come from a stale step). */
export type ExecuteRequest = {
  readonly key: ClusterKey;
  readonly ref: ClusterRef;
  readonly action: RemoteAction;
  readonly fence: number;
  readonly signal: AbortSignal;
};

/**
 * Runs one Kubernetes, PD, TiCDC, Pump or Event action. Resolves when it is done (or already true:
 * idempotent); throws a typed error otherwise — `ConflictError` for a stale `resourceVersion`.
 */
export interface Executor {
  execute(request: ExecuteRequest): Promise<void>;
}

/**
 * Everything a step talks to. `random` (default `Math.random`) jitters the backoff; pass a seeded one
 * for repeatable runs. `newReconcileId` (default a random UUID) names the step in logs and history.
 */
export type StepPorts = {
  readonly state: StateStore;
  readonly observer: Observer;
  readonly executor: Executor;
  readonly timers: Pick<Timers, 'wakeAt' | 'cancel'>;
  readonly queue: Pick<ReconcileQueue, 'send' | 'changeVisibility'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly random?: () => number;
  readonly newReconcileId?: () => string;
  /**
   * The controllers beside the TidbCluster's (which is built in), by kind; a key of a kind with none
   * is rejected. Each was built with the ports it reads through.
   */
  readonly controllers?: ControllerSet;
  /** The per-EKS-cluster API request budget (docs/adr/0028); without it (or `StepConfig.apiBudget`) steps are not budgeted. */
  readonly apiBudget?: ApiBudget;
};

/** The one timer kind the engine arms per key: a single pending wake-up that only moves earlier. */
export const WAKE_TIMER_KIND = 'wake';

/** The reason of the message a step sends when a trigger arrived while it held the lease. */
export const DIRTY_REASON = 'dirty';

/**
 * The reason of a health check's message (docs/adr/0024): a step at rest that reads the components
 * and takes the rest from the step before; it carries `dueAtMs`, the time the state item says the one
 * pending health check is due (`StepSummary.healthAtMs`), and any other is dropped.
 */
export const HEALTH_REASON = 'health';

/**
 * How long after it was due a health check still counts as pending: its message may wait for the
 * event source's batch and a busy function (a lost one is re-armed by the next step after this, or
 * by the sweep).
 */
export const HEALTH_PENDING_GRACE_MS = 60_000;

/** Whether the step is a health check (`HEALTH_REASON`). */
export function isHealthTrigger(trigger: Pick<Trigger, 'reason'>): boolean {
  return trigger.reason === HEALTH_REASON;
}

/** Whether the step was woken by a timer (`timer:<kind>`, as `lib/timer/timers.ts` names them). */
export function isTimerTrigger(trigger: Trigger): boolean {
  return trigger.reason.startsWith('timer:');
}

/** No owned objects: what an observer returns for a cluster that does not exist. */
export const NO_OWNED_OBJECTS: OwnedObjects = {
  StatefulSet: [],
  Pod: [],
  Service: [],
  ConfigMap: [],
  PersistentVolumeClaim: [],
  Deployment: [],
  ServiceAccount: [],
  Role: [],
  RoleBinding: [],
};

/** No components: what an observer returns for a cluster that does not exist (nothing owned, nothing read). */
export const NO_COMPONENTS = Object.fromEntries(
  OBSERVED_COMPONENTS.map((name) => [name, { objects: NO_OWNED_OBJECTS, view: undefined }]),
) as unknown as Snapshot['components'];
