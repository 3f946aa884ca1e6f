/**
 * Each invariant monitor fires on a deliberate violation made by hand through the API server, and
 * stays quiet when the same thing happens the safe way or because of an injected fault.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TidbSimKnobs } from '../../lib/sim/tidb/knobs.js';
import { type World, handCluster, startWorld, waitForHealthyPd, waitForUpStores } from './tidb-harness.js';

let world: World | undefined;

afterEach(async () => {
  await world?.stop();
  world = undefined;
});

/** A running cluster: 3 PD and `tikv` TiKV stores, all healthy and balanced. */
async function running(tikv = 3, knobs: Partial<TidbSimKnobs> = {}): Promise<World> {
  const w = await startWorld({ knobs });
  world = w;
  await w.deploy(handCluster({ tikv, tidb: 0 }), ['tidbcluster', 'discovery', 'pd', 'tikv']);
  await waitForHealthyPd(w, 3);
  await waitForUpStores(w, tikv);
  await w.clock.advance(3 * 60_000);
  return w;
}

/** Waits until the TiKV set has rolled every pod to its latest template. */
async function waitForRollout(w: World): Promise<void> {
  await w.waitFor('the rollout', async () => {
    const set = (await w.object('StatefulSet', 'basic-tikv')).json;
    const s = set.status;
    return s.observedGeneration === set.metadata.generation && s.currentRevision === s.updateRevision && s.updatedReplicas === 3 && s.readyReplicas === 3;
  });
}

