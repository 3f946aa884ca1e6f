/**
 * One-line descriptions of actions, for the step's log line and history record: the verb as
 * SCENARIOS.md names it, then what it is about (`update StatefulSet demo/basic-pd`,
 * `pd.deleteMember name=basic-pd-1`). Objects and patches are left out: they can be large.
 */

import type { Action, DeadlineRef } from '../model/action.js';
import type { ObjectRef } from '../model/kube.js';

/** A short, stable description of `action`. */
export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'create':
    case 'update':
    case 'updateStatus':
    case 'patch':
    case 'delete':
      return `${action.kind} ${describeRef(action.ref)}`;
    case 'pd.transferLeader':
      return `${action.kind} to=${action.to}`;
    case 'pd.transferPrimary':
      return `${action.kind} service=${action.service} to=${action.to}`;
    case 'pd.deleteMember':
      return action.name !== undefined ? `${action.kind} name=${action.name}` : `${action.kind} id=${action.id}`;
    case 'pd.deleteStore':
    case 'pd.beginEvictLeader':
    case 'pd.endEvictLeader':
      return `${action.kind} store=${action.storeId}`;
    case 'pd.setStoreState':
      return `${action.kind} store=${action.storeId} state=${action.state}`;
    case 'pd.setStoreLabels':
      return `${action.kind} store=${action.storeId} ${Object.entries(action.labels).map(([k, v]) => `${k}=${v}`).join(',')}`;
    case 'pd.setReplication':
      return `${action.kind} ${JSON.stringify(action.change)}`;
    case 'tidb.setLabels':
    case 'tidb.startUpgrade':
    case 'tidb.finishUpgrade':
      return `${action.kind} pod=${action.pod}`;
    case 'ticdc.resignOwner':
      return `${action.kind} pod=${action.pod} capture=${action.capture}`;
    case 'pump.offline':
      return `${action.kind} nodeId=${action.nodeId}`;
    case 'tiproxy.setLabels':
      return `${action.kind} pod=${action.pod} ${Object.entries(action.labels).map(([k, v]) => `${k}=${v}`).join(',')}`;
    case 'schedule.put':
      return `${action.kind} ${action.request.GroupName ?? 'default'}/${action.request.Name} ${action.request.ScheduleExpression} ${action.request.ScheduleExpressionTimezone} ${action.request.State ?? 'ENABLED'}`;
    case 'schedule.delete':
      return `${action.kind} ${action.groupName ?? 'default'}/${action.name}`;
    case 'secret.copy':
      return `${action.kind} ${describeRef(action.ref)} from ${action.sources.map((s) => `${s.namespace}/${s.name}`).join(',') || 'nothing'}`;
    case 'ec2.modifyVolume': {
      const t = action.target;
      const parts = [t.sizeGiB === undefined ? '' : `size=${t.sizeGiB}`, t.volumeType ? `type=${t.volumeType}` : '', t.iops === undefined ? '' : `iops=${t.iops}`, t.throughput === undefined ? '' : `throughput=${t.throughput}`].filter((p) => p !== '');
      return `${action.kind} ${t.volumeId} (claim ${action.claim}) ${parts.join(' ')}`;
    }
    case 'event':
      return `event ${action.type} ${action.reason} on ${describeRef(action.object)}${action.once ? ' (once: not again while a recent Event has it)' : ''}`;
    case 'state.putDeadline':
      return `${action.kind} ${describeDeadline(action.deadline)} at=${action.deadline.deadlineAtMs}`;
    case 'state.deleteDeadline':
      return `${action.kind} ${describeDeadline(action.deadline)}`;
    case 'state.putStoreId':
      return `${action.kind} ${action.record.component}/${action.record.podName} store=${action.record.storeId}`;
    default: {
      const never: never = action;
      return `unknown action ${JSON.stringify(never)}`;
    }
  }
}

/** `Kind namespace/name`, or `Kind name` for cluster-scoped objects. */
export function describeRef(ref: ObjectRef): string {
  return ref.namespace === undefined ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}

function describeDeadline(ref: DeadlineRef): string {
  return `${ref.component}/${ref.member}/${ref.kind}`;
}
