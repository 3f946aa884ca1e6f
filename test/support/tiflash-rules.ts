/**
 * TiFlash's rules one at a time, as the TiFlash block runs them (the input entered as the block
 * enters it, the presence gate first, the StatefulSet a rule chose written right after it), and the
 * fixtures its tests share: the spec, a live StatefulSet, pods, stores and store-status answers.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster, TidbClusterStatus } from '../../lib/model/kube.js';
import type { Snapshot } from '../../lib/model/snapshot.js';
import type { TiflashStoreStatusRead } from '../../lib/model/tiflash.js';
import type { Decision, RuleInput } from '../../lib/reconcile/engine/rule.js';
import { tiflashComponent } from '../../lib/reconcile/components/tiflash/recipe.js';
import { STATEFUL_SET_APPLY, planApply } from '../../lib/reconcile/member/apply.js';
import type { MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import { enterMember } from '../../lib/reconcile/member/context.js';
import { planPresenceGate } from '../../lib/reconcile/member/recipe.js';
import { desiredStatefulSet } from '../../lib/reconcile/member/statefulset-draft.js';
import { REF, ruleInputOf, snapshot, testPod, withCluster, withSpec, type Change, type PodOptions } from './fixtures.js';

type TiflashStore = NonNullable<NonNullable<TidbClusterStatus['tiflash']>['stores']>[string];

/** The input of a TiFlash rule, as the TiFlash block enters it. */
export function tiflashInputOf(input: RuleInput): MemberInput {
  const entry = enterMember(tiflashComponent, input);
  return { ...input, cluster: entry.cluster, scope: entry.scope, draft: entry.draft };
}

/** One TiFlash act rule behind the presence gate, the StatefulSet it chose written after it (one decision). */
export function tiflashRule(plan: (input: MemberInput) => MemberDecision): (input: RuleInput) => Decision {
  return (raw) => {
    const input = tiflashInputOf(raw);
    const gate = planPresenceGate(input);
    if (gate.stop === true) return { actions: gate.actions, outcome: gate.outcome };
    const { draft, ...decision } = plan(input);
    const live = input.scope.set;
    const write = draft !== undefined && live ? planApply(STATEFUL_SET_APPLY, draft, live) : undefined;
    return write ? { ...decision, actions: [...decision.actions, write] } : decision;
  };
}

/** `spec.tiflash` with `replicas`, one 10Gi storage claim and the given fields. */
export const withTiflash = (replicas: number, fields: Partial<NonNullable<TidbCluster['spec']['tiflash']>> = {}): Change<TidbCluster> =>
  withSpec({ tiflash: { baseImage: 'pingcap/tiflash', replicas, storageClaims: [{ resources: { requests: { storage: '10Gi' } } }], ...fields } });

/** Options of a live TiFlash StatefulSet. */
export type TiflashSetOptions = { replicas?: number; partition?: number; currentRevision?: string; updateRevision?: string; updatedReplicas?: number; lastApplied?: boolean };

/** The TiFlash StatefulSet as the rules would have written it for `tc`, with a controller status. */
export function tiflashSetOf(tc: TidbCluster, o: TiflashSetOptions = {}): IStatefulSet {
  const replicas = o.replicas ?? tc.spec.tiflash?.replicas ?? 1;
  const built = desiredStatefulSet(tiflashInputOf(ruleInputOf(snapshot(withCluster(tc)))), { replicas, partition: o.partition ?? replicas });
  const annotations = o.lastApplied === false ? {} : built.metadata?.annotations;
  return {
    ...built,
    metadata: { ...built.metadata, annotations, resourceVersion: '60', generation: 1, uid: 'uid-sts-tiflash' },
    status: {
      replicas,
      readyReplicas: replicas,
      currentRevision: o.currentRevision ?? '1',
      updateRevision: o.updateRevision ?? o.currentRevision ?? '1',
      updatedReplicas: o.updatedReplicas ?? replicas,
      observedGeneration: 1,
    },
  };
}

/** The TiFlash pod of `ordinal`. */
export const tiflashPod = (ordinal: number, o: PodOptions = {}) => testPod(`${REF.name}-tiflash-${ordinal}`, { component: 'tiflash', ...o });

/** A store record of the TiFlash pod of `ordinal` (id `10<ordinal>`). */
export function tiflashStore(ordinal: number, state = 'Up', id = `10${ordinal}`): TiflashStore {
  const pod = `${REF.name}-tiflash-${ordinal}`;
  return { id, podName: pod, ip: `${pod}.${REF.name}-tiflash-peer.${REF.namespace}.svc`, leaderCount: 0, state, lastTransitionTime: '2025-12-31T00:00:00Z' };
}

/** Sets what the proxies of TiFlash pods answered at `/tiflash/store-status`. */
export const withStoreStatus =
  (storeStatus: Record<string, TiflashStoreStatusRead>): Change<Snapshot> =>
  (s) => ({ ...s, components: { ...s.components, tiflash: { ...s.components.tiflash, view: { storeStatus } } } });