/** Makes the TidbCluster the controller owner of `set`, as the reconciler creates it. */
async function ownByCluster(w: World, set: string): Promise<void> {
  const tc = (await w.object('TidbCluster', 'basic')).json;
  await w.edit('StatefulSet', set, (s) => {
    s.metadata.ownerReferences = [{ apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', name: 'basic', uid: tc.metadata.uid, controller: true, blockOwnerDeletion: true }];
  });
}

function violationsOf(w: World, name: string): string[] {
  return (w.sim.invariants().find((i) => i.name === name)?.violations ?? []).map((v) => v.message);
}

function storeOf(w: World, pod: string): { id: string; state: string } | undefined {
  return w.sim.snapshot('demo', 'basic').stores.find((s) => s.address.startsWith(`${pod}.`) && s.state !== 'Tombstone');
}

describe('pd-quorum-kept', () => {
  it('fires when two of three PD pods are deleted at once', async () => {
    // Prepare
    const w = await running();
    // Act
    await w.remove('Pod', 'basic-pd-0');
    await w.remove('Pod', 'basic-pd-1');
    await w.clock.advance(2000);
    // Assess
    expect(violationsOf(w, 'pd-quorum-kept')).toEqual([expect.stringContaining('PD of demo/basic lost quorum: 1/3 members serving')]);
  });

  it('records each violation at the virtual time it happened', async () => {
    // Prepare
    const w = await running();
    // Act
    await w.remove('Pod', 'basic-pd-0');
    await w.remove('Pod', 'basic-pd-1');
    const deletedAtMs = w.clock.nowMs();
    await w.clock.advance(2000);
    // Assess
    const [violation] = w.sim.invariants().find((i) => i.name === 'pd-quorum-kept')?.violations ?? [];
    expect(violation?.atMs).toBeGreaterThanOrEqual(deletedAtMs);
    expect(violation?.atMs).toBeLessThanOrEqual(w.clock.nowMs());
  });

  it.each([
    { name: 'stays quiet when the TidbCluster is deleted and the garbage collector takes its StatefulSet and pods', deleteKind: 'TidbCluster', deleteName: 'basic', expected: 0 },
    { name: 'fires when the PD StatefulSet is deleted while its TidbCluster stays', deleteKind: 'StatefulSet', deleteName: 'basic-pd', expected: 1 },
  ])('$name', async ({ deleteKind, deleteName, expected }) => {
    // Prepare
    const w = await running();
    await ownByCluster(w, 'basic-pd');
    // Act
    await w.remove(deleteKind, deleteName);
    await w.clock.advance(60_000);
    // Assess
    expect((await w.object('Pod', 'basic-pd-0')).status).toBe(404);
    expect(w.sim.cluster('demo', 'basic')?.pd.members.hasQuorum()).toBe(false);
    expect(violationsOf(w, 'pd-quorum-kept')).toHaveLength(expected);
  });

  it('stays quiet when an injected fault deletes two of three PD pods at once', async () => {
    // Prepare
    const w = await running();
    // Act
    w.sim.faults.deletePod('demo', 'basic-pd-0');
    w.sim.faults.deletePod('demo', 'basic-pd-1');
    await w.clock.advance(2000);
    // Assess
    expect(w.sim.cluster('demo', 'basic')?.pd.members.hasQuorum()).toBe(false);
    expect(violationsOf(w, 'pd-quorum-kept')).toEqual([]);
  });

  it('stays quiet when injected faults take the majority down', async () => {
    // Prepare
    const w = await running();
    // Act
    w.sim.faults.podDown('demo', 'basic-pd-0');
    w.sim.faults.nodeDown((await w.object('Pod', 'basic-pd-1')).json.spec.nodeName);
    await w.clock.advance(2000);
    // Assess
    expect(w.sim.cluster('demo', 'basic')?.pd.members.hasQuorum()).toBe(false);
    expect(violationsOf(w, 'pd-quorum-kept')).toEqual([]);
  });
});

describe('no-data-loss and pvc-deleted-only-after-tombstone', () => {
  it('fire when the volumes of every replica are deleted', async () => {
    // Prepare
    const w = await running();
    // Act
    for (const i of [0, 1, 2]) await w.remove('PersistentVolumeClaim', `tikv-basic-tikv-${i}`);
    for (const i of [0, 1, 2]) await w.remove('Pod', `basic-tikv-${i}`);
    await w.clock.advance(60_000);
    // Assess
    expect(violationsOf(w, 'pvc-deleted-only-after-tombstone')).toHaveLength(3);
    expect(violationsOf(w, 'pvc-deleted-only-after-tombstone')[0]).toMatch(/PVC demo\/tikv-basic-tikv-0 deleted while store \d+ .* was Up/);
    expect(violationsOf(w, 'no-data-loss').length).toBeGreaterThan(0);
  });

  it('stay quiet when the PVC of a tombstoned store is deleted', async () => {
    // Prepare
    const w = await running(4);
    const store = storeOf(w, 'basic-tikv-3');
    await w.pd(`/pd/api/v1/store/${store?.id ?? ''}`, 'DELETE');
    await w.waitFor('Tombstone', () => w.sim.snapshot('demo', 'basic').stores.find((s) => s.id === store?.id)?.state === 'Tombstone');
    // Act
    await w.edit('StatefulSet', 'basic-tikv', (s) => (s.spec.replicas = 3));
    await w.remove('PersistentVolumeClaim', 'tikv-basic-tikv-3');
    await w.clock.advance(60_000);
    // Assess
    expect(violationsOf(w, 'pvc-deleted-only-after-tombstone')).toEqual([]);
    expect(violationsOf(w, 'no-data-loss')).toEqual([]);
  });
});

describe('no-store-deleted-below-max-replicas', () => {
  it.each([
    { name: 'stays quiet when the other stores Up are as many as max-replicas', down: [] as string[], expected: [] as unknown[] },
    {
      name: 'fires when a store is deleted while another one is Disconnected (PD still counts it, the regions cannot)',
      down: ['basic-tikv-0'],
      expected: [expect.stringMatching(/store \d+ \(basic-tikv-3\..*\) of demo\/basic was deleted with 2 other TiKV stores Up, fewer than max-replicas 3/)],
    },
  ])('$name', async ({ down, expected }) => {
    // Prepare
    const w = await running(4);
    for (const pod of down) w.sim.faults.podDown('demo', pod);
    await w.clock.advance(30_000);
    const store = storeOf(w, 'basic-tikv-3');
    // Act
    const res = await w.pd(`/pd/api/v1/store/${store?.id ?? ''}`, 'DELETE');
    // Assess
    expect(res.status).toBe(200);
    expect(violationsOf(w, 'no-store-deleted-below-max-replicas')).toEqual(expected);
  });
});

describe('one-pod-down-for-upgrade', () => {
  it('fires when two TiKV pods on the old revision are deleted together', async () => {
    // Prepare
    const w = await running();
    await w.edit('StatefulSet', 'basic-tikv', (s) => {
      s.spec.updateStrategy.rollingUpdate.partition = 3;
      s.spec.template.spec.containers[0].image = 'pingcap/tikv:v7.5.1';
    });
    await w.clock.advance(1000);
    // Act
    await w.remove('Pod', 'basic-tikv-2');
    await w.remove('Pod', 'basic-tikv-1');
    await w.clock.advance(1000);
    // Assess
    expect(violationsOf(w, 'one-pod-down-for-upgrade')).toEqual([expect.stringContaining('2 pods of StatefulSet demo/basic-tikv down for a rolling update at once: basic-tikv-1, basic-tikv-2')]);
  });

  it('fires when two TiFlash pods on the old revision are deleted together', async () => {
    // Prepare
    const w = await startWorld();
    world = w;
    await w.deploy(handCluster({ tidb: 0, tiflash: 2 }), ['tidbcluster', 'discovery', 'pd', 'tikv', 'tiflash']);
    await waitForHealthyPd(w, 3);
    await waitForUpStores(w, 5);
    await w.edit('StatefulSet', 'basic-tiflash', (s) => {
      s.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 2 } };
      s.spec.template.spec.containers[0].image = 'pingcap/tiflash:v7.5.1';
    });
    await w.clock.advance(1000);
    // Act
    await w.remove('Pod', 'basic-tiflash-1');
    await w.remove('Pod', 'basic-tiflash-0');
    await w.clock.advance(1000);
    // Assess
    expect(violationsOf(w, 'one-pod-down-for-upgrade')).toEqual([expect.stringContaining('2 pods of StatefulSet demo/basic-tiflash down for a rolling update at once: basic-tiflash-0, basic-tiflash-1')]);
  });

  it('stays quiet through a one-at-a-time rolling update', async () => {
    // Prepare
    const w = await running();
    // Act
    await w.edit('StatefulSet', 'basic-tikv', (s) => (s.spec.template.spec.containers[0].image = 'pingcap/tikv:v7.5.1'));
    await waitForRollout(w);
    // Assess
    expect(violationsOf(w, 'one-pod-down-for-upgrade')).toEqual([]);
  });
});

