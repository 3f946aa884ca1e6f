import { describe, expect, it } from '@jest/globals';

import type { TidbClusterStatus } from '../../../../../lib/model/kube.js';
import { isTikvAvailable } from '../../../../../lib/reconcile/components/tikv/availability.js';
import { tidbCluster } from '../../../../support/fixtures.js';

type TikvStatus = NonNullable<TidbClusterStatus['tikv']>;
const store = (id: string, state: string) => ({ id, podName: `basic-tikv-${id}`, ip: '', leaderCount: 0, state });
const sts = (readyReplicas: number) => ({ replicas: 3, readyReplicas });

describe("TiKV's availability to TiDB and TiCDC, as v1's TiKVIsAvailable (§1.5)", () => {
  it.each<{ name: string; tikv: TikvStatus | undefined; available: boolean }>([
    { name: 'one Up store and one ready replica', tikv: { stores: { '1': store('1', 'Up'), '2': store('2', 'Down') }, statefulSet: sts(1), phase: 'Normal' }, available: true },
    { name: 'no TiKV status at all', tikv: undefined, available: false },
    { name: 'no store Up', tikv: { stores: { '1': store('1', 'Disconnected') }, statefulSet: sts(3) }, available: false },
    { name: 'no StatefulSet recorded', tikv: { stores: { '1': store('1', 'Up') } }, available: false },
    { name: 'no ready replica and no Up peer store', tikv: { stores: { '1': store('1', 'Up') }, statefulSet: sts(0) }, available: false },
    { name: "an Up peer store stands in for this cluster's replicas", tikv: { peerStores: { '7': store('7', 'Up') }, statefulSet: sts(0) }, available: true },
    { name: 'suspended', tikv: { stores: { '1': store('1', 'Up') }, statefulSet: sts(3), phase: 'Suspend' }, available: false },
  ])('$name → $available', ({ tikv, available }) => {
    // Act / Assess
    expect(isTikvAvailable(tidbCluster(), tikv === undefined ? {} : { tikv })).toBe(available);
  });
});
