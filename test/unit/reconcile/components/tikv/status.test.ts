import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { isOwnTikvStoreAddress } from '../../../../../lib/reconcile/components/tikv/status.js';
import {
  T0,
  changeSpec,
  changeStatus,
  pdViewOf,
  ruleInputOf,
  snapshot,
  tidbCluster,
  withCluster,
  withOwned,
  withPd,
  type Change,
} from '../../../../support/fixtures.js';
import { pdStore, planTikvStatus, tikvPod, tikvSetOf, withStores, type TikvSetOptions } from '../../../../support/tikv-rules.js';

type TikvStatus = NonNullable<TidbClusterStatus['tikv']>;

const NOW = toKubeTime(T0);
const EARLIER = toKubeTime(T0 - 600_000);
const PD = pdViewOf([]);
const upgrading: TikvSetOptions = { currentRevision: 'rev-1', updateRevision: 'rev-2' };
const withTikv = (tikv: TikvStatus): Change<TidbCluster> => changeStatus((s) => ({ ...s, tikv }));
const withPdPhase = (phase: string): Change<TidbCluster> => changeStatus((s) => ({ ...s, pd: { ...s.pd, phase } }));
const tikvReplicas = (replicas: number): Change<TidbCluster> => changeSpec((spec) => ({ ...spec, tikv: { ...spec.tikv, replicas } }));

function statusOf(tc: TidbCluster, set: TikvSetOptions, ...changes: Change<Snapshot>[]): TikvStatus | undefined {
  const s = snapshot(withCluster(tc), withOwned('StatefulSet', tikvSetOf(tidbCluster(), set)), ...changes);
  return planTikvStatus(ruleInputOf(s)).status?.tikv;
}

describe('TiKV status sync phase (Fixture I)', () => {
  it.each<{ name: string; tc: TidbCluster; set: TikvSetOptions; phase: string }>([
    { name: 'S122: upgrading → Upgrade', tc: tidbCluster(), set: upgrading, phase: 'Upgrade' },
    { name: 'S123: upgrading while PD upgrades → Normal', tc: tidbCluster(withPdPhase('Upgrade')), set: upgrading, phase: 'Normal' },
    { name: 'S124: not upgrading → Normal', tc: tidbCluster(), set: {}, phase: 'Normal' },
    {
      name: 'S125: upgrading while LeaderEvicting=True (phase was Normal) → stays Normal',
      tc: tidbCluster(withTikv({ phase: 'Normal', conditions: [{ type: 'LeaderEvicting', status: 'True', reason: 'Evicting', message: '', lastTransitionTime: EARLIER }] })),
      set: upgrading,
      phase: 'Normal',
    },
    { name: 'S126: spec.tikv.replicas 4 against 3 → Scale', tc: tidbCluster(tikvReplicas(4)), set: { replicas: 3 }, phase: 'Scale' },
    { name: 'S127: spec.tikv.replicas 2 against 3 → Scale', tc: tidbCluster(tikvReplicas(2)), set: { replicas: 3 }, phase: 'Scale' },
    { name: 'Scale takes precedence over upgrading', tc: tidbCluster(tikvReplicas(4)), set: { replicas: 3, ...upgrading }, phase: 'Scale' },
    { name: 'failure stores count in the desired replicas (3 + 1 = 4 → Normal)', tc: tidbCluster(withTikv({ failureStores: { '9': { podName: 'basic-tikv-3', storeID: '9' } } })), set: { replicas: 4 }, phase: 'Normal' },
    { name: 'a newer generation not observed yet is upgrading', tc: tidbCluster(), set: { generation: 2, observedGeneration: 1 }, phase: 'Upgrade' },
  ])('$name', ({ tc, set, phase }) => {
    // Act
    const tikv = statusOf(tc, set, withPd(PD));

    // Assess
    expect(tikv?.phase).toBe(phase);
    expect(tikv?.statefulSet?.replicas).toBe(set.statusReplicas ?? set.replicas ?? 3);
  });

  it.each<{ name: string; pods: ReturnType<typeof tikvPod>[]; phase: string }>([
    { name: 'a pod on another revision than the update revision is upgrading', pods: [tikvPod(0, { revision: 'rev-1' }), tikvPod(1, { revision: 'rev-0' })], phase: 'Upgrade' },
    { name: 'a pod without a revision yet means not upgrading', pods: [tikvPod(0, { revision: 'rev-0' }), tikvPod(1)], phase: 'Normal' },
    { name: 'every pod on the update revision is not upgrading', pods: [tikvPod(0, { revision: 'rev-1' }), tikvPod(1, { revision: 'rev-1' })], phase: 'Normal' },
  ])('$name', ({ pods, phase }) => {
    // Act
    const tikv = statusOf(tidbCluster(), {}, withPd(PD), withOwned('Pod', ...pods));

    // Assess
    expect(tikv?.phase).toBe(phase);
  });
});

