/**
 * The Events TiDB Operator v1's controls record on the TidbCluster for each write they make, so
 * `kubectl describe tc` reads as under the operator:
 * - StatefulSets (`pkg/controller/stateful_set_control.go`), Services (`service_control.go`), Pods
 *   (`pod_control.go`, delete), claims (`pvc_control.go`) and volumes (`pv_control.go`, patch):
 *   `Successful<Verb>` "<verb> <Kind> <name> in TidbCluster <tc> successful", or a Warning
 *   `Failed<Verb>` "<verb> <Kind> <name> in TidbCluster <tc> failed error: <error>";
 * - objects it creates through its generic control (ConfigMaps, the discovery Deployment and its
 *   RBAC; `generic_control.go` `RecordControllerEvent`): `Successfully Create` "create
 *   <Kind>/<name> for controller TidbCluster/<tc> successfully", on creation only.
 * A write that lost a resourceVersion race records nothing: v1 retries conflicts inside the write
 * (`RetryOnConflict`), so a conflict does not reach its recorder.
 */
import type { EventAction, KubeAction } from '../../model/action.js';
import { objectEvent, type EventType } from './events.js';

type Verb = 'create' | 'update' | 'delete' | 'patch';

// The short names v1's controls use in their messages.
const CONTROL_NAMES: Readonly<Record<string, string>> = {
  StatefulSet: 'StatefulSet',
  Service: 'Service',
  Pod: 'Pod',
  PersistentVolumeClaim: 'PVC',
  PersistentVolume: 'PV',
};

// What each control records for each of our write kinds (undefined: that control records nothing).
const CONTROL_VERBS: Readonly<Record<string, Partial<Record<KubeAction['kind'], Verb>>>> = {
  StatefulSet: { create: 'create', update: 'update', patch: 'update', delete: 'delete' },
  Service: { create: 'create', update: 'update', patch: 'update', delete: 'delete' },
  Pod: { delete: 'delete' },
  PersistentVolumeClaim: { update: 'update', patch: 'update', delete: 'delete' },
  PersistentVolume: { patch: 'patch', update: 'patch' },
};

// Created through v1's generic control.
const GENERIC_KINDS = new Set(['ConfigMap', 'Deployment', 'Role', 'RoleBinding', 'ServiceAccount']);

/**
 * The object a step writes for: the involved object of its control Events — a TidbCluster, or
 * (`kind`) another controller's object, as v1's controls name their controller (a TidbMonitor's
 * StatefulSet: "create StatefulSet basic-monitor in TidbMonitor basic successful").
 */
export type ControlledBy = {
  readonly namespace: string;
  readonly name: string;
  /** The controlling object's kind: a TidbCluster unless said (a TidbDashboard's Service is recorded on the TidbDashboard, as v1's controls do). */
  readonly kind?: 'TidbCluster' | 'TidbMonitor' | 'TidbDashboard' | 'TidbNGMonitoring';
  readonly uid?: string;
};

/**
 * The Event v1 records on the TidbCluster `by` for `action`, given how it ended (`error` undefined:
 * it succeeded); undefined when v1 records none for it. A conflict (`conflict: true`) records none.
 */
export function controlEvent(by: ControlledBy, action: KubeAction, outcome: { error?: string; conflict?: boolean } = {}): EventAction | undefined {
  const event = controlEventOf(by, action, outcome);
  return event === undefined || by.uid === undefined ? event : { ...event, involvedUid: by.uid };
}

function controlEventOf(by: ControlledBy, action: KubeAction, outcome: { error?: string; conflict?: boolean }): EventAction | undefined {
  if (action.kind === 'updateStatus' || outcome.conflict === true) return undefined;
  const kind = action.ref.kind;
  const tcName = by.name;
  const owner = by.kind ?? 'TidbCluster';
  const tc = { kind: owner, namespace: by.namespace, name: by.name };
  if (GENERIC_KINDS.has(kind)) {
    if (action.kind !== 'create' || outcome.error !== undefined) return undefined;
    return objectEvent(tc, 'Normal', 'Successfully Create', `create ${kind}/${action.ref.name} for controller ${owner}/${tcName} successfully`);
  }
  const verb = CONTROL_VERBS[kind]?.[action.kind];
  const controlName = CONTROL_NAMES[kind];
  if (verb === undefined || controlName === undefined) return undefined;
  const title = `${verb[0]?.toUpperCase() ?? ''}${verb.slice(1)}`;
  const [type, reason, message]: [EventType, string, string] =
    outcome.error === undefined
      ? ['Normal', `Successful${title}`, `${verb} ${controlName} ${action.ref.name} in ${owner} ${tcName} successful`]
      : ['Warning', `Failed${title}`, `${verb} ${controlName} ${action.ref.name} in ${owner} ${tcName} failed error: ${outcome.error}`];
  return objectEvent(tc, type, reason, message);
}