describe('no-evict-leader-left-after-upgrade', () => {
  it.each([
    { name: 'fires when a scheduler outlives the completed rollout by the grace period', removeBeforeGrace: false, addAfterRollout: false, scaleIn: false, expected: 1 },
    { name: 'stays quiet when the scheduler is removed within the grace period', removeBeforeGrace: true, addAfterRollout: false, scaleIn: false, expected: 0 },
    { name: 'fires when a scheduler added after the rollout completed is still there', removeBeforeGrace: false, addAfterRollout: true, scaleIn: false, expected: 1 },
    { name: 'stays quiet for the scheduler of a store a scale-in is removing', removeBeforeGrace: false, addAfterRollout: true, scaleIn: true, expected: 0 },
  ])('$name', async ({ removeBeforeGrace, addAfterRollout, scaleIn, expected }) => {
    // Prepare
    const w = await running(3, { evictLeaderGraceMs: 60_000 });
    const store = storeOf(w, 'basic-tikv-2');
    const addScheduler = () => w.pd('/pd/api/v1/schedulers', 'POST', { name: 'evict-leader-scheduler', store_id: Number(store?.id) });
    if (!addAfterRollout) await addScheduler();
    // Act
    await w.edit('StatefulSet', 'basic-tikv', (s) => (s.spec.template.spec.containers[0].image = 'pingcap/tikv:v7.5.1'));
    await waitForRollout(w);
    if (scaleIn) await w.edit('Pod', 'basic-tikv-2', (p) => (p.metadata.annotations = { ...p.metadata.annotations, 'tidb.pingcap.com/scale-in-time': new Date(w.clock.nowMs()).toISOString() }));
    if (addAfterRollout) await addScheduler();
    if (removeBeforeGrace) await w.pd(`/pd/api/v1/schedulers/evict-leader-scheduler-${store?.id ?? ''}`, 'DELETE');
    await w.clock.advance(61_000);
    // Assess
    expect(violationsOf(w, 'no-evict-leader-left-after-upgrade')).toHaveLength(expected);
  });
});

