import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { PdMsView } from '../../../../../lib/model/pd.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import { pdmsComponent, pdmsRules } from '../../../../../lib/reconcile/components/pdms/recipe.js';
import { isAddressOfPod } from '../../../../../lib/reconcile/components/pdms/status.js';
import { beforePdmsRestart, choosePrimaryTarget } from '../../../../../lib/reconcile/components/pdms/upgrade.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { changeStatus, pdViewOf, ruleInputOf, snapshot, testPod, tidbCluster, withCluster, withOwned, withPd, withSpec, type Change } from '../../../../support/fixtures.js';
import { memberInputOf } from '../../../../support/member-rules.js';
import { memberWorld } from '../../../../support/member-world.js';

const addr = (pod: string) => `http://${pod}.basic-tso-peer.demo.svc:2379`;
const pdmsCluster = (replicas: number, version = 'v8.3.0'): Change<TidbCluster> =>
  withSpec({ pd: { baseImage: 'pingcap/pd', replicas: 1, mode: 'ms' }, tikv: undefined, tidb: undefined, pdms: [{ name: 'tso', replicas, version }] });
const withMs =
  (tso: PdMsView): Change<Snapshot> =>
  (s) => ({ ...s, components: { ...s.components, pd: { ...s.components.pd, view: { ...pdViewOf([]), microservices: { tso } } } } });
const pod = (name: string, ready = true, revision = 'rev-1') => testPod(name, { component: 'tso', ready, revision });

describe('status.pdms.tso from the StatefulSet and PD (as v1.6 syncStatus)', () => {
  const tc = tidbCluster(pdmsCluster(2));
  const world = memberWorld(pdmsRules, tc);
  it.each([
    { name: 'PD lists both servers: members by address, synced, nothing to wake for', view: { members: [{ name: 'basic-tso-0', serviceAddr: addr('basic-tso-0') }, { name: 'basic-tso-1', serviceAddr: addr('basic-tso-1') }] }, synced: true, members: [addr('basic-tso-0'), addr('basic-tso-1')], wake: false },
    { name: 'a Ready pod not registered yet: synced, and looked at again soon', view: { members: [{ name: 'basic-tso-0', serviceAddr: addr('basic-tso-0') }] }, synced: true, members: [addr('basic-tso-0')], wake: true },
    { name: 'PD could not say (not in API mode): not synced, the members kept', view: { error: 'HTTP 404: "not support micro service"' }, synced: false, members: ['kept'], wake: true },
  ])('$name', ({ view, synced, members, wake }) => {
    // Prepare
    const previous = changeStatus((s) => ({ ...s, pdms: { tso: { name: 'tso', members: ['kept'] } } }));
    const s = snapshot(withCluster(previous(tc)), ...world.changes, withOwned('Pod', pod('basic-tso-0'), pod('basic-tso-1')), withMs(view as PdMsView));
    // Act
    const plan = planStep(s, pdmsRules);
    // Assess
    const status = plan.status?.pdms?.['tso'];
    expect(status).toMatchObject({ name: 'tso', phase: 'Normal', synced, members });
    expect(status?.statefulSet?.replicas).toBe(2);
    expect(plan.nextWakeAtMs !== undefined).toBe(wake);
  });

  it('a spec asking for another number of replicas: phase Scale', () => {
    const s = snapshot(withCluster(tidbCluster(pdmsCluster(3))), ...world.changes, withOwned('Pod', pod('basic-tso-0'), pod('basic-tso-1')), withMs({ members: [] }));
    expect(planStep(s, pdmsRules).status?.pdms?.['tso']?.phase).toBe('Scale');
  });
});

describe('which server an address is (stricter than v1, whose substring match finds basic-tso-1 in basic-tso-10)', () => {
  it.each([
    { name: 'the pod under its peer Service', address: addr('basic-tso-1'), pod: 'basic-tso-1', is: true },
    { name: 'a longer ordinal is another pod', address: addr('basic-tso-10'), pod: 'basic-tso-1', is: false },
    { name: 'a bare pod name with a port', address: 'http://basic-tso-1:2379', pod: 'basic-tso-1', is: true },
  ])('$name', ({ address, pod: name, is }) => {
    expect(isAddressOfPod(address, name)).toBe(is);
  });
});

