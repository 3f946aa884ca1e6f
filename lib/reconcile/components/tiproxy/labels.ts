/**
 * TiProxy's labels for zone-aware routing, as TiDB Operator v1.6's `setLabelsForTiProxy`: for TiProxy
 * ≥ 1.1.0 (a tag that is no version is skipped, as v1 takes it for an older build), when PD's
 * `replication.location-labels` holds a zone key, every healthy member is given its node's values of
 * the location labels plus `zone` (`PUT /api/admin/config/` with `[labels]`). A refusal is a Warning
 * `FailedSetTiProxyLabels` (v1 only logs it) and the step goes on.
 *
 * Beyond v1, which sets them on every sync, they are set once per running process and remembered on
 * the pod (annotation `TIPROXY_LABELS_ANNOTATION`: the `tiproxy` container's restart count and the
 * location labels), as TiDB's server labels are (docs/adr/0013): TiProxy keeps what `config set`
 * gives it in memory, so a new process is asked again and nothing else is.
 */

import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Action } from '../../../model/action.js';
import type { TidbCluster } from '../../../model/kube.js';
import type { PdView } from '../../../model/pd.js';
import { clusterWarning, EVENT_REASON } from '../../cluster/events.js';
import { observedNodes, observedPd } from '../../cluster/observed.js';
import { complete } from '../../engine/outcome.js';
import { imageTagOf, isVersionAtLeast } from '../../member/cmpver.js';
import type { MemberDecision, MemberInput } from '../../member/component.js';
import { nothing } from '../../member/members.js';
import { needsServerLabels, rememberPatch, restartCountOf, serverLabelsOf, zoneLabelKeys, type LabelledProcess, type ServerLabelKeys } from '../tidb/server-labels.js';
import { tiproxyImage } from './pod-template.js';

/** The pod annotation recording the labels set on the pod's running TiProxy. */
export const TIPROXY_LABELS_ANNOTATION = 'tidb-reconciler/tiproxy-labels';

/** As v1's `tiproxySupportLabelsMinVersion`. */
const MIN_VERSION = 'v1.1.0';

const TIPROXY_LABELLED: LabelledProcess = { container: 'tiproxy', annotation: TIPROXY_LABELS_ANNOTATION };

/** The keys to set, or undefined when no label is wanted: no TiProxy, TiProxy older than 1.1.0 (or no version), no zone key in PD. */
export function tiproxyLabelKeys(tc: TidbCluster, pd: PdView | undefined): ServerLabelKeys | undefined {
  if (!tc.spec.tiproxy || isVersionAtLeast(imageTagOf(tiproxyImage(tc)), MIN_VERSION) !== true) return undefined;
  return zoneLabelKeys(pd);
}

/** The nodes of the healthy TiProxy pods whose process still needs its labels: what the observer reads for this rule. */
export function tiproxyLabelNodeNames(tc: TidbCluster, pd: PdView | undefined, pods: readonly IPod[], isHealthy: (podName: string) => boolean): string[] {
  const keys = tiproxyLabelKeys(tc, pd);
  if (!keys) return [];
  const wanting = pods.filter((pod) => isHealthy(pod.metadata?.name ?? '') && needsServerLabels(pod, keys, TIPROXY_LABELLED));
  return wanting.flatMap((pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
}

function planMember(input: MemberInput, podName: string, keys: ServerLabelKeys): Action | undefined {
  const pod = input.scope.pod(podName);
  if (!pod || !needsServerLabels(pod, keys, TIPROXY_LABELLED)) return undefined;
  const node = observedNodes(input.snapshot).find((n) => n.metadata?.name === pod.spec?.nodeName);
  if (!node) return undefined;
  const labels = serverLabelsOf(node, keys);
  if (Object.keys(labels).length === 0) return undefined;
  const ns = input.cluster.metadata.namespace ?? '';
  return {
    kind: 'tiproxy.setLabels',
    pod: podName,
    labels,
    onError: clusterWarning(input.cluster, EVENT_REASON.failedSetTiproxyLabels, `failed to set labels ${JSON.stringify(labels)} for TiProxy pod ${ns}/${podName}: `),
    onSuccess: rememberPatch(pod, keys, restartCountOf(pod, TIPROXY_LABELLED) ?? 0, TIPROXY_LABELLED),
  };
}

/**
 * The `TiproxyLabels` rule (v1 sets labels before it scales). Guarantees: nothing unless TiProxy ≥
 * 1.1.0 and PD's location labels have a zone key; otherwise one `tiproxy.setLabels` per healthy
 * member whose running process has not had them and whose node was read; completes.
 */
export function planTiproxyLabels(input: MemberInput): MemberDecision {
  const keys = tiproxyLabelKeys(input.cluster, observedPd(input.snapshot));
  if (!keys) return nothing();
  const healthy = Object.values(input.status.tiproxy?.members ?? {}).filter((m) => m.health);
  const actions = healthy.flatMap((m) => planMember(input, m.name, keys) ?? []);
  return { actions, outcome: complete(actions.length === 0 ? undefined : `setting the labels of ${actions.length} TiProxy server(s)`) };
}