describe('TiKV stores from PD (§2.2)', () => {
  const store = (id: string, state: string, lastTransitionTime = NOW, leaderCount = 10) => ({
    id,
    podName: `basic-tikv-${Number(id) - 1}`,
    ip: `basic-tikv-${Number(id) - 1}.basic-tikv-peer.demo.svc`,
    leaderCount,
    state,
    lastTransitionTime,
  });

  it.each<{ name: string; tc: TidbCluster; changes: Change<Snapshot>[]; expected: Partial<TikvStatus> }>([
    {
      name: 'own stores by id, with pod name, host, leader count and state; synced and bootstrapped',
      tc: tidbCluster(),
      changes: [withPd(withStores(PD, pdStore('1'), pdStore('2', 'Down', { leaderCount: 0 })))],
      expected: { synced: true, bootStrapped: true, stores: { '1': store('1', 'Up'), '2': store('2', 'Down', NOW, 0) }, peerStores: undefined, tombstoneStores: undefined, image: 'pingcap/tikv:v8.5.0' },
    },
    {
      name: 'S129: a store keeps its lastTransitionTime while its state is unchanged and gets now when it changes',
      tc: tidbCluster(withTikv({ stores: { '1': store('1', 'Up', EARLIER), '2': store('2', 'Up', EARLIER) } })),
      changes: [withPd(withStores(PD, pdStore('1'), pdStore('2', 'Disconnected')))],
      expected: { stores: { '1': store('1', 'Up', EARLIER), '2': store('2', 'Disconnected', NOW) } },
    },
    {
      name: 'leaderCountBeforeUpgrade is carried over',
      tc: tidbCluster(withTikv({ stores: { '1': { ...store('1', 'Up', EARLIER), leaderCountBeforeUpgrade: 250 } } })),
      changes: [withPd(withStores(PD, pdStore('1')))],
      expected: { stores: { '1': { ...store('1', 'Up', EARLIER), leaderCountBeforeUpgrade: 250 } } },
    },
    {
      name: "another cluster's store is a peer store; a TiFlash store (engine=tiflash) is neither",
      tc: tidbCluster(),
      changes: [
        withPd(
          withStores(
            PD,
            pdStore('1'),
            pdStore('7', 'Up', { host: 'other-tikv-0.other-tikv-peer.demo.svc' }),
            pdStore('8', 'Up', { host: 'basic-tiflash-0.basic-tiflash-peer.demo.svc', labels: { engine: 'tiflash' } }),
          ),
        ),
      ],
      expected: {
        stores: { '1': store('1', 'Up') },
        peerStores: { '7': { id: '7', podName: 'other-tikv-0', ip: 'other-tikv-0.other-tikv-peer.demo.svc', leaderCount: 10, state: 'Up', lastTransitionTime: NOW } },
      },
    },
    {
      name: "own Tombstones are tombstoneStores; another cluster's are not kept",
      tc: tidbCluster(),
      changes: [withPd(withStores(PD, pdStore('1'), pdStore('4', 'Tombstone', { host: 'basic-tikv-3.basic-tikv-peer.demo.svc' }), pdStore('7', 'Tombstone', { host: 'other-tikv-0.other-tikv-peer.demo.svc' })))],
      expected: { stores: { '1': store('1', 'Up') }, tombstoneStores: { '4': { ...store('4', 'Tombstone'), podName: 'basic-tikv-3', ip: 'basic-tikv-3.basic-tikv-peer.demo.svc' } }, peerStores: undefined },
    },
    {
      name: 'PD answering "not bootstrapped" is synced, not bootstrapped, with no store',
      tc: tidbCluster(),
      changes: [withPd(PD)],
      expected: { synced: true, bootStrapped: false, stores: undefined },
    },
    {
      name: 'S128: PD not read → not synced, the stores as last seen',
      tc: tidbCluster(withTikv({ synced: true, stores: { '1': store('1', 'Up', EARLIER) } })),
      changes: [withPd(undefined, 'connect ECONNREFUSED')],
      expected: { synced: false, stores: { '1': store('1', 'Up', EARLIER) } },
    },
  ])('$name', ({ tc, changes, expected }) => {
    // Act
    const tikv = statusOf(tc, {}, ...changes) ?? {};

    // Assess: the fields named (undefined: absent)
    const picked = Object.fromEntries(Object.keys(expected).map((key) => [key, tikv[key as keyof TikvStatus]]));
    expect(picked).toEqual(expected);
  });

  it.each([
    { name: 'a pod of this cluster', address: 'basic-tikv-12.basic-tikv-peer.demo.svc:20160', domain: undefined, own: true },
    { name: 'a pod of this cluster under its cluster domain', address: 'basic-tikv-0.basic-tikv-peer.demo.svc.cluster.local:20160', domain: 'cluster.local', own: true },
    { name: 'the same name in another namespace', address: 'basic-tikv-0.basic-tikv-peer.other.svc:20160', domain: undefined, own: false },
    { name: 'a cluster whose name ends like ours', address: 'xbasic-tikv-0.xbasic-tikv-peer.demo.svc:20160', domain: undefined, own: false },
    { name: 'a TiFlash pod of this cluster', address: 'basic-tiflash-0.basic-tiflash-peer.demo.svc:3930', domain: undefined, own: false },
  ])('a store address is ours only as <tc>-tikv-N.<tc>-tikv-peer.<ns>.svc[.domain]: $name', ({ address, domain, own }) => {
    // Prepare
    const tc = tidbCluster(changeSpec((spec) => ({ ...spec, ...(domain === undefined ? {} : { clusterDomain: domain }) })));

    // Act
    const result = isOwnTikvStoreAddress(ruleInputOf(snapshot(withCluster(tc))), address);

    // Assess
    expect(result).toBe(own);
  });
});

