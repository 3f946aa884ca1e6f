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
import type { INode } from 'kubernetes-models/v1/Node';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { Snapshot } from '../../lib/model/snapshot.js';
import { REF, testPod, type Change, type PodOptions } from './fixtures.js';
import { builtSetOf, memberInputOf } from './member-rules.js';

/** The input of a TiKV rule, as the TiKV block enters it. */
export const tikvInputOf = (input: RuleInput): MemberInput => memberInputOf(tikvComponent, input);

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
  const built = builtSetOf(tikvComponent, tc, { replicas, partition: replicas });
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

/** A Node with `labels` (the topology labels store labels are read from). */
export function testNode(name: string, labels: Record<string, string>): INode {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
}

/** Adds the Nodes the observer read. */
export const withNodes =
  (...nodes: INode[]): Change<Snapshot> =>
  (s) => ({ ...s, nodes: [...(s.nodes ?? []), ...nodes] });

/** The pod scheduled on `nodeName`. */
export const onNode = (pod: IPod, nodeName: string): IPod => ({ ...pod, spec: { containers: [], ...pod.spec, nodeName } });

/** Adds store ids the state table recorded (`[podName, storeId]`, component `tikv`). */
export const withStoreIds =
  (...pairs: [string, string][]): Change<Snapshot> =>
  (s) => ({ ...s, state: { ...s.state, storeIds: [...(s.state.storeIds ?? []), ...pairs.map(([podName, storeId]) => ({ component: 'tikv', podName, storeId }))] } });

/** The pod with `labels` added. */
export const labelled = (pod: IPod, labels: Record<string, string>): IPod => ({ ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata?.labels, ...labels } } });
