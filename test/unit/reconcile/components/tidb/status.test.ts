import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import { TIDB_CONVERGING_RETRY_MS } from '../../../../../lib/reconcile/components/tidb/status.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { T0, changeStatus, ruleInputOf, snapshot, tidbCluster, withCluster, withOwned, type Change } from '../../../../support/fixtures.js';
import { planTidbStatusOf, tidbPod, tidbSetOf, withTidbServers } from '../../../../support/tidb-rules.js';

const EARLIER = toKubeTime(T0 - 600_000);
const NOW = toKubeTime(T0);
const previous = (members: Record<string, boolean>): Change<TidbCluster> =>
  changeStatus((s) => ({ ...s, tidb: { members: Object.fromEntries(Object.entries(members).map(([name, health]) => [name, { name, health, lastTransitionTime: EARLIER }])) } }));

function sync(tc: TidbCluster, servers: Record<string, boolean>, o: { error?: string; pods?: ReturnType<typeof tidbPod>[]; set?: Parameters<typeof tidbSetOf>[1] } = {}) {
  const pods = o.pods ?? [tidbPod(0, { node: 'node-0' }), tidbPod(1, { node: 'node-1' })];
  return planTidbStatusOf(ruleInputOf(snapshot(withCluster(tc), withOwned('StatefulSet', tidbSetOf(tc, o.set)), withOwned('Pod', ...pods), withTidbServers(servers, o.error))));
}
const membersOf = (status: TidbClusterStatus | undefined) =>
  Object.values(status?.tidb?.members ?? {}).map((m) => [m.name, m.health, m.lastTransitionTime === EARLIER ? 'kept' : m.lastTransitionTime === NOW ? 'now' : m.lastTransitionTime, m.node]);

describe('TiDB status sync (§2.4)', () => {
  it.each([
    { name: 'both answer /status: healthy, first seen now', before: {} as Record<string, boolean>, servers: { 'basic-tidb-0': true, 'basic-tidb-1': true }, expected: [['basic-tidb-0', true, 'now', 'node-0'], ['basic-tidb-1', true, 'now', 'node-1']] },
    {
      name: 'an unchanged health keeps its transition time; a flip moves it',
      before: { 'basic-tidb-0': true, 'basic-tidb-1': true },
      servers: { 'basic-tidb-0': true, 'basic-tidb-1': false },
      expected: [['basic-tidb-0', true, 'kept', 'node-0'], ['basic-tidb-1', false, 'now', 'node-1']],
    },
    {
      name: 'a pod not asked (not running) is unhealthy',
      before: { 'basic-tidb-0': true, 'basic-tidb-1': true },
      servers: { 'basic-tidb-0': true },
      expected: [['basic-tidb-0', true, 'kept', 'node-0'], ['basic-tidb-1', false, 'now', 'node-1']],
    },
  ])('$name', ({ before, servers, expected }) => {
    const decision = sync(tidbCluster(previous(before)), servers as Record<string, boolean>);
    expect(membersOf(decision.status)).toEqual(expected);
    expect(decision.status?.tidb?.image).toBe('pingcap/tidb:v8.5.0');
  });

  it('members cover the ordinals the StatefulSet runs: a pod not yet created is unhealthy', () => {
    const decision = sync(tidbCluster(), { 'basic-tidb-0': true }, { pods: [tidbPod(0, { node: 'node-0' })] });
    expect(membersOf(decision.status)).toEqual([
      ['basic-tidb-0', true, 'now', 'node-0'],
      ['basic-tidb-1', false, 'now', undefined],
    ]);
  });

  it('when our path to the servers failed, the members keep their last health', () => {
    const tc = tidbCluster(previous({ 'basic-tidb-0': true, 'basic-tidb-1': true }));
    const decision = sync(tc, {}, { error: 'TiDB status of basic-tidb-0: connect ECONNREFUSED' });
    expect(membersOf(decision.status)).toEqual([
      ['basic-tidb-0', true, 'kept', undefined],
      ['basic-tidb-1', true, 'kept', undefined],
    ]);
    expect(decision.outcome).toMatchObject({ kind: 'complete', message: expect.stringContaining('TiDB not read') });
  });

  it('a Ready pod whose server does not answer healthy asks to be looked at again soon; at rest nothing is asked', () => {
    const converging = sync(tidbCluster(), { 'basic-tidb-0': true, 'basic-tidb-1': false });
    const atRest = sync(tidbCluster(), { 'basic-tidb-0': true, 'basic-tidb-1': true });
    expect(converging.wakeAtMs).toBe(T0 + TIDB_CONVERGING_RETRY_MS);
    expect(atRest.wakeAtMs).toBeUndefined();
  });

  it.each([
    { name: 'at one revision: Normal', others: {}, set: {}, phase: 'Normal' },
    { name: 'desired replicas differ from the StatefulSet: Scale', others: {}, set: { replicas: 3 }, phase: 'Scale' },
    { name: 'between revisions: Upgrade', others: {}, set: { currentRevision: 'r1', updateRevision: 'r2' }, phase: 'Upgrade' },
    { name: 'between revisions while TiKV upgrades: Normal (as v1)', others: { tikv: { phase: 'Upgrade' } }, set: { currentRevision: 'r1', updateRevision: 'r2' }, phase: 'Normal' },
    { name: 'between revisions while PD upgrades: Normal (as v1)', others: { pd: { phase: 'Upgrade' } }, set: { currentRevision: 'r1', updateRevision: 'r2' }, phase: 'Normal' },
  ])('phase (§1.6): $name', ({ others, set, phase }) => {
    const tc = tidbCluster(changeStatus((s) => ({ ...s, ...others })));
    const decision = sync(tc, { 'basic-tidb-0': true, 'basic-tidb-1': true }, { set });
    expect(decision.status?.tidb?.phase).toBe(phase);
  });
});
