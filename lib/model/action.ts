/**
 * Actions: what a plan asks the engine to do, as data. Verbs are SCENARIOS.md's action verbs
 * exactly (`create`, `pd.transferLeader`, …), so a step's actions read the same in the scenario
 * report, the history and the logs. Every action is idempotent or verified by its executor first.
 */

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

/** Removes a PD member by name or by id (a no-op for a member PD no longer lists). */
export type PdDeleteMemberAction =
  | { readonly kind: 'pd.deleteMember'; readonly name: string; readonly id?: never }
  | { readonly kind: 'pd.deleteMember'; readonly id: string; readonly name?: never };

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

/** Deletes a deadline under the step's fence (deleting a missing one is fine). */
export type DeleteDeadlineAction = { readonly kind: 'state.deleteDeadline'; readonly deadline: DeadlineRef };

/** Kubernetes writes. */
export type KubeAction = CreateAction | UpdateAction | UpdateStatusAction | PatchAction | DeleteAction;

/** Calls to a component's own API (each component adds its calls with the rules that make them). */
export type MemberAction = PdTransferLeaderAction | PdDeleteMemberAction | TicdcResignOwnerAction | PumpOfflineAction;

/** Writes to the reconciler's own state; the engine runs these itself, under its fence. */
export type StateAction = PutDeadlineAction | DeleteDeadlineAction;

/** What the Executor port runs: everything outside the reconciler's own state. */
export type RemoteAction = KubeAction | MemberAction | EventAction;

/** Any action a plan may hold, discriminated on `kind`. */
export type Action = RemoteAction | StateAction;

/** The action verbs. */
export type ActionKind = Action['kind'];
