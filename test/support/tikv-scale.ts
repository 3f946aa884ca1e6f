/**
 * TiKV's scale rule one step at a time, as the TiKV block runs it: the input entered as the block
 * enters it (defaulted cluster, TiKV's context) and the shared scaler's decision, for table tests
 * of Fixture G. Builders for what those tests vary: PD's stores, TiKV pods and their claims.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';

import type { TidbCluster } from '../../lib/model/kube.js';
import type { PdStore, PdView } from '../../lib/model/pd.js';
import type { Snapshot } from '../../lib/model/snapshot.js';
import { toKubeTime } from '../../lib/reconcile/cluster/condition.js';
import type { MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import { planMemberScale } from '../../lib/reconcile/member/scale.js';
import { tikvComponent } from '../../lib/reconcile/components/tikv/recipe.js';
import { REF, T0, pdViewOf, ruleInputOf, testPod, testPvc, withOwned, withPd, type Change } from './fixtures.js';
import { builtSetOf, memberInputOf } from './member-rules.js';

/** The input of TiKV's scale rule, as the TiKV block enters it. */
export const tikvInputOf = (s: Snapshot): MemberInput => memberInputOf(tikvComponent, ruleInputOf(s));

/** The `TikvScale` rule's decision. */
export const planTikvScale = (s: Snapshot): MemberDecision => planMemberScale(tikvInputOf(s));

/** The live `<tc>-tikv` StatefulSet at `replicas` (as the TiKV rules would have written it). */
export function tikvSetOf(tc: TidbCluster, replicas: number): IStatefulSet {
  const built = builtSetOf(tikvComponent, tc, { replicas, partition: replicas });
  return { ...built, metadata: { ...built.metadata, resourceVersion: '70', generation: 1 }, status: { replicas, readyReplicas: replicas, observedGeneration: 1 } };
}

/** A store of the basic cluster's pod `pod` as PD lists it. */
export function tikvStore(id: string, pod: string, o: { state?: PdStore['state']; leaderCount?: number; engine?: string } = {}): PdStore {
  return {
    id,
    address: `${pod}.${REF.name}-tikv-peer.${REF.namespace}.svc:20160`,
    state: o.state ?? 'Up',
    leaderCount: o.leaderCount ?? 0,
    regionCount: 10,
    labels: o.engine === undefined ? {} : { engine: o.engine },
  };
}

/** PD with `stores`, the evict-leader schedulers of `evicting` and `max-replicas`. */
export function withStores(stores: readonly PdStore[], o: { evicting?: readonly string[]; maxReplicas?: number } = {}): Change<Snapshot> {
  const base = pdViewOf([]);
  const view: PdView = {
    ...base,
    stores,
    schedulers: (o.evicting ?? []).map((id) => `evict-leader-scheduler-${id}`),
    config: { replication: { maxReplicas: o.maxReplicas ?? 3, locationLabels: [] } },
  };
  return withPd(view);
}

/** A TiKV pod of the basic cluster mounting `tikv-<pod>` (and a second claim, as Fixture G's two PVCs). */
export function tikvPod(
  name: string,
  o: { storeId?: string; ready?: boolean; createdAtMs?: number; annotations?: Record<string, string>; claims?: readonly string[] } = {},
): IPod {
  const pod = testPod(name, { component: 'tikv', ready: o.ready ?? true, createdAtMs: o.createdAtMs ?? T0 - 3_600_000, claims: o.claims ?? [`tikv-${name}`, `log-${name}`] });
  const labels = { ...pod.metadata?.labels, ...(o.storeId === undefined ? {} : { 'tidb.pingcap.com/store-id': o.storeId }) };
  return { ...pod, metadata: { ...pod.metadata, labels, ...(o.annotations === undefined ? {} : { annotations: o.annotations }) } };
}

/** The claims of a TiKV pod (`tikv-<pod>` and `log-<pod>`), labelled for it. */
export function tikvPvcs(pod: string, annotations?: Record<string, string>): IPersistentVolumeClaim[] {
  return [`tikv-${pod}`, `log-${pod}`].map((name) => {
    const pvc = testPvc(name, pod, { uid: `uid-${name}`, ...(annotations === undefined ? {} : { annotations }) });
    return { ...pvc, metadata: { ...pvc.metadata, labels: { ...pvc.metadata?.labels, 'app.kubernetes.io/component': 'tikv' } } };
  });
}

/** Adds the pods and their claims. */
export const withTikvPods = (...pods: IPod[]): Change<Snapshot> => (s) => {
  const claims = pods.flatMap((p) => tikvPvcs(p.metadata?.name ?? ''));
  return withOwned('PersistentVolumeClaim', ...claims)(withOwned('Pod', ...pods)(s));
};

/** `toKubeTime` of `T0 + deltaMs`. */
export const kubeTimeAt = (deltaMs: number): string => toKubeTime(T0 + deltaMs);
