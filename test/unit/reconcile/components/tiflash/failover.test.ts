import { describe, expect, it } from '@jest/globals';

import type { TidbCluster, TidbClusterStatus } from '../../../../../lib/model/kube.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { tiflashComponent } from '../../../../../lib/reconcile/components/tiflash/recipe.js';
import { T0, changeStatus, pdMemberView, pdViewOf, ruleInputOf, snapshot, tidbCluster, withCluster, withOwned, withPd } from '../../../../support/fixtures.js';
import { tiflashPod, tiflashRule, tiflashStore, withTiflash } from '../../../../support/tiflash-rules.js';

type TiflashStatus = NonNullable<TidbClusterStatus['tiflash']>;

const MIN = 60_000;
const planTiflashFailover = tiflashRule(tiflashComponent.hooks.failover);
const recovery = tiflashComponent.hooks.extra.find((r) => r.name === 'TiflashFailoverRecovery');
const planTiflashRecovery = tiflashRule((input) => {
  if (!recovery) throw new Error('TiFlash declares its failover recovery');
  return recovery.plan(input);
});
const pd = withPd(pdViewOf([0, 1, 2].map((i) => pdMemberView(`basic-pd-${i}`)), 'basic-pd-0'));
const down = (ordinal: number, sinceMs: number) => ({ ...tiflashStore(ordinal, 'Down'), lastTransitionTime: toKubeTime(sinceMs) });

/** TiFlash 2, synced, every pod started, tiflash-1's store Down since `downSinceMs`. */
function downCluster(downSinceMs: number, extra: Partial<TiflashStatus> = {}, spec: Partial<NonNullable<TidbCluster['spec']['tiflash']>> = {}): TidbCluster {
  const failures = Object.keys(extra.failureStores ?? {}).length;
  return tidbCluster(
    withTiflash(2, spec),
    changeStatus((s) => ({
      ...s,
      tiflash: { synced: true, phase: 'Normal', statefulSet: { replicas: 2 + failures }, stores: { '100': tiflashStore(0), '101': down(1, downSinceMs) }, ...extra },
    })),
  );
}

describe('TiFlash failover: the store failover TiKV shares, under tiflashFailoverPeriod', () => {
  it('records a store Down past the period (5 min by default) as a failure store, with a failover UID', () => {
    // Act
    const decision = planTiflashFailover(ruleInputOf(snapshot(withCluster(downCluster(T0 - 6 * MIN)), pd)));
    // Assess
    expect(Object.keys(decision.status?.tiflash?.failureStores ?? {})).toEqual(['101']);
    expect(decision.status?.tiflash?.failureStores?.['101']).toMatchObject({ podName: 'basic-tiflash-1', storeID: '101' });
    expect(decision.status?.tiflash?.failoverUID).toMatch(/^[0-9a-f-]{36}$/);
    expect(decision.actions).toContainEqual(expect.objectContaining({ kind: 'event', reason: 'Unhealthy', message: 'tiflash pod[basic-tiflash-1] is unhealthy, msg:store[101] is Down' }));
  });

  it('waits for the deadline before that, persisting it and waking at it', () => {
    // Act
    const decision = planTiflashFailover(ruleInputOf(snapshot(withCluster(downCluster(T0 - 2 * MIN)), pd)));
    // Assess
    expect(decision.status?.tiflash?.failureStores).toBeUndefined();
    expect(decision.actions).toContainEqual(expect.objectContaining({ kind: 'state.putDeadline', deadline: expect.objectContaining({ component: 'tiflash', member: 'basic-tiflash-1', deadlineAtMs: T0 + 3 * MIN }) }));
    expect(decision.wakeAtMs).toBe(T0 + 3 * MIN);
  });

  it.each([
    { name: 'without recoverFailover the extra store stays (P11)', spec: {}, cleared: false },
    { name: 'with recoverFailover and every desired store Up, the failure stores are cleared', spec: { recoverFailover: true }, cleared: true },
  ])('$name', ({ spec, cleared }) => {
    // Prepare: tiflash-1 recovered (Up), its replacement tiflash-2 exists
    const failureStores = { '101': { podName: 'basic-tiflash-1', storeID: '101', pvcUIDSet: {}, createdAt: toKubeTime(T0 - 60 * MIN) } };
    const tc = changeStatus((s) => ({ ...s, tiflash: { ...s.tiflash, stores: { '100': tiflashStore(0), '101': tiflashStore(1), '102': tiflashStore(2, 'Up', '102') } } }))(
      downCluster(T0 - 60 * MIN, { failureStores, failoverUID: 'uid-1' }, spec),
    );
    // Act
    const decision = planTiflashRecovery(ruleInputOf(snapshot(withCluster(tc), pd, withOwned('Pod', tiflashPod(0), tiflashPod(1), tiflashPod(2)))));
    // Assess
    expect((decision.status ?? tc.status)?.tiflash?.failureStores === undefined).toBe(cleared);
  });
});
