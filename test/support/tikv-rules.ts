/**
 * TiKV's rules one at a time, as the TiKV block runs them (the input entered as the block enters
 * it), and fixtures of TiKV's world: its StatefulSet as the rules would write it, its pods, and
 * stores as PD reports them.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster } from '../../lib/model/kube.js';
import type { PdStore, PdStoreState, PdView } from '../../lib/model/pd.js';
import { tikvComponent } from '../../lib/reconcile/components/tikv/recipe.js';
import type { RuleInput, StatusDecision } from '../../lib/reconcile/engine/rule.js';
import type { MemberInput } from '../../lib/reconcile/member/component.js';
import { enterMember } from '../../lib/reconcile/member/context.js';
import { desiredStatefulSet } from '../../lib/reconcile/member/statefulset-draft.js';
import { REF, ruleInputOf, snapshot, testPod, withCluster, type PodOptions } from './fixtures.js';
import type { IPod } from 'kubernetes-models/v1/Pod';

/** The input of a TiKV rule, as the TiKV block enters it. */
export function tikvInputOf(input: RuleInput): MemberInput {
  const entry = enterMember(tikvComponent, input);
  return { ...input, cluster: entry.cluster, scope: entry.scope, draft: entry.draft };
}

/** The `TikvStatus` rule (a status rule: no gate). */
export const planTikvStatus = (input: RuleInput): StatusDecision => tikvComponent.syncStatus(tikvInputOf(input));

/** Options of a live TiKV StatefulSet: its spec replicas and the status the controller reported. */
export type TikvSetOptions = {
  replicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  statusReplicas?: number;
  generation?: number;
  observedGeneration?: number;
};

/** The `<tc>-tikv` StatefulSet as the TiKV rules would write it for `tc`, with `o` and a controller status. */
export function tikvSetOf(tc: TidbCluster, o: TikvSetOptions = {}): IStatefulSet {
  const replicas = o.replicas ?? tc.spec.tikv?.replicas ?? 3;
  const built = desiredStatefulSet(tikvInputOf(ruleInputOf(snapshot(withCluster(tc)))), { replicas, partition: replicas });
  return {
    ...built,
    metadata: { ...built.metadata, resourceVersion: '60', generation: o.generation ?? 1, uid: 'uid-sts-tikv' },
    status: {
      replicas: o.statusReplicas ?? replicas,
      readyReplicas: o.statusReplicas ?? replicas,
      currentRevision: o.currentRevision ?? 'rev-1',
      updateRevision: o.updateRevision ?? o.currentRevision ?? 'rev-1',
      observedGeneration: o.observedGeneration ?? 1,
    },
  };
}

/** A TiKV pod of the basic cluster (`basic-tikv-<ordinal>` on its `tikv-…` claim), Ready unless said otherwise. */
export function tikvPod(ordinal: number, o: PodOptions = {}): IPod {
  const name = `basic-tikv-${ordinal}`;
  return testPod(name, { claims: [`tikv-${name}`], ...o, component: 'tikv' });
}

/** A store as PD reports it; `host` defaults to the basic cluster's pod `basic-tikv-<id − 1>`. */
export function pdStore(id: string, state: PdStoreState = 'Up', o: { host?: string; leaderCount?: number; labels?: Record<string, string> } = {}): PdStore {
  const host = o.host ?? `basic-tikv-${Number(id) - 1}.basic-tikv-peer.${REF.namespace}.svc`;
  return { id, address: `${host}:20160`, state, leaderCount: o.leaderCount ?? 10, regionCount: 20, labels: o.labels ?? {} };
}

/** `view` with `stores` (and bootstrapped, as PD is once a store joined). */
export const withStores = (view: PdView, ...stores: PdStore[]): PdView => ({ ...view, stores, bootstrapped: true });
