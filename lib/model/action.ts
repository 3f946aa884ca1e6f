/**
 * Actions: what a plan asks the engine to do, as data. Verbs are docs/SCENARIOS.md's action verbs
 * (`create`, `pd.transferLeader`, …), so a step's actions read the same in the scenario report, the
 * history and the logs — except three PD calls named for what the reconciler asks rather than the
 * request PD records: `pd.beginEvictLeader` / `pd.endEvictLeader` (PD records
 * `pd.addEvictLeaderScheduler` / `pd.removeEvictLeaderScheduler`) and `pd.setReplication`
 * (`pd.updateReplicationConfig`). Every action is idempotent or verified by its executor first.
 */

import type { ScheduleRequest } from '../timer/port.js';
import type { EbsVolumeTarget } from './ebs.js';
import type { KubeObject, ObjectRef } from './kube.js';

/** Creates an object that does not exist yet (409 AlreadyExists ⇒ re-observe next step). */
export type CreateAction = { readonly kind: 'create'; readonly ref: ObjectRef; readonly object: KubeObject };

/** Replaces an object, only if it still has the observed `resourceVersion` (never a blind overwrite). */
export type UpdateAction = {
  readonly kind: 'update';
  readonly ref: ObjectRef;
  readonly object: KubeObject;
  readonly resourceVersion: string;
};

/** Replaces the status subresource under the observed `resourceVersion`. */
export type UpdateStatusAction = {
  readonly kind: 'updateStatus';
  readonly ref: ObjectRef;
  readonly object: KubeObject;
  readonly resourceVersion: string;
};

/**
 * Patches an object: a JSON merge patch, or a JSON patch whose own `test` operations are the
 * precondition (e.g. removing a finalizer by index). Strategic merge does not apply to custom resources.
 */
export type PatchAction = {
  readonly kind: 'patch';
  readonly ref: ObjectRef;
  readonly patchType: 'merge' | 'json';
  readonly patch: unknown;
  readonly resourceVersion?: string;
};

/** Deletes an object; `uid`/`resourceVersion` make the delete apply only to the object observed. */
export type DeleteAction = {
  readonly kind: 'delete';
  readonly ref: ObjectRef;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
};

/** Moves PD leadership to the member named `to`. */
export type PdTransferLeaderAction = { readonly kind: 'pd.transferLeader'; readonly to: string };

/**
 * Moves the primary of a PD microservice (`tso`, `scheduling`) to its server named `to`, through the
 * service's own `<tc>-<service>` Service (TiDB Operator's PDMS `TransferPrimary`).
 */
export type PdTransferPrimaryAction = { readonly kind: 'pd.transferPrimary'; readonly service: string; readonly to: string };

/** Removes a PD member by name or by id (a no-op for a member PD no longer lists). */
export type PdDeleteMemberAction =
  | { readonly kind: 'pd.deleteMember'; readonly name: string; readonly id?: never }
  | { readonly kind: 'pd.deleteMember'; readonly id: string; readonly name?: never };

/** Posts server labels to the TiDB server of `pod` (`POST /labels`, TiDB ≥ 6.3); TiDB merges them. */
export type TidbSetLabelsAction = {
  readonly kind: 'tidb.setLabels';
  readonly pod: string;
  readonly labels: Readonly<Record<string, string>>;
  /** When the call fails, this Event is recorded with the error appended and the step goes on (as `pd.setStoreLabels`). */
  readonly onError?: EventAction;
  /** Run right after the call succeeded, and only then (the pod annotation remembering the post). */
  readonly onSuccess?: PatchAction;
};

/**
 * Sets labels on the TiProxy of `pod` (`PUT /api/admin/config/` with a TOML `[labels]` table, what
 * `tiproxyctl config set` sends; TiProxy ≥ 1.1 reloads them).
 */
export type TiproxySetLabelsAction = {
  readonly kind: 'tiproxy.setLabels';
  readonly pod: string;
  readonly labels: Readonly<Record<string, string>>;
  /** When the call fails, this Event is recorded with the error appended and the step goes on. */
  readonly onError?: EventAction;
  /** Run right after the call succeeded, and only then (the pod annotation remembering it). */
  readonly onSuccess?: PatchAction;
};

/** Puts the cluster in smooth-upgrade mode (DDL paused) through the TiDB server of `pod` (`POST /upgrade/start`). */
export type TidbStartUpgradeAction = { readonly kind: 'tidb.startUpgrade'; readonly pod: string };