describe("where the primary goes before its pod restarts (v1's choosePDMSToTransferFromMembers)", () => {
  it.each([
    { name: 'the highest ordinal when it is above the rolling one', replicas: 3, ordinal: 1, want: 2 },
    { name: 'the lowest when the rolling pod is the highest', replicas: 3, ordinal: 2, want: 0 },
    { name: 'none when the only other choice is itself (ordinal 0 of 1)', replicas: 1, ordinal: 0, want: undefined },
    { name: 'an ordinal beyond the replicas counts as the highest', replicas: 2, ordinal: 5, want: 0 },
  ])('$name', ({ replicas, ordinal, want }) => {
    expect(choosePrimaryTarget(replicas, ordinal)).toBe(want);
  });
});

describe('before a tso pod restarts (as v1.6 upgradePDMSPod)', () => {
  const restart = (tc: TidbCluster, view: PdMsView, ordinal: number) => {
    const world = memberWorld(pdmsRules, tc);
    const s = snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod('basic-tso-0'), pod('basic-tso-1')), withMs(view));
    return beforePdmsRestart('tso')(memberInputOf(pdmsComponent('tso'), ruleInputOf(s)), ordinal);
  };
  const members = [{ name: 'basic-tso-0', serviceAddr: addr('basic-tso-0') }, { name: 'basic-tso-1', serviceAddr: addr('basic-tso-1') }];
  it.each([
    { name: 'the primary is the pod that rolls: transferred to the other server first', tc: tidbCluster(pdmsCluster(2)), view: { members, primary: addr('basic-tso-1') }, ordinal: 1, kind: 'hold', to: 'basic-tso-0' },
    { name: 'the primary is elsewhere: the pod rolls', tc: tidbCluster(pdmsCluster(2)), view: { members, primary: addr('basic-tso-0') }, ordinal: 1, kind: 'roll', to: undefined },
    { name: 'before v8.3.0 the primary is not looked at', tc: tidbCluster(pdmsCluster(2, 'v8.1.0')), view: { members, primary: addr('basic-tso-1') }, ordinal: 1, kind: 'roll', to: undefined },
    { name: 'the primary not read yet: hold', tc: tidbCluster(pdmsCluster(2)), view: { members }, ordinal: 1, kind: 'hold', to: undefined },
  ])('$name', ({ tc, view, ordinal, kind, to }) => {
    // Act
    const walk = restart(tc, view as PdMsView, ordinal);
    // Assess
    expect(walk.kind).toBe(kind);
    const actions = walk.kind === 'hold' ? (walk.actions ?? []) : [];
    expect(actions).toEqual(to === undefined ? [] : [{ kind: 'pd.transferPrimary', service: 'tso', to }]);
  });

  it('a primary PD could not read fails the round, as v1', () => {
    const walk = restart(tidbCluster(pdmsCluster(2)), { error: 'HTTP 500' }, 1);
    expect(walk.kind === 'hold' && walk.outcome.kind).toBe('fail');
  });
});

describe("scaling a service (as v1.6's pd_ms_scaler: one ordinal a step, refused while not synced)", () => {
  const live = tidbCluster(pdmsCluster(2));
  const world = memberWorld(pdmsRules, live);
  const listed = { members: [{ name: 'basic-tso-0', serviceAddr: addr('basic-tso-0') }, { name: 'basic-tso-1', serviceAddr: addr('basic-tso-1') }] };
  it.each([
    { name: 'out from 2 to 4: one more replica', replicas: 4, view: listed as PdMsView, written: 3, failed: false },
    { name: 'in from 2 to 0: one fewer replica', replicas: 0, view: listed as PdMsView, written: 1, failed: false },
    { name: 'PD cannot list the servers: not synced, the scale refused', replicas: 3, view: { error: 'HTTP 503' } as PdMsView, written: undefined, failed: true },
  ])('$name', ({ replicas, view, written, failed }) => {
    // Prepare
    const s = snapshot(withCluster(tidbCluster(pdmsCluster(replicas))), ...world.changes, withOwned('Pod', pod('basic-tso-0'), pod('basic-tso-1')), withMs(view));
    // Act
    const plan = planStep(s, pdmsRules);
    // Assess
    const update = plan.actions.find((a) => a.kind === 'update' && a.ref.name === 'basic-tso');
    expect(update?.kind === 'update' ? (update.object as unknown as { spec: { replicas: number } }).spec.replicas : undefined).toBe(written);
    expect(plan.ruleResults.find((r) => r.rule === 'PdTsoScale')?.outcome.kind === 'fail').toBe(failed);
  });
});

