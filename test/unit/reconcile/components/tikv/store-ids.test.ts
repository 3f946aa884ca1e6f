import { describe, expect, it } from '@jest/globals';

import type { Action } from '../../../../../lib/model/action.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { isOwnTikvStoreAddress } from '../../../../../lib/reconcile/components/tikv/status.js';
import { knownStoreId, planStoreIdentity } from '../../../../../lib/reconcile/member/store-identity.js';
import { pdViewOf, ruleInputOf, snapshot, withOwned, withPd, type Change } from '../../../../support/fixtures.js';
import { labelled, pdStore, tikvInputOf, tikvPod, withStoreIds, withStores } from '../../../../support/tikv-rules.js';

const CLUSTER_ID = '6800000000000000001';
const IDS = { 'tidb.pingcap.com/store-id': '1', 'tidb.pingcap.com/cluster-id': CLUSTER_ID };
const world = (...changes: Change<Snapshot>[]): Snapshot => snapshot(...changes);
const pd = (...stores: ReturnType<typeof pdStore>[]) => withPd(withStores(pdViewOf([]), ...stores));
const deleting = { ...tikvPod(0), metadata: { ...tikvPod(0).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };

const described = (actions: readonly Action[]): string[] =>
  actions.map((a) => {
    if (a.kind === 'state.putStoreId') return `record ${a.record.podName}=${a.record.storeId}`;
    if (a.kind === 'patch') return `label ${a.ref.name} ${JSON.stringify(a.patch)} rv=${a.resourceVersion ?? ''}`;
    return a.kind;
  });

describe('store ids kept per pod as soon as PD lists the store (§2.9 UpdateMetaInfo, P13)', () => {
  it.each<{ name: string; s: Snapshot; expected: string[] }>([
    {
      name: 'a new store: recorded in the state table and written on its pod as store-id and cluster-id labels',
      s: world(withOwned('Pod', tikvPod(0)), pd(pdStore('1'))),
      expected: ['record basic-tikv-0=1', `label basic-tikv-0 {"metadata":{"labels":{"tidb.pingcap.com/store-id":"1","tidb.pingcap.com/cluster-id":"${CLUSTER_ID}"}}} rv=7`],
    },
    { name: 'recorded and labelled already: nothing', s: world(withOwned('Pod', labelled(tikvPod(0), IDS)), pd(pdStore('1')), withStoreIds(['basic-tikv-0', '1'])), expected: [] },
    {
      name: 'the pod runs a new store (a fresh volume): the record and the label move to it',
      s: world(withOwned('Pod', labelled(tikvPod(0), IDS)), pd(pdStore('1', 'Tombstone'), pdStore('6', 'Up', { host: 'basic-tikv-0.basic-tikv-peer.demo.svc' })), withStoreIds(['basic-tikv-0', '1'])),
      expected: ['record basic-tikv-0=6', 'label basic-tikv-0 {"metadata":{"labels":{"tidb.pingcap.com/store-id":"6"}}} rv=7'],
    },
    { name: 'the pod is gone: the store is still recorded for it', s: world(pd(pdStore('1', 'Offline'))), expected: ['record basic-tikv-0=1'] },
    { name: 'the pod is being deleted: recorded, not labelled', s: world(withOwned('Pod', deleting), pd(pdStore('1', 'Down'))), expected: ['record basic-tikv-0=1'] },
    { name: 'a Tombstone alone records nothing (a tombstone is matched against the record, never the other way)', s: world(withOwned('Pod', tikvPod(0)), pd(pdStore('1', 'Tombstone'))), expected: [] },
    { name: "another cluster's store: nothing", s: world(withOwned('Pod', tikvPod(0)), pd(pdStore('7', 'Up', { host: 'basic-tikv-0.other-tikv-peer.demo.svc' }))), expected: [] },
    { name: 'PD not read: nothing', s: world(withOwned('Pod', tikvPod(0))), expected: [] },
  ])('$name', ({ s, expected }) => {
    // Act
    const decision = planStoreIdentity(tikvInputOf(ruleInputOf(s)), isOwnTikvStoreAddress);

    // Assess
    expect(described(decision.actions)).toEqual(expected);
  });

  it.each<{ name: string; s: Snapshot; expected: string | undefined }>([
    { name: 'from the pod label (TiDB Operator wrote it, nothing recorded)', s: world(withOwned('Pod', labelled(tikvPod(3), { 'tidb.pingcap.com/store-id': '9' }))), expected: '9' },
    { name: 'from the state table when the label was never written (P13)', s: world(withOwned('Pod', tikvPod(3)), withStoreIds(['basic-tikv-3', '9'])), expected: '9' },
    { name: 'from the state table when the pod is gone', s: world(withStoreIds(['basic-tikv-3', '9'])), expected: '9' },
    { name: 'the record wins over a label not moved yet (its patch lost a race)', s: world(withOwned('Pod', labelled(tikvPod(3), { 'tidb.pingcap.com/store-id': '9' })), withStoreIds(['basic-tikv-3', '12'])), expected: '12' },
    { name: 'neither says: unknown', s: world(withOwned('Pod', tikvPod(3))), expected: undefined },
  ])('the store a pod is known to run: $name', ({ s, expected }) => {
    // Act / Assess
    expect(knownStoreId(tikvInputOf(ruleInputOf(s)), 'basic-tikv-3')).toBe(expected);
  });
});
