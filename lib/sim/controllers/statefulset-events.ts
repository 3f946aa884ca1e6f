/**
 * The Events the StatefulSet controller records on a set for the writes it makes for its pods
 * (`pkg/controller/statefulset/stateful_pod_control.go`, `recordPodEvent` / `recordClaimEvent`),
 * source `statefulset-controller`:
 * - `SuccessfulCreate` "create Pod web-0 in StatefulSet web successful", `SuccessfulDelete`
 *   "delete Pod web-2 in StatefulSet web successful", `SuccessfulUpdate` for an identity repair;
 *   a refused write: Warning `Failed<Verb>` "<verb> Pod web-0 in StatefulSet web failed error: <err>";
 * - claims: `SuccessfulCreate` "create Claim data-web-0 Pod web-0 in StatefulSet web success", or
 *   Warning `FailedCreate` "create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: <err>".
 */
import { eventRecorder } from '../event-recorder.js';
import type { KubeObject } from '../object.js';
import type { ObjectStore } from '../store.js';

/** The controller's component name in `source.component`. */
export const STATEFULSET_COMPONENT = 'statefulset-controller';

type Verb = 'create' | 'delete' | 'update';

const title = (verb: Verb): string => `${verb[0]?.toUpperCase() ?? ''}${verb.slice(1)}`;

/** recordPodEvent: the set's Event for `verb` on pod `podName` (`error` undefined: it succeeded). */
export function recordPodEvent(store: ObjectStore, set: KubeObject, verb: Verb, podName: string, error?: string): void {
  const setName = set.metadata.name ?? '';
  const [type, reason, message] =
    error === undefined
      ? (['Normal', `Successful${title(verb)}`, `${verb} Pod ${podName} in StatefulSet ${setName} successful`] as const)
      : (['Warning', `Failed${title(verb)}`, `${verb} Pod ${podName} in StatefulSet ${setName} failed error: ${error}`] as const);
  eventRecorder(store).record(set, { type, reason, message, source: { component: STATEFULSET_COMPONENT } });
}

/** recordClaimEvent: the set's Event for creating claim `claimName` of pod `podName`. */
export function recordClaimEvent(store: ObjectStore, set: KubeObject, claimName: string, podName: string, error?: string): void {
  const setName = set.metadata.name ?? '';
  const [type, reason, message] =
    error === undefined
      ? (['Normal', 'SuccessfulCreate', `create Claim ${claimName} Pod ${podName} in StatefulSet ${setName} success`] as const)
      : (['Warning', 'FailedCreate', `create Claim ${claimName} for Pod ${podName} in StatefulSet ${setName} failed error: ${error}`] as const);
  eventRecorder(store).record(set, { type, reason, message, source: { component: STATEFULSET_COMPONENT } });
}
