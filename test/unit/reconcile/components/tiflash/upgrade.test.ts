import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { retry } from '../../../../../lib/reconcile/engine/outcome.js';
import { planMemberUpgrade } from '../../../../../lib/reconcile/member/upgrade.js';
import { isStoreStatusChecked } from '../../../../../lib/reconcile/components/tiflash/upgrade.js';
import { T0, changeStatus, ruleInputOf, snapshot, tidbCluster, withCluster, withOwned, type Change } from '../../../../support/fixtures.js';
import { tiflashPod, tiflashRule, tiflashSetOf, tiflashStore, withStoreStatus, withTiflash } from '../../../../support/tiflash-rules.js';

const planTiflashUpgrade = tiflashRule(planMemberUpgrade);

/** Fixture L's cluster: TiFlash 3 at `version`, synced, phase Upgrade, stores of tiflash-0..2 Up, sts between "1" and "2". */
function fixtureL(version: string, o: { pdPhase?: string; annotations?: Record<string, string> } = {}): TidbCluster {
  const stores = Object.fromEntries([0, 1, 2].map((i) => [`10${i}`, tiflashStore(i)]));
  const status: Change<TidbCluster> = changeStatus((s) => ({
    ...s,
    pd: { phase: o.pdPhase ?? 'Normal' },
    tiflash: { synced: true, phase: 'Upgrade', stores, statefulSet: { replicas: 3, currentReplicas: 2, updatedReplicas: 1, currentRevision: '1', updateRevision: '2' } },
  }));
  const annotate: Change<TidbCluster> = (tc) => ({ ...tc, metadata: { ...tc.metadata, annotations: o.annotations ?? {} } });
  return tidbCluster(withTiflash(3, { version }), status, annotate);
}

/** tiflash-2 on revision "2" (unless `updated` says otherwise), the others on "1"; all Ready for an hour unless `readySinceMs`. */
const podsOf = (updated: number[] = [2], readySinceMs?: number) =>
  withOwned('Pod', ...[0, 1, 2].map((i) => tiflashPod(i, { revision: updated.includes(i) ? '2' : '1', ...(readySinceMs === undefined ? {} : { readySinceMs }) })));

const partitionWrite = (partition: number) =>
  expect.objectContaining({ kind: 'update', object: expect.objectContaining({ spec: expect.objectContaining({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } }) }) });

type Row = { name: string; tc: TidbCluster; live?: (tc: TidbCluster) => IStatefulSet; changes: Change<Snapshot>[]; actions: unknown[]; outcome?: unknown; phase: string | undefined };

const liveL = (tc: TidbCluster) => tiflashSetOf(tc, { partition: 3, currentRevision: '1', updateRevision: '2', updatedReplicas: 1 });
const running = withStoreStatus({ 'basic-tiflash-2': { status: 'Running' } });
const stopping = withStoreStatus({ 'basic-tiflash-2': { status: 'Stopping' } });