describe('TiDB rollout monitors', () => {
  /** A running cluster with `tidb` TiDB servers, all Ready. */
  async function withTidb(tidb = 2, knobs: Partial<TidbSimKnobs> = {}): Promise<World> {
    const w = await startWorld({ knobs });
    world = w;
    await w.deploy(handCluster({ tikv: 3, tidb }), ['tidbcluster', 'discovery', 'pd', 'tikv', 'tidb']);
    await waitForHealthyPd(w, 3);
    await waitForUpStores(w, 3);
    await w.waitFor('TiDB Ready', async () => (await w.object('StatefulSet', 'basic-tidb')).json.status?.readyReplicas === tidb);
    return w;
  }

  /** A new TiDB template that rolls no pod by itself (partition = replicas). */
  const newTidbTemplate = (w: World) =>
    w.edit('StatefulSet', 'basic-tidb', (s) => {
      s.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 2 } };
      s.spec.template.spec.containers[0].image = 'pingcap/tidb:v7.5.1';
    });

  it('one-pod-down-for-upgrade fires when two TiDB pods on the old revision are deleted together', async () => {
    const w = await withTidb();
    await newTidbTemplate(w);
    await w.clock.advance(1000);
    await w.remove('Pod', 'basic-tidb-1');
    await w.remove('Pod', 'basic-tidb-0');
    await w.clock.advance(1000);
    expect(violationsOf(w, 'one-pod-down-for-upgrade')).toEqual([expect.stringContaining('2 pods of StatefulSet demo/basic-tidb down for a rolling update at once: basic-tidb-0, basic-tidb-1')]);
  });

  it.each([
    { name: 'fires when a TiDB pod restarts for its rollout while TiKV is between revisions', tikvRolling: true, expected: 1 },
    { name: 'stays quiet when TiKV is at one revision', tikvRolling: false, expected: 0 },
  ])('no-tidb-upgrade-during-tikv-upgrade $name', async ({ tikvRolling, expected }) => {
    // Prepare: TiKV gets a new template that rolls nothing yet (its set is between revisions).
    const w = await withTidb();
    if (tikvRolling) {
      await w.edit('StatefulSet', 'basic-tikv', (s) => {
        s.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 3 } };
        s.spec.template.spec.containers[0].image = 'pingcap/tikv:v7.5.1';
      });
    }
    await newTidbTemplate(w);
    await w.clock.advance(1000);
    // Act
    await w.remove('Pod', 'basic-tidb-1');
    await w.clock.advance(1000);
    // Assess
    expect(violationsOf(w, 'no-tidb-upgrade-during-tikv-upgrade')).toHaveLength(expected);
    expect(violationsOf(w, 'no-tidb-upgrade-during-tikv-upgrade').join()).toMatch(expected === 0 ? /^$/ : /basic-tidb-1 restarted for a rolling update while demo\/basic-tikv is between revisions/);
  });

  it.each([
    { name: 'fires when smooth-upgrade mode is still on after a TiDB rollout', finish: false, expected: 1 },
    { name: 'stays quiet when /upgrade/finish was called', finish: true, expected: 0 },
  ])('no-ddl-left-paused-after-upgrade $name', async ({ finish, expected }) => {
    // Prepare: DDL paused through a TiDB server, then a full rollout.
    const w = await withTidb(2, { evictLeaderGraceMs: 60_000 });
    expect((await w.podProxy('basic-tidb-0', 10080, '/upgrade/start', 'POST')).status).toBe(200);
    await w.edit('StatefulSet', 'basic-tidb', (s) => {
      s.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
      s.spec.template.spec.containers[0].image = 'pingcap/tidb:v7.5.1';
    });
    await w.waitFor('the TiDB rollout', async () => {
      const set = (await w.object('StatefulSet', 'basic-tidb')).json;
      const s = set.status;
      return s.observedGeneration === set.metadata.generation && s.currentRevision === s.updateRevision && s.updatedReplicas === 2 && s.readyReplicas === 2;
    });
    if (finish) await w.waitFor('/upgrade/finish answered', async () => (await w.podProxy('basic-tidb-0', 10080, '/upgrade/finish', 'POST')).status === 200);
    // Act
    await w.clock.advance(60_000);
    // Assess
    expect(violationsOf(w, 'no-ddl-left-paused-after-upgrade')).toHaveLength(expected);
  });
});

