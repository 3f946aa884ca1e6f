import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action, DeadlineSpec } from '../../../../../lib/model/action.js';
import type { TidbCluster } from '../../../../../lib/model/kube.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import type { TicdcCaptureView, TicdcDrainView, TicdcView } from '../../../../../lib/model/ticdc.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { ticdcRules } from '../../../../../lib/reconcile/components/ticdc/recipe.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { T0, at, changeStatus, snapshot, testPod, tidbCluster, withCluster, withDeadlines, withOwned, withSpec, type Change } from '../../../../support/fixtures.js';
import { memberWorld } from '../../../../support/member-world.js';

const BEGIN = 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time';
const MINUTE = 60_000;

/** TiCDC 2 → 1 (no PD in this cluster, so nothing gates it), both pods running rev-1. */
const tc = tidbCluster(
  withSpec({ pd: undefined, tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas: 1 } }),
  changeStatus((s) => ({ ...s, ticdc: { phase: 'Normal', synced: false } })),
);
const world = memberWorld(ticdcRules, tidbCluster(withSpec({ pd: undefined, tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas: 2 } })));

const capture = (pod: string, isOwner: boolean): TicdcCaptureView => ({ podName: pod, ready: true, id: `cap-${pod.slice(-1)}`, version: 'v8.5.0', isOwner });
const withTicdc =
  (view: Partial<TicdcView>): Change<Snapshot> =>
  (s) => ({ ...s, components: { ...s.components, ticdc: { ...s.components.ticdc, view: { captures: {}, drains: {}, ...view } } } });
const pod = (name: string, beganAtMs?: number) => {
  const p = testPod(name, { component: 'ticdc', revision: 'rev-1' });
  return beganAtMs === undefined ? p : { ...p, metadata: { ...p.metadata, annotations: { [BEGIN]: toKubeTime(beganAtMs) } } };
};
const deadline = (sinceMs: number): DeadlineSpec => ({ component: 'ticdc', member: 'basic-ticdc-1', kind: 'gracefulShutdown', sinceMs, deadlineAtMs: sinceMs + 10 * MINUTE });

type Row = {
  name: string;
  beganAtMs?: number;
  owner: boolean;
  drain?: TicdcDrainView;
  deadlines?: DeadlineSpec[];
  nowMs?: number;
  timeout?: string;
  expected: { actions: string[]; replicas?: number; outcome: string };
};

const describeAction = (a: Action): string => {
  switch (a.kind) {
    case 'patch':
      return `patch ${a.ref.kind}/${a.ref.name} ${JSON.stringify(a.patch)}`;
    case 'update':
      return `update ${a.ref.kind}/${a.ref.name}`;
    case 'state.putDeadline':
      return `putDeadline ${a.deadline.member} ${a.deadline.sinceMs - T0}..${a.deadline.deadlineAtMs - T0}`;
    case 'ticdc.resignOwner':
      return `resignOwner ${a.pod} ${a.capture}`;
    default:
      return a.kind;
  }
};

