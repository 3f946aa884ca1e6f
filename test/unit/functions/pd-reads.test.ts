/**
 * What a step reads of PD: members and health always; stores, Tombstones, config and evict-leader
 * schedulers only when a rule uses them; the cluster id once per PD cluster (bounded cache); member
 * readiness only while PD rolls out.
 */
import { describe, expect, it } from '@jest/globals';

import type { OwnedObjects, TidbCluster } from '../../../lib/model/kube.js';
import type { PdMember, PdPort } from '../../../lib/pd/port.js';
import { NO_OWNED_OBJECTS } from '../../../lib/step/ports.js';
import { ClusterIdCache, isPdRollingOut, readPd, readsPdStores, toPdView } from '../../../lib/wiring/pd-view.js';
import { changeStatus, tidbCluster, withSpec } from '../../support/fixtures.js';

const member = (name: string, memberId: string): PdMember => ({ name, memberId, peerUrls: [], clientUrls: [] });

/** A PD that answers every read and counts the calls by method. */
function countingPd(members: PdMember[], clusterId = '7000000000000000123'): { pd: PdPort; calls: string[] } {
  const calls: string[] = [];
  const answer = <T>(name: string, value: T) => async (): Promise<T> => {
    calls.push(name);
    return value;
  };
  const pd = {
    getMembers: answer('getMembers', { members, leader: members[0] }),
    getHealth: answer('getHealth', members.map((m) => ({ name: m.name, memberId: m.memberId, clientUrls: [], health: true }))),
    getCluster: answer('getCluster', { id: clusterId, maxPeerCount: 3 }),
    getStores: answer('getStores', { stores: [], bootstrapped: true }),
    getTombstoneStores: answer('getTombstoneStores', { stores: [], bootstrapped: true }),
    getConfig: answer('getConfig', { replication: { maxReplicas: 3, locationLabels: [], enablePlacementRules: true } }),
    getEvictLeaderSchedulers: answer('getEvictLeaderSchedulers', [] as string[]),
  } as unknown as PdPort;
  return { pd, calls };
}

const pdOnly = tidbCluster(withSpec({ tikv: undefined, tidb: undefined }));
const THREE = [member('basic-pd-0', '11'), member('basic-pd-1', '12'), member('basic-pd-2', '13')];

describe('which PD answers a cluster reads', () => {
  it.each<{ name: string; tc: TidbCluster; stores: boolean }>([
    { name: 'PD only: members and health, no stores', tc: pdOnly, stores: false },
    { name: 'with TiKV: stores, Tombstones, config and schedulers too', tc: tidbCluster(), stores: true },
    { name: 'with TiFlash only: stores too', tc: tidbCluster(withSpec({ tikv: undefined, tiflash: { baseImage: 'pingcap/tiflash', replicas: 1, storageClaims: [{ resources: { requests: { storage: '1Gi' } } }] } })), stores: true },
    { name: 'PD scaled to 0: stores too (the scale-in checks nothing still uses PD)', tc: tidbCluster(withSpec({ tikv: undefined, tidb: undefined, pd: { baseImage: 'pingcap/pd', replicas: 0 } })), stores: true },
  ])('$name', async ({ tc, stores }) => {
    // Prepare
    const { pd, calls } = countingPd(THREE);

    // Act
    const view = toPdView(await readPd(pd, { stores: readsPdStores(tc), clusterIds: new ClusterIdCache(), pdName: 'demo/basic' }));

    // Assess
    const storeReads = ['getStores', 'getTombstoneStores', 'getConfig', 'getEvictLeaderSchedulers'];
    expect([...calls].sort()).toEqual(['getCluster', 'getHealth', 'getMembers', ...(stores ? storeReads : [])].sort());
    expect(view.storesRead).toBe(stores);
    expect(view.config === undefined).toBe(!stores);
    expect(view.clusterId).toBe('7000000000000000123');
  });
});

describe('the cluster id is read once per PD cluster', () => {
  it('a second read of the same members asks PD only for members and health', async () => {
    // Prepare
    const ids = new ClusterIdCache();
    await readPd(countingPd(THREE).pd, { stores: false, clusterIds: ids, pdName: 'demo/basic' });
    const again = countingPd(THREE);

    // Act
    const answers = await readPd(again.pd, { stores: false, clusterIds: ids, pdName: 'demo/basic' });

    // Assess
    expect(again.calls.sort()).toEqual(['getHealth', 'getMembers']);
    expect(answers.clusterId).toBe('7000000000000000123');
  });

  it('a PD bootstrapped again (new member ids) has its new id read', async () => {
    // Prepare
    const ids = new ClusterIdCache();
    await readPd(countingPd(THREE).pd, { stores: false, clusterIds: ids, pdName: 'demo/basic' });
    const rebuilt = countingPd([member('basic-pd-0', '21'), member('basic-pd-1', '22'), member('basic-pd-2', '23')], '7000000000000000999');

    // Act
    const answers = await readPd(rebuilt.pd, { stores: false, clusterIds: ids, pdName: 'demo/basic' });

    // Assess
    expect(rebuilt.calls).toContain('getCluster');
    expect(answers.clusterId).toBe('7000000000000000999');
  });

  it('keeps at most its bound, the least recently used going first', () => {
    // Prepare
    const ids = new ClusterIdCache(2);
    ids.set('a', '1');
    ids.set('b', '2');
    ids.get('a');

    // Act
    ids.set('c', '3');

    // Assess
    expect(ids.size).toBe(2);
    expect([ids.get('a'), ids.get('b'), ids.get('c')]).toEqual(['1', undefined, '3']);
  });
});

describe('member readiness is read only while PD rolls out', () => {
  const set = (current: string, update: string) => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'basic-pd', namespace: 'demo', labels: { 'app.kubernetes.io/component': 'pd' } },
    status: { replicas: 3, currentRevision: current, updateRevision: update },
  });
  const pod = (name: string, revision: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'demo', labels: { 'app.kubernetes.io/component': 'pd', 'controller-revision-hash': revision } },
  });
  const objects = (sets: unknown[], pods: unknown[]): OwnedObjects => ({ ...NO_OWNED_OBJECTS, StatefulSet: sets, Pod: pods }) as unknown as OwnedObjects;
  it.each<{ name: string; tc: TidbCluster; objects: OwnedObjects; rolling: boolean }>([
    { name: 'one revision everywhere: at rest', tc: pdOnly, objects: objects([set('r1', 'r1')], [pod('basic-pd-0', 'r1')]), rolling: false },
    { name: 'no StatefulSet yet: nothing to roll', tc: pdOnly, objects: objects([], []), rolling: false },
    { name: 'update revision ahead of the current one', tc: pdOnly, objects: objects([set('r1', 'r2')], [pod('basic-pd-0', 'r1')]), rolling: true },
    { name: 'a PD pod on another revision', tc: pdOnly, objects: objects([set('r2', 'r2')], [pod('basic-pd-0', 'r2'), pod('basic-pd-1', 'r1')]), rolling: true },
    { name: 'status still says Upgrade', tc: tidbCluster(changeStatus((s) => ({ ...s, pd: { phase: 'Upgrade' } }))), objects: objects([set('r2', 'r2')], []), rolling: true },
  ])('$name', ({ tc, objects: owned, rolling }) => {
    // Act / Assess
    expect(isPdRollingOut(tc, owned)).toBe(rolling);
  });
});