describe('ticdc-capture-drained-before-stop', () => {
  const BEGIN = 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time';

  /** PD 3, TiKV 3 and two TiCDC captures, each replicating tables. */
  async function withCaptures(): Promise<World> {
    const w = await running();
    await w.deploy(handCluster({ tikv: 3, tidb: 0, ticdc: 2 }), ['ticdc']);
    await w.waitFor('two captures', async () => ((await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures')).json?.length ?? 0) === 2);
    return w;
  }
  const captureOf = async (w: World, pod: string): Promise<string> => ((await w.podProxy(pod, 8301, '/status')).json as { id: string }).id;
  const beginDrain = (w: World, pod: string, atMs: number) =>
    w.edit('Pod', pod, (p) => {
      p.metadata.annotations = { ...p.metadata.annotations, [BEGIN]: new Date(atMs).toISOString() };
    });

  it('fires when a capture holding tables is stopped with another capture alive', async () => {
    // Prepare
    const w = await withCaptures();
    // Act
    await w.remove('Pod', 'basic-ticdc-1');
    await w.clock.advance(2000);
    // Assess
    expect(violationsOf(w, 'ticdc-capture-drained-before-stop')).toEqual([expect.stringMatching(/of demo\/basic-ticdc-1 stopped with 12 tables on it \(no drain begun\)/)]);
  });

  it('stays quiet when the capture was drained to no table first', async () => {
    // Prepare: basic-ticdc-1 is not the owner and is drained
    const w = await withCaptures();
    const owner = (await w.podProxy('basic-ticdc-0', 8301, '/status')).json as { is_owner: boolean };
    if (!owner.is_owner) await w.podProxy('basic-ticdc-1', 8301, '/api/v1/owner/resign', 'POST');
    await beginDrain(w, 'basic-ticdc-1', w.clock.nowMs());
    await w.podProxy('basic-ticdc-0', 8301, '/api/v1/captures/drain', 'PUT', { capture_id: await captureOf(w, 'basic-ticdc-1') });
    await w.clock.advance(11_000);
    // Act
    await w.remove('Pod', 'basic-ticdc-1');
    await w.clock.advance(2000);
    // Assess
    expect(violationsOf(w, 'ticdc-capture-drained-before-stop')).toEqual([]);
  });

  it('stays quiet when the graceful-shutdown timeout has run out since the drain began', async () => {
    // Prepare: the begin annotation is 10 minutes old
    const w = await withCaptures();
    await beginDrain(w, 'basic-ticdc-1', w.clock.nowMs() - 10 * 60_000);
    // Act
    await w.remove('Pod', 'basic-ticdc-1');
    await w.clock.advance(2000);
    // Assess
    expect(violationsOf(w, 'ticdc-capture-drained-before-stop')).toEqual([]);
  });

  it('stays quiet when an injected fault deletes the pod', async () => {
    // Prepare
    const w = await withCaptures();
    // Act
    w.sim.faults.deletePod('demo', 'basic-ticdc-1');
    await w.clock.advance(2000);
    // Assess
    expect(violationsOf(w, 'ticdc-capture-drained-before-stop')).toEqual([]);
  });
});

describe('region-majority', () => {
  it('fires when a TiKV pod is deleted while another store\'s process is down: regions on both lose their majority', async () => {
    // Prepare: basic-tikv-0's process is killed (a fault, not blamed).
    const w = await running();
    w.sim.faults.podDown('demo', 'basic-tikv-0');
    await w.clock.advance(2000);
    expect(violationsOf(w, 'region-majority')).toEqual([]);
    // Act: a restart of basic-tikv-2, as an upgrade that does not look at the other stores would.
    await w.remove('Pod', 'basic-tikv-2');
    await w.clock.advance(2000);
    // Assess: every region has a replica on each of the 3 stores, so each lost its majority once.
    const violations = violationsOf(w, 'region-majority');
    expect(violations.length).toBeGreaterThan(0);
    expect(violations[0]).toMatch(/^region \d+ of demo\/basic lost the majority of its 3 replicas: 1 live; down without an injected fault: store \d+ \(basic-tikv-2\)$/);
    expect(new Set(violations).size).toBe(violations.length);
  });

  it('stays quiet when injected faults alone take two stores down', async () => {
    // Prepare
    const w = await running();
    // Act
    w.sim.faults.podDown('demo', 'basic-tikv-0');
    w.sim.faults.deletePod('demo', 'basic-tikv-2');
    await w.clock.advance(2000);
    // Assess
    expect(violationsOf(w, 'region-majority')).toEqual([]);
  });

  it('stays quiet through a one-at-a-time rolling update with every store up', async () => {
    // Prepare
    const w = await running();
    // Act
    await w.remove('Pod', 'basic-tikv-2');
    await w.clock.advance(30_000);
    await w.remove('Pod', 'basic-tikv-1');
    await w.clock.advance(30_000);
    // Assess
    expect(violationsOf(w, 'region-majority')).toEqual([]);
  });
});