/** Takes the cluster out of smooth-upgrade mode (DDL resumed) through the TiDB server of `pod` (`POST /upgrade/finish`). */
export type TidbFinishUpgradeAction = { readonly kind: 'tidb.finishUpgrade'; readonly pod: string };

/**
 * Starts taking a store offline (`DELETE /pd/api/v1/store/{id}`). As TiDB Operator: a store PD no
 * longer lists among its live stores (gone, or already Tombstone) is done without a call; 404 is done.
 */
export type PdDeleteStoreAction = { readonly kind: 'pd.deleteStore'; readonly storeId: string };

/**
 * Adds `evict-leader-scheduler-<id>` for the store (`POST /pd/api/v1/schedulers`). A refused call
 * is still done when PD then lists that scheduler (PD answers "scheduler existed" with an error).
 */
export type PdBeginEvictLeaderAction = { readonly kind: 'pd.beginEvictLeader'; readonly storeId: string };

/**
 * Removes the store's `evict-leader-scheduler-<id>` (`DELETE …/schedulers/evict-leader-scheduler-<id>`):
 * 404 is done; otherwise done only when PD no longer lists the scheduler.
 */
export type PdEndEvictLeaderAction = { readonly kind: 'pd.endEvictLeader'; readonly storeId: string };

/** Sets store labels (`POST /pd/api/v1/store/{id}/label` with `{key: value}`); PD merges them. */
export type PdSetStoreLabelsAction = {
  readonly kind: 'pd.setStoreLabels';
  readonly storeId: string;
  readonly labels: Readonly<Record<string, string>>;
  /**
   * As TiDB Operator: when the call fails, this Event is recorded with the error appended to its
   * message and the step goes on with its next action (labels are retried by a later step).
   */
  readonly onError?: EventAction;
};

/** Changes PD's replication config (`POST /pd/api/v1/config/replicate`); fields left out stay as they are. */
export type PdSetReplicationAction = {
  readonly kind: 'pd.setReplication';
  readonly change: {
    readonly maxReplicas?: number;
    readonly locationLabels?: readonly string[];
    readonly enablePlacementRules?: boolean;
  };
};

/**
 * Sets an Offline store `Up` again (`POST /pd/api/v1/store/{id}/state?state=Up`): cancels its
 * removal. Done when PD lists the store Up afterwards; a Tombstone cannot come back (PD refuses).
 */
export type PdSetStoreStateAction = { readonly kind: 'pd.setStoreState'; readonly storeId: string; readonly state: 'Up' };

/**
 * Asks the TiCDC owner to resign (`POST /api/v1/owner/resign` on its pod): only while the capture
 * `capture` running in `pod` is still the owner (verified first).
 */
export type TicdcResignOwnerAction = { readonly kind: 'ticdc.resignOwner'; readonly pod: string; readonly capture: string };

/** Takes Pump node `nodeId` (`<pod>:8250`) offline (`PUT /state/<nodeId>/close` on its pod); repeating it is harmless. */
export type PumpOfflineAction = { readonly kind: 'pump.offline'; readonly nodeId: string };

/** Records a Kubernetes Event on `object` (as TiDB Operator's recorder: same reasons). */
export type EventAction = {
  readonly kind: 'event';
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  readonly object: ObjectRef;
  /**
   * The involved object's uid, when the rule read it (a Backup's, a Restore's); otherwise the
   * executor takes it from what the step observed.
   */
  readonly involvedUid?: string;
  /**
   * Reported once while it persists: not recorded when the cluster's recent Events already hold one
   * with this reason and message (the executor reads them when it runs such an action, so a step
   * that records none reads no Events).
   */
  readonly once?: true;
};

/** Identifies one persisted deadline of one member of one component (e.g. `tikv`/`basic-tikv-2`/`failover`). */
export type DeadlineRef = {
  readonly component: string;
  readonly member: string;
  readonly kind: string;
};

/** A persisted deadline: since when a condition holds and when its grace period ends. */
export type DeadlineSpec = DeadlineRef & { readonly sinceMs: number; readonly deadlineAtMs: number };

/** Writes a deadline to the state table under the step's fence. */
export type PutDeadlineAction = { readonly kind: 'state.putDeadline'; readonly deadline: DeadlineSpec };

/** Which store a pod of a store component (`tikv`, `tiflash`) runs, as last seen in PD. */
export type StoreIdSpec = { readonly component: string; readonly podName: string; readonly storeId: string };

