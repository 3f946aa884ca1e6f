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
import type { MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import { REF, testPod, withSpec, type Change, type PodOptions } from './fixtures.js';
import { builtSetOf, memberInputOf, memberRule } from './member-rules.js';

type TiflashStore = NonNullable<NonNullable<TidbClusterStatus['tiflash']>['stores']>[string];

/** The input of a TiFlash rule, as the TiFlash block enters it. */
export const tiflashInputOf = (input: RuleInput): MemberInput => memberInputOf(tiflashComponent, input);

/** One TiFlash act rule behind the presence gate, the StatefulSet it chose written after it (one decision). */
export const tiflashRule = (plan: (input: MemberInput) => MemberDecision): ((input: RuleInput) => Decision) => memberRule(tiflashComponent, plan);

/** `spec.tiflash` with `replicas`, one 10Gi storage claim and the given fields. */
export const withTiflash = (replicas: number, fields: Partial<NonNullable<TidbCluster['spec']['tiflash']>> = {}): Change<TidbCluster> =>
  withSpec({ tiflash: { baseImage: 'pingcap/tiflash', replicas, storageClaims: [{ resources: { requests: { storage: '10Gi' } } }], ...fields } });

/** Options of a live TiFlash StatefulSet. */
export type TiflashSetOptions = { replicas?: number; partition?: number; currentRevision?: string; updateRevision?: string; updatedReplicas?: number; lastApplied?: boolean };

/** The TiFlash StatefulSet as the rules would have written it for `tc`, with a controller status. */
export function tiflashSetOf(tc: TidbCluster, o: TiflashSetOptions = {}): IStatefulSet {
  const replicas = o.replicas ?? tc.spec.tiflash?.replicas ?? 1;
  const built = builtSetOf(tiflashComponent, tc, { replicas, partition: o.partition ?? replicas });
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