describe('TiKV status follows the stores promptly', () => {
  it.each([
    { name: 'a Ready pod whose store is not Up yet asks to look again within seconds', stores: [pdStore('1')], wakes: true },
    { name: 'every Ready pod has an Up store: nothing to wake for', stores: [pdStore('1'), pdStore('2')], wakes: false },
  ])('$name', ({ stores, wakes }) => {
    // Prepare
    const pods = [tikvPod(0, { revision: 'rev-1', readySinceMs: T0 - 8_000 }), tikvPod(1, { revision: 'rev-1', readySinceMs: T0 - 8_000 })];
    const s = snapshot(withCluster(tidbCluster()), withOwned('StatefulSet', tikvSetOf(tidbCluster(), { replicas: 2 })), withOwned('Pod', ...pods), withPd(withStores(PD, ...stores)));

    // Act
    const decision = planTikvStatus(ruleInputOf(s));

    // Assess
    // Ready for 8 s: within the first 10 s members are looked at every second (member/converging.ts).
    expect(decision.wakeAtMs).toBe(wakes ? T0 + 1_000 : undefined);
  });

  it.each([
    { name: 'a pod not Ready for 5 s whose store PD still has Up asks to look again within a second (PD marks it Disconnected within 20 s)', notReadyForMs: 5_000, state: 'Up' as const, wakeAfterMs: 1_000 },
    { name: 'a pod not Ready for 50 s whose store is still Up is looked at every 10 s (a quarter of the lag past 10 s)', notReadyForMs: 50_000, state: 'Up' as const, wakeAfterMs: 10_000 },
    { name: 'a pod not Ready whose store is Disconnected already: status is true, nothing to wake for', notReadyForMs: 5_000, state: 'Disconnected' as const, wakeAfterMs: undefined },
  ])('$name', ({ notReadyForMs, state, wakeAfterMs }) => {
    // Prepare: tikv-1's process died; its Ready condition turned False `notReadyForMs` ago.
    const pods = [tikvPod(0, { revision: 'rev-1', readySinceMs: T0 - 3_600_000 }), tikvPod(1, { revision: 'rev-1', ready: false, readySinceMs: T0 - notReadyForMs })];
    const s = snapshot(withCluster(tidbCluster()), withOwned('StatefulSet', tikvSetOf(tidbCluster(), { replicas: 2 })), withOwned('Pod', ...pods), withPd(withStores(PD, pdStore('1'), pdStore('2', state))));

    // Act
    const decision = planTikvStatus(ruleInputOf(s));

    // Assess
    expect(decision.wakeAtMs).toBe(wakeAfterMs === undefined ? undefined : T0 + wakeAfterMs);
  });

  it('nothing changes without a TiKV StatefulSet', () => {
    // Act
    const decision = planTikvStatus(ruleInputOf(snapshot(withPd(withStores(PD, pdStore('1'))))));

    // Assess
    expect(decision.status).toBeUndefined();
  });
});