/**
 * Records a pod's store id in the state table under the step's fence, so a Tombstone is matched to
 * its pod even when the pod's `tidb.pingcap.com/store-id` label was never written.
 */
export type PutStoreIdAction = { readonly kind: 'state.putStoreId'; readonly record: StoreIdSpec };

/** Deletes a deadline under the step's fence (deleting a missing one is fine). */
export type DeleteDeadlineAction = { readonly kind: 'state.deleteDeadline'; readonly deadline: DeadlineRef };

/**
 * Creates (`exists: false`) or updates an EventBridge Scheduler schedule to be exactly `request` — a
 * BackupSchedule's recurring cron. A create that finds the name taken updates, an update that finds
 * it gone creates: the step observed the schedule, and either way it ends as `request`.
 */
export type SchedulePutAction = { readonly kind: 'schedule.put'; readonly request: ScheduleRequest; readonly exists: boolean };

/** Deletes an EventBridge Scheduler schedule; one already gone is done. */
export type ScheduleDeleteAction = { readonly kind: 'schedule.delete'; readonly name: string; readonly groupName?: string };

/** EventBridge Scheduler calls (the BackupSchedule controller's). */
export type ScheduleAction = SchedulePutAction | ScheduleDeleteAction;

/** Kubernetes writes. */
export type KubeAction = CreateAction | UpdateAction | UpdateStatusAction | PatchAction | DeleteAction;

/** One Secret whose data a `secret.copy` takes, each key renamed `<keyPrefix><key>`. */
export type SecretSource = { readonly namespace: string; readonly name: string; readonly keyPrefix: string };

/**
 * Makes Secret `ref` hold exactly the data of `sources` (TiDB Operator's `CreateOrUpdateSecret` of a
 * copy of a TidbCluster's client certificates): created with `metadata` when absent, updated under
 * its read resourceVersion when its data differs, left alone otherwise. The values are read and
 * written inside the Kubernetes adapter only: they never reach a snapshot, a plan, a log or the
 * state table. A missing source is a `NotFoundError`.
 */
export type SecretCopyAction = {
  readonly kind: 'secret.copy';
  readonly ref: ObjectRef;
  readonly metadata: KubeObject['metadata'];
  readonly sources: readonly SecretSource[];
};

/** PD's store and scheduler calls (TiKV and TiFlash rules make them). */
export type PdStoreAction =
  | PdDeleteStoreAction
  | PdBeginEvictLeaderAction
  | PdEndEvictLeaderAction
  | PdSetStoreLabelsAction
  | PdSetReplicationAction
  | PdSetStoreStateAction;

/** Calls to a component's own API (each component adds its calls with the rules that make them). */
export type MemberAction = PdTransferLeaderAction | PdTransferPrimaryAction | PdDeleteMemberAction | PdStoreAction | TidbAction | TicdcResignOwnerAction | PumpOfflineAction | TiproxySetLabelsAction;

/** Calls to the TiDB servers' status port. */
export type TidbAction = TidbSetLabelsAction | TidbStartUpgradeAction | TidbFinishUpgradeAction;

/** Writes to the reconciler's own state; the engine runs these itself, under its fence. */
export type StateAction = PutDeadlineAction | DeleteDeadlineAction | PutStoreIdAction;

/**
 * Modifies an EBS volume through EC2 (`ModifyVolume`), as TiDB Operator v1.6's EBS modifier does for
 * a claim moved to another EBS StorageClass (feature gate `VolumeModifying`). The rule sends it only
 * when EC2's last modification of the volume is not already this target (observed the same step).
 * When EC2 refuses, `onError` is recorded with EC2's code and message appended and the step goes on
 * (v1.6's sync fails, is logged and requeued; the next step asks again).
 */
export type Ec2ModifyVolumeAction = {
  readonly kind: 'ec2.modifyVolume';
  readonly target: EbsVolumeTarget;
  /** The claim the volume backs (`<namespace>/<name>`), for the log line. */
  readonly claim: string;
  readonly onError?: EventAction;
};

/** What the Executor port runs: everything outside the reconciler's own state. */
export type RemoteAction = KubeAction | MemberAction | EventAction | ScheduleAction | SecretCopyAction | Ec2ModifyVolumeAction;

/** Any action a plan may hold, discriminated on `kind`. */
export type Action = RemoteAction | StateAction;

/** The action verbs. */
export type ActionKind = Action['kind'];
