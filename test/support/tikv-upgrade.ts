/**
 * TiKV's rules one at a time for the upgrade tests, as the TiKV block runs them (entered as the
 * block enters it, the presence gate first, a chosen StatefulSet written right after), and the
 * TiKV objects they read: the live StatefulSet and its pods.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster } from '../../lib/model/kube.js';
import type { Snapshot } from '../../lib/model/snapshot.js';
import type { Decision, RuleInput } from '../../lib/reconcile/engine/rule.js';
import { tikvComponent } from '../../lib/reconcile/components/tikv/recipe.js';
import type { MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import { type Change, ruleInputOf, testPod, withOwned } from './fixtures.js';
import { builtSetOf, memberInputOf, memberRule } from './member-rules.js';

/** The input of a TiKV rule, as the TiKV block enters it. */
export const tikvInputOf = (input: RuleInput): MemberInput => memberInputOf(tikvComponent, input);

/** One TiKV act rule behind the presence gate, the StatefulSet it chose written after it (one decision). */
export function tikvRule(plan: (input: MemberInput) => MemberDecision): (s: Snapshot) => Decision {
  const rule = memberRule(tikvComponent, plan);
  return (s) => rule(ruleInputOf(s));
}

/** Options of the live `<tc>-tikv` StatefulSet. */
export type TikvSetOptions = { replicas?: number; partition?: number; currentRevision?: string; updateRevision?: string };

/** The `<tc>-tikv` StatefulSet as the TiKV rules would write it for `tc` (last-applied matching), with a controller status. */
export function tikvSetOf(tc: TidbCluster, o: TikvSetOptions = {}): IStatefulSet {
  const replicas = o.replicas ?? tc.spec.tikv?.replicas ?? 3;
  const built = builtSetOf(tikvComponent, tc, { replicas, partition: o.partition ?? replicas });
  return {
    ...built,
    metadata: { ...built.metadata, resourceVersion: '60', generation: 1, uid: 'uid-sts-tikv' },
    status: { replicas, readyReplicas: replicas, currentRevision: o.currentRevision ?? '1', updateRevision: o.updateRevision ?? '2', observedGeneration: 1 },
  };
}

/** TiKV pods basic-tikv-<i> on `revisions[i]`, Ready, with `annotations` by pod name. */
export function tikvPods(revisions: readonly string[], annotations: Record<string, Record<string, string>> = {}, notReady: readonly number[] = []): Change<Snapshot> {
  return withOwned(
    'Pod',
    ...revisions.map((revision, i) => {
      const name = `basic-tikv-${i}`;
      const pod = testPod(name, { revision, component: 'tikv', ready: !notReady.includes(i) });
      const extra = annotations[name];
      return extra === undefined ? pod : { ...pod, metadata: { ...pod.metadata, annotations: extra } };
    }),
  );
}
