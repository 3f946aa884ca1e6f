import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../../../../lib/model/action.js';
import type { Snapshot } from '../../../../../lib/model/snapshot.js';
import type { TicdcCaptureView, TicdcDrainView } from '../../../../../lib/model/ticdc.js';
import { toKubeTime } from '../../../../../lib/reconcile/cluster/condition.js';
import { ticdcRules } from '../../../../../lib/reconcile/components/ticdc/recipe.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { T0, changeStatus, snapshot, testPod, tidbCluster, withCluster, withDeadlines, withOwned, withSpec, type Change } from '../../../../support/fixtures.js';
import { memberWorld } from '../../../../support/member-world.js';

const BEGIN = 'tidb.pingcap.com/ticdc-graceful-shutdown-begin-time';
const POD = 'basic-ticdc-0';

type Row = {
  name: string;
  /** `upgrade`: v8.5.0 → v8.5.1 with the pod on the old revision; `scale-in`: 1 → 0. */
  change: 'upgrade' | 'scale-in';
  /** The drain began 5 s ago (pod annotation and persisted deadline). */
  began: boolean;
  /** basic-ticdc-0's capture is the owner (false: between a resignation and its next campaign). */
  owner: boolean;
  /** What TiCDC answered for the drain this step (only read once it began). */
  drain?: TicdcDrainView;
  expected: { actions: string[]; outcome: string };
};

const describeAction = (a: Action): string => {
  const sts = a.kind === 'update' ? (a.object as IStatefulSet).spec : undefined;
  if (a.kind === 'update') return `update replicas ${String(sts?.replicas)} partition ${String(sts?.updateStrategy?.rollingUpdate?.partition)}`;
  if (a.kind === 'ticdc.resignOwner') return `resignOwner ${a.pod}`;
  return a.kind;
};

/** One TiCDC pod, alone in its changefeed cluster as this cluster's pods show it, while `row.change` is under way. */
function world(row: Row): Snapshot {
  const upgrade = row.change === 'upgrade';
  const tc = tidbCluster(
    withSpec({ pd: undefined, tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas: upgrade ? 1 : 0, ...(upgrade ? { version: 'v8.5.1' } : {}) } }),
    changeStatus((s) => ({ ...s, ticdc: { phase: upgrade ? 'Upgrade' : 'Normal', synced: true } })),
  );
  // the StatefulSet at 1 replica, with the new template applied (upgrade)
  const set = memberWorld(ticdcRules, tc, { replicas: 1, revision: 'rev-1', updateRevision: upgrade ? 'rev-2' : 'rev-1' });
  const plain = testPod(POD, { component: 'ticdc', revision: 'rev-1' });
  const pod = row.began ? { ...plain, metadata: { ...plain.metadata, annotations: { [BEGIN]: toKubeTime(T0 - 5_000) } } } : plain;
  const capture: TicdcCaptureView = { podName: POD, ready: true, id: 'cap-0', version: 'v8.5.0', isOwner: row.owner };
  const withTicdc: Change<Snapshot> = (s) => ({ ...s, components: { ...s.components, ticdc: { ...s.components.ticdc, view: { captures: { [POD]: capture }, drains: Object.fromEntries(row.drain ? [[POD, row.drain]] : []) } } } });
  const deadline = { component: 'ticdc', member: POD, kind: 'gracefulShutdown', sinceMs: T0 - 5_000, deadlineAtMs: T0 + 595_000 };
  return snapshot(withCluster(tc), ...set.changes, withOwned('Pod', pod), withTicdc, withDeadlines(...(row.began ? [deadline] : [])));
}

describe('TiCDC with one capture: resign and drain are done at once (as TiDB Operator ResignOwner and DrainCapture)', () => {
  it.each<Row>([
    { name: 'upgrade, first step: the begin is recorded, and the lone owner is not asked to resign', change: 'upgrade', began: false, owner: true, expected: { actions: ['patch', 'state.putDeadline'], outcome: 'retry 5000' } },
    { name: 'upgrade: TiCDC lists the capture alone, so the pod rolls now', change: 'upgrade', began: true, owner: true, drain: { kind: 'alone' }, expected: { actions: ['update replicas 1 partition 0'], outcome: 'retry 5000' } },
    { name: 'upgrade: alone and between campaigns (no owner) rolls too', change: 'upgrade', began: true, owner: false, drain: { kind: 'alone' }, expected: { actions: ['update replicas 1 partition 0'], outcome: 'retry 5000' } },
    {
      name: "upgrade: TiCDC lists a capture of another cluster on the same PD, so the owner resigns (TiCDC's list is the word)",
      change: 'upgrade',
      began: true,
      owner: true,
      drain: { kind: 'retry', reason: 'basic-ticdc-0 is still the owner' },
      expected: { actions: ['resignOwner basic-ticdc-0'], outcome: 'retry 5000' },
    },
    { name: 'upgrade: the drain not read yet (the capture did not answer): wait, resign nothing', change: 'upgrade', began: true, owner: false, expected: { actions: [], outcome: 'retry 5000' } },
    { name: 'scale-in to 0, first step: the begin is recorded, no resignation', change: 'scale-in', began: false, owner: true, expected: { actions: ['patch', 'state.putDeadline'], outcome: 'retry 5000' } },
    { name: 'scale-in to 0: alone, so the StatefulSet goes to 0 now', change: 'scale-in', began: true, owner: true, drain: { kind: 'alone' }, expected: { actions: ['update replicas 0 partition 0'], outcome: 'retry 5000' } },
  ])('$name', (row) => {
    // Prepare
    const s = world(row);
    // Act
    const plan = planStep(s, ticdcRules);
    // Assess
    expect(plan.actions.map(describeAction)).toEqual(row.expected.actions);
    expect(`${plan.outcome.kind}${plan.outcome.kind === 'retry' ? ` ${plan.outcome.afterMs}` : ''}`).toBe(row.expected.outcome);
  });
});
