/**
 * TiDB's rules one at a time, as the TiDB block runs them (see pd-rules.ts), and fixtures of a TiDB
 * world: the `<tc>-tidb` StatefulSet as the rules build it, TiDB pods, and what `/status` answered.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbCluster } from '../../lib/model/kube.js';
import type { Snapshot } from '../../lib/model/snapshot.js';
import type { TidbServerHealth } from '../../lib/model/tidb.js';
import { tidbComponent } from '../../lib/reconcile/components/tidb/recipe.js';
import { planTidbStatus as tidbStatusRule } from '../../lib/reconcile/components/tidb/status.js';
import type { Decision, RuleInput, StatusDecision } from '../../lib/reconcile/engine/rule.js';
import type { MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import { type SetChoice } from '../../lib/reconcile/member/statefulset-draft.js';
import { REF, T0, testPod, type Change, type PodOptions } from './fixtures.js';
import { builtSetOf, memberInputOf, memberRule } from './member-rules.js';

/** The input of a TiDB rule, as the TiDB block enters it. */
export const tidbInputOf = (input: RuleInput): MemberInput => memberInputOf(tidbComponent, input);

/** One TiDB act rule behind the presence gate, the StatefulSet it chose written after it (one decision). */
export const tidbRule = (plan: (input: MemberInput) => MemberDecision): ((input: RuleInput) => Decision) => memberRule(tidbComponent, plan);

/** The `TidbStatus` rule (a status rule: no gate). */
export const planTidbStatusOf = (input: RuleInput): StatusDecision => tidbStatusRule(tidbInputOf(input));

/** Options of a test `<tc>-tidb` StatefulSet. */
export type TidbSetOptions = {
  replicas?: number;
  partition?: number;
  statusReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  updatedReplicas?: number;
  /** The cluster whose desired template the set carries (default: the one given). */
  templateOf?: TidbCluster;
};

/** The `<tc>-tidb` StatefulSet as the rules build it for `tc` (last-applied annotation included), with a status. */
export function tidbSetOf(tc: TidbCluster, o: TidbSetOptions = {}): IStatefulSet {
  const replicas = o.replicas ?? tc.spec.tidb?.replicas ?? 2;
  const choice: SetChoice = { replicas, partition: o.partition ?? replicas };
  const built = builtSetOf(tidbComponent, o.templateOf ?? tc, choice);
  return {
    ...built,
    metadata: { ...built.metadata, resourceVersion: '60', generation: 1, uid: 'uid-sts-tidb' },
    status: {
      replicas: o.statusReplicas ?? replicas,
      readyReplicas: o.statusReplicas ?? replicas,
      currentRevision: o.currentRevision ?? 'rev-1',
      updateRevision: o.updateRevision ?? o.currentRevision ?? 'rev-1',
      updatedReplicas: o.updatedReplicas ?? replicas,
      observedGeneration: 1,
    },
  };
}

/** A TiDB pod of the basic cluster, Running, scheduled and Ready unless said otherwise. */
export function tidbPod(ordinal: number, o: PodOptions & { scheduled?: boolean; node?: string; running?: boolean } = {}): IPod {
  const pod = testPod(`${REF.name}-tidb-${ordinal}`, { component: 'tidb', ...o });
  const scheduled = { type: 'PodScheduled', status: o.scheduled === false ? 'Unknown' : 'True', lastTransitionTime: pod.status?.conditions?.[0]?.lastTransitionTime };
  return {
    ...pod,
    spec: { ...pod.spec, containers: [{ name: 'tidb', image: 'pingcap/tidb:v8.5.0' }], ...(o.node === undefined ? {} : { nodeName: o.node }) },
    status: {
      ...pod.status,
      phase: o.running === false ? 'Pending' : 'Running',
      ...(o.running === false ? {} : { podIP: `10.1.0.${ordinal + 1}` }),
      conditions: [...(pod.status?.conditions ?? []), scheduled],
    },
  };
}

/** Sets what each TiDB pod's `/status` answered (`true`: healthy), or that our path to them failed. */
export const withTidbServers =
  (servers: Readonly<Record<string, boolean>>, error?: string): Change<Snapshot> =>
  (s) => {
    const verdicts: Record<string, TidbServerHealth> = Object.fromEntries(
      Object.entries(servers).map(([name, healthy]) => [name, healthy ? { healthy } : { healthy, detail: 'HTTP 500' }]),
    );
    const view = error === undefined ? { servers: verdicts } : undefined;
    const { error: _e, errorKind: _k, ...rest } = s.components.tidb;
    return { ...s, components: { ...s.components, tidb: { ...rest, view, ...(error === undefined ? {} : { error, errorKind: 'unreachable' as const }) } } };
  };

/** A time well past any failover period. */
export const LONG_AGO_MS = T0 - 3_600_000;