describe('TiCDC scale-in drains the capture first (as TiDB Operator gracefulDrainTiCDC)', () => {
  it.each<Row>([
    {
      name: 'the first step records the begin on the pod and as a deadline, and resigns the owner there',
      owner: true,
      expected: {
        actions: [`patch Pod/basic-ticdc-1 {"metadata":{"annotations":{"${BEGIN}":"${toKubeTime(T0)}"}}}`, `putDeadline basic-ticdc-1 0..${10 * MINUTE}`, 'resignOwner basic-ticdc-1 cap-1'],
        outcome: 'retry 5000',
      },
    },
    { name: 'a non-owner is not asked to resign', owner: false, expected: { actions: [`patch Pod/basic-ticdc-1 {"metadata":{"annotations":{"${BEGIN}":"${toKubeTime(T0)}"}}}`, `putDeadline basic-ticdc-1 0..${10 * MINUTE}`], outcome: 'retry 5000' } },
    { name: 'still the owner: resign again, nothing else', beganAtMs: T0 - 5_000, deadlines: [deadline(T0 - 5_000)], owner: true, expected: { actions: ['resignOwner basic-ticdc-1 cap-1'], outcome: 'retry 5000' } },
    { name: 'tables left: poll again in a few seconds, replicas kept', beganAtMs: T0 - 5_000, deadlines: [deadline(T0 - 5_000)], owner: false, drain: { kind: 'tables', count: 7 }, expected: { actions: [], outcome: 'retry 5000' } },
    { name: 'TiCDC asks to retry (503): poll again', beganAtMs: T0 - 5_000, deadlines: [deadline(T0 - 5_000)], owner: false, drain: { kind: 'retry', reason: 'HTTP 503' }, expected: { actions: [], outcome: 'retry 5000' } },
    { name: 'the poll never waits past the deadline', beganAtMs: T0 - 10 * MINUTE + 2_000, deadlines: [deadline(T0 - 10 * MINUTE + 2_000)], owner: false, drain: { kind: 'tables', count: 7 }, expected: { actions: [], outcome: 'retry 2000' } },
    { name: 'drained: the StatefulSet goes to 1 (TiCDC has no PVC to mark)', beganAtMs: T0 - 5_000, deadlines: [deadline(T0 - 5_000)], owner: false, drain: { kind: 'tables', count: 0 }, expected: { actions: ['update StatefulSet/basic-ticdc'], replicas: 1, outcome: 'retry 5000' } },
    { name: 'past the deadline the pod goes with its tables', beganAtMs: T0 - 10 * MINUTE, deadlines: [deadline(T0 - 10 * MINUTE)], owner: false, drain: { kind: 'tables', count: 7 }, expected: { actions: ['update StatefulSet/basic-ticdc'], replicas: 1, outcome: 'retry 5000' } },
    { name: 'a begun drain without its deadline gets it back, from the begin time', beganAtMs: T0 - 60_000, owner: false, drain: { kind: 'tables', count: 3 }, expected: { actions: [`putDeadline basic-ticdc-1 -60000..${10 * MINUTE - 60_000}`], outcome: 'retry 5000' } },
    {
      name: 'the timeout is spec.ticdc.gracefulShutdownTimeout',
      beganAtMs: T0 - 2 * MINUTE,
      owner: false,
      drain: { kind: 'tables', count: 3 },
      timeout: '90s',
      expected: { actions: ['update StatefulSet/basic-ticdc'], replicas: 1, outcome: 'retry 5000' },
    },
  ])('$name', ({ beganAtMs, owner, drain, deadlines, nowMs, timeout, expected }) => {
    // Prepare
    const cluster: TidbCluster = timeout === undefined ? tc : { ...tc, spec: { ...tc.spec, ticdc: { replicas: 1, ...tc.spec.ticdc, gracefulShutdownTimeout: timeout } } };
    const s = snapshot(
      withCluster(cluster),
      ...world.changes,
      withOwned('Pod', pod('basic-ticdc-0'), pod('basic-ticdc-1', beganAtMs)),
      withTicdc({ captures: { 'basic-ticdc-0': capture('basic-ticdc-0', !owner), 'basic-ticdc-1': capture('basic-ticdc-1', owner) }, drains: drain ? { 'basic-ticdc-1': drain } : {} }),
      withDeadlines(...(deadlines ?? [])),
      at(nowMs ?? T0),
    );
    // Act
    const plan = planStep(s, ticdcRules);
    // Assess
    expect(plan.actions.map(describeAction)).toEqual(expected.actions);
    const update = plan.actions.find((a) => a.kind === 'update');
    expect(update?.kind === 'update' ? (update.object as IStatefulSet).spec?.replicas : undefined).toBe(expected.replicas);
    expect(`${plan.outcome.kind}${plan.outcome.kind === 'retry' ? ` ${plan.outcome.afterMs}` : ''}`).toBe(expected.outcome);
    expect(plan.status?.ticdc?.phase).toBe('Normal'); // never Scale, as TiDB Operator
  });

  it('a scale-in taken back: the begin mark and the deadline go, so a later drain starts afresh', () => {
    // Prepare: spec back at 2 replicas while basic-ticdc-1 carries a begun drain
    const twoCaptures = tidbCluster(withSpec({ pd: undefined, tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas: 2 } }));
    const s = snapshot(withCluster(twoCaptures), ...world.changes, withOwned('Pod', pod('basic-ticdc-0'), pod('basic-ticdc-1', T0 - MINUTE)), withDeadlines(deadline(T0 - MINUTE)));
    // Act
    const plan = planStep(s, ticdcRules);
    // Assess
    expect(plan.actions.map(describeAction)).toEqual([`patch Pod/basic-ticdc-1 {"metadata":{"annotations":{"${BEGIN}":null}}}`, 'state.deleteDeadline']);
  });

  it('deletes a drain deadline whose pod restarted without the begin annotation', () => {
    // Prepare: the deadline of an earlier drain of basic-ticdc-1; the pod now is a new one
    const twoCaptures = tidbCluster(withSpec({ pd: undefined, tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas: 2 } }));
    const s = snapshot(withCluster(twoCaptures), ...world.changes, withOwned('Pod', pod('basic-ticdc-0'), pod('basic-ticdc-1')), withDeadlines(deadline(T0 - MINUTE)));
    // Act
    const plan = planStep(s, ticdcRules);
    // Assess
    expect(plan.actions).toEqual([{ kind: 'state.deleteDeadline', deadline: { component: 'ticdc', member: 'basic-ticdc-1', kind: 'gracefulShutdown' } }]);
  });
});
