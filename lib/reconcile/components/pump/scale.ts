/**
 * What Pump's scale-in needs before a pod goes, as TiDB Operator v1's `pump_scaler.go` (§2.6): the
 * StatefulSet at rest (as many pods as replicas), then the pod's node offline in the binlog
 * registry — asked while it is `online`, waited for while it is closing — so binlog stops writing
 * to it before it leaves. A pod no node is registered for goes once it has not been Ready for
 * 5 × the 30 s resync. The PVC marks and the replicas write are the shared scaler's.
 */

import type { Action } from '../../../model/action.js';
import type { PumpNodeView } from '../../../model/ticdc.js';
import { observedPump } from '../../cluster/observed.js';
import { retry } from '../../engine/outcome.js';
import type { MemberInput, ScaleInCheck } from '../../member/component.js';
import { clusterPath } from '../../member/members.js';
import { podReadySinceMs } from '../../member/statefulset.js';
import { PUMP_NOT_READY_GRACE_MS, PUMP_RETRY_MS } from './names.js';

/** The registry's node of `podName`: its id is `<pod>:<port>`, its host `<pod>.<service>…:<port>`. */
export function pumpNodeOfPod(nodes: readonly PumpNodeView[], podName: string): PumpNodeView | undefined {
  const ofPod = (text: string): boolean => text.startsWith(`${podName}:`) || text.startsWith(`${podName}.`);
  return nodes.find((n) => ofPod(n.nodeId)) ?? nodes.find((n) => ofPod(n.host));
}

/** Whether `podName` is missing, or has not been Ready for the grace period. */
function isLongNotReady(input: MemberInput, podName: string): boolean {
  const pod = input.scope.pod(podName);
  if (!pod) return true;
  if (podReadySinceMs(pod) !== undefined) return false;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const sinceMs = ready?.lastTransitionTime === undefined ? Number.NaN : Date.parse(ready.lastTransitionTime);
  return !Number.isNaN(sinceMs) && input.snapshot.nowMs - sinceMs >= PUMP_NOT_READY_GRACE_MS;
}

// As TiDB Operator's RequeueError: the scale-in ends this component's round and comes back.
const hold = (message: string, actions: readonly Action[] = []): ScaleInCheck => ({
  hold: { actions, outcome: retry(PUMP_RETRY_MS, message), stop: true },
});

/** Pump's `beforeScaleIn` (see the module comment). */
export function beforePumpScaleIn(input: MemberInput, podName: string): ScaleInCheck {
  const set = input.scope.set;
  const who = `pump.ScaleIn: cluster ${clusterPath(input)}`;
  if ((set?.spec?.replicas ?? 1) !== (set?.status?.replicas ?? 0)) return hold(`${who}: waiting for the Pump StatefulSet to settle before scaling in`);
  const nodes = observedPump(input.snapshot)?.nodes;
  if (nodes === undefined) return hold(`${who}: the Pump registry could not be read`);
  const node = pumpNodeOfPod(nodes, podName);
  if (!node) {
    if (isLongNotReady(input, podName)) return { first: [] };
    return hold(`${who}: no Pump node registered for ${podName} yet`);
  }
  if (node.state === 'offline') return { first: [] };
  if (node.state === 'online') return hold(`${who}: taking Pump node ${node.nodeId} offline`, [{ kind: 'pump.offline', nodeId: node.nodeId }]);
  return hold(`${who}: Pump node ${node.nodeId} is ${node.state}, waiting for it to be offline`);
}
