import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../lib/model/kube.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { managedSections } from '../../../../lib/reconcile/cluster/unmanaged.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { ruleNames } from '../../../../lib/reconcile/engine/rule.js';
import { changeStatus, convergedPdObjects, healthyStatus, snapshot, tidbCluster, withCluster, withOwned, withPd, withPdErrorKind, withSpec } from '../../../support/fixtures.js';
import { tikvSetOf } from '../../../support/tikv-rules.js';

/** TiDB Operator v1's `updateTidbCluster` order of the member managers (§1.3). */
const V1_ORDER = ['pdms', 'pd', 'tiproxy', 'tiflash', 'tikv', 'pump', 'tidb', 'ticdc'];

const names = (): string[] => ruleNames(clusterRules).map((n) => n.slice(n.indexOf(':') + 1));

describe('the cluster recipe: components in v1 order, each its own block with its own gates', () => {
  it("the component blocks run in TiDB Operator v1's order", () => {
    const sections = [...managedSections(clusterRules)];
    expect(sections.length).toBeGreaterThanOrEqual(2);
    const positions = sections.map((s) => V1_ORDER.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('admission, pause and the cleaners come before the components, the PVC cleaner and Ready after (v1 §1.3)', () => {
    const at = (rule: string): number => names().indexOf(rule);
    const firstComponent = at('PdGate');
    for (const rule of ['Coexistence', 'Admission', 'Paused', 'Unmanaged', 'MetaInfo', 'PodLabels', 'OrphanPods', 'Discovery']) expect(at(rule)).toBeLessThan(firstComponent);
    expect(at('PvcCleaner')).toBeGreaterThan(at('TikvStatefulSet'));
    expect(at('ClusterStatus')).toBeGreaterThan(at('PvcCleaner'));
  });

  it("a PD that lost quorum stops TiKV's acts at its gate, not its status sync, and Ready says why", () => {
    // Prepare: PD and TiKV converged, then PD answers "no leader" and its members are unhealthy.
    const lost = changeStatus((s) => ({
      ...s,
      pd: { ...s.pd, members: Object.fromEntries(Object.entries(s.pd?.members ?? {}).map(([k, m]) => [k, { ...m, health: false }])) },
    }));
    const tc: TidbCluster = tidbCluster(withSpec({ tidb: undefined }), (t) => ({ ...t, status: healthyStatus() }), lost);
    const s = snapshot(withCluster(tc), ...convergedPdObjects(tc), withOwned('StatefulSet', tikvSetOf(tc)), withPd(undefined, 'HTTP 503: no leader'), withPdErrorKind('noLeader'));
    // Act
    const plan = planStep(s, clusterRules);
    // Assess
    const ran = plan.ruleResults.map((r) => r.rule);
    expect(ran).toEqual(expect.arrayContaining(['PdStatus', 'TikvStatus', 'TikvDependencies', 'ClusterStatus']));
    expect(ran).not.toContain('TikvServices');
    expect(plan.ruleResults.find((r) => r.rule === 'TikvDependencies')?.outcome).toEqual({ kind: 'wait', message: 'TiKV waits for pd to be available' });
    expect(plan.actions.filter((a) => 'ref' in a && a.ref.name.includes('tikv'))).toEqual([]);
    expect(plan.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PDQuorumLost' });
  });
});