describe('suspending a service (as v1.6: after every other component, PD included)', () => {
  const suspendTso = (pdToo: boolean): Change<TidbCluster> =>
    withSpec({
      pd: { baseImage: 'pingcap/pd', replicas: 1, mode: 'ms', ...(pdToo ? { suspendAction: { suspendStatefulSet: true } } : {}) },
      tikv: undefined,
      tidb: undefined,
      pdms: [{ name: 'tso', replicas: 2, version: 'v8.3.0', suspendAction: { suspendStatefulSet: true } }],
    });
  it.each([
    { name: 'PD not asked to suspend: tso begins to suspend', pdToo: false, phase: 'Suspend' },
    { name: 'PD asked but not suspended yet: tso waits for it', pdToo: true, phase: 'Normal' },
  ])('$name', ({ pdToo, phase }) => {
    // Prepare
    const tc = tidbCluster(suspendTso(pdToo), changeStatus((s) => ({ ...s, pd: { phase: 'Normal' }, pdms: { tso: { name: 'tso', phase: 'Normal', synced: true } } })));
    const world = memberWorld(pdmsRules, tidbCluster(suspendTso(pdToo)));
    const s = snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod('basic-tso-0'), pod('basic-tso-1')), withMs({ members: [] }));
    // Act
    const plan = planStep(s, pdmsRules);
    // Assess
    expect(plan.status?.pdms?.['tso']?.phase).toBe(phase);
  });
});

describe('PD microservices no longer asked for (as v1.6: scaled in to 0, one replica a step)', () => {
  const live = tidbCluster(pdmsCluster(2));
  const world = memberWorld(pdmsRules, live);
  const recorded = changeStatus((s) => ({ ...s, pdms: { tso: { name: 'tso', phase: 'Normal', synced: false } } }));
  it.each([
    { name: 'spec.pdms removed: one replica fewer, marked synced', spec: { pd: { baseImage: 'pingcap/pd', replicas: 1, mode: 'ms' as const }, pdms: undefined }, replicas: 1 },
    { name: 'PD out of mode ms: the same', spec: { pd: { baseImage: 'pingcap/pd', replicas: 1 } }, replicas: 1 },
    { name: 'still asked for: left to its block', spec: {}, replicas: undefined },
  ])('$name', ({ spec, replicas }) => {
    // Prepare
    const tc = tidbCluster(pdmsCluster(2), withSpec(spec), recorded);
    const s = snapshot(withCluster(tc), ...world.changes, withOwned('Pod', pod('basic-tso-0'), pod('basic-tso-1')), withMs({ members: [] }));
    // Act
    const plan = planStep(s, pdmsRules);
    // Assess
    const result = plan.ruleResults.find((r) => r.rule === 'PdmsRemoved');
    const update = replicas === undefined ? undefined : plan.actions.find((a) => a.kind === 'update' && a.ref.name === 'basic-tso');
    expect(update?.kind === 'update' ? (update.object as unknown as { spec: { replicas: number } }).spec.replicas : undefined).toBe(replicas);
    expect(result?.outcome.kind).toBe(replicas === undefined ? 'complete' : 'retry');
    if (replicas !== undefined) expect(plan.status?.pdms?.['tso']?.synced).toBe(true);
  });
});