describe('Fixture L — TiFlash upgrader version gate', () => {
  it.each<Row>([
    { name: 'S146 v4.0.0 never asks the store status (Stopping): partition 1', tc: fixtureL('v4.0.0'), changes: [podsOf(), stopping], actions: [partitionWrite(1)], phase: 'Upgrade' },
    { name: 'S147 v4.0.0-dev12 counts as v4.0.0: partition 1', tc: fixtureL('v4.0.0-dev12'), changes: [podsOf(), stopping], actions: [partitionWrite(1)], phase: 'Upgrade' },
    { name: 'S148 v5.1.2 with the store Running: partition 1', tc: fixtureL('v5.1.2'), changes: [podsOf(), running], actions: [partitionWrite(1)], phase: 'Upgrade' },
    { name: 'S149 nightly with the store Running: partition 1', tc: fixtureL('nightly'), changes: [podsOf(), running], actions: [partitionWrite(1)], phase: 'Upgrade' },
    { name: 'S149 latest with the store Running: partition 1', tc: fixtureL('latest'), changes: [podsOf(), running], actions: [partitionWrite(1)], phase: 'Upgrade' },
    {
      name: 'S149b no pod upgraded yet, min-ready 300 s, tiflash-2 Ready since now: partition 2',
      tc: fixtureL('v5.1.2', { annotations: { 'tidb.pingcap.com/tiflash-min-ready-seconds': '300' } }),
      changes: [podsOf([], T0)],
      actions: [partitionWrite(2)],
      phase: 'Upgrade',
    },
    {
      name: 'S149c no last-applied record: the template is written at partition 3, phase Upgrade',
      tc: fixtureL('v5.1.2'),
      live: (tc) => tiflashSetOf(tc, { partition: 3, currentRevision: '2', updateRevision: '2', lastApplied: false }),
      changes: [podsOf([0, 1, 2])],
      actions: [partitionWrite(3)],
      outcome: retry(5_000, 'TiFlash pod template changed: upgrade starts'),
      phase: 'Upgrade',
    },
    {
      name: 'S150 v5.1.2 with the store Stopping: wait, partition stays 3',
      tc: fixtureL('v5.1.2'),
      changes: [podsOf(), stopping],
      actions: [],
      outcome: retry(5_000, "tidbcluster: [demo/basic]'s upgraded TiFlash pod: [basic-tiflash-2], store status is Stopping instead of Running"),
      phase: 'Upgrade',
    },
    { name: 'S151 PD upgrading: the upgrade waits, phase unchanged, no write', tc: fixtureL('v5.1.2', { pdPhase: 'Upgrade' }), changes: [podsOf(), running], actions: [], phase: undefined },
  ])('$name', ({ tc, live, changes, actions, outcome, phase }) => {
    // Prepare
    const input = ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', (live ?? liveL)(tc)), ...changes));
    // Act
    const decision = planTiflashUpgrade(input);
    // Assess
    expect(decision.actions).toEqual(actions);
    if (outcome !== undefined) expect(decision.outcome).toEqual(outcome);
    expect(decision.status?.tiflash?.phase).toBe(phase);
  });
});

describe('TiFlash upgrade: an updated pod is left behind only when its store serves', () => {
  it.each<{ name: string; changes: Change<Snapshot>[]; store?: string; message: string }>([
    { name: 'its store is not Up yet', changes: [podsOf(), running], store: 'Offline', message: 'store state is not UP' },
    { name: 'its proxy was not asked yet', changes: [podsOf()], message: 'get store status failed: not asked yet' },
    { name: 'its proxy did not answer', changes: [podsOf(), withStoreStatus({ 'basic-tiflash-2': { error: 'HTTP 503' } })], message: 'get store status failed: HTTP 503' },
  ])('waits when $name', ({ changes, store, message }) => {
    // Prepare
    const tc = changeStatus((s) => ({ ...s, tiflash: { ...s.tiflash, stores: { ...s.tiflash?.stores, '102': tiflashStore(2, store ?? 'Up') } } }))(fixtureL('v7.5.0'));
    const input = ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', liveL(tc)), ...changes));
    // Act
    const decision = planTiflashUpgrade(input);
    // Assess
    expect(decision.actions).toEqual([]);
    expect(decision.outcome).toEqual(retry(5_000, `tidbcluster: [demo/basic]'s upgraded TiFlash pod: [basic-tiflash-2], ${message}`));
  });

  it.each([
    { version: 'v5.1.1', checked: false },
    { version: 'v5.1.2', checked: true },
    { version: 'v5.1.2-20210801', checked: true },
    { version: 'v6.5', checked: true },
    { version: 'master', checked: true },
    { version: 'nightly-2024', checked: true },
    { version: 'my-build', checked: false },
  ])('the store status is checked from v5.1.2 on: $version → $checked', ({ version, checked }) => {
    expect(isStoreStatusChecked(version)).toBe(checked);
  });
});
