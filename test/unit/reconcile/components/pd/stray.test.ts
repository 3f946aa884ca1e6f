import { describe, expect, it } from '@jest/globals';

import { planPdStrayMembers as strayRule } from '../../../../../lib/reconcile/components/pd/stray.js';
import { changeSpec, convergedPd, pdMemberView, pdViewOf, ruleInputOf, snapshot, testPod, tidbCluster, withOwned, withPd } from '../../../../support/fixtures.js';
import { pdRule } from '../../../../support/pd-rules.js';

const planPdStrayMembers = pdRule(strayRule);

type Case = { healths?: boolean[]; strayHealth?: boolean; leader?: string | null; replicas?: number; strayPod?: boolean };

/** A converged 3-member PD with basic-pd-3 listed by PD as well (the member a racing scale-in left). */
function input(o: Case) {
  const replicas = o.replicas;
  const tc = replicas === undefined ? tidbCluster() : tidbCluster(changeSpec((spec) => ({ ...spec, pd: { ...spec.pd, replicas } })));
  const healths = o.healths ?? [true, true, true];
  const members = [...healths.map((health, i) => pdMemberView(`basic-pd-${i}`, { health })), pdMemberView('basic-pd-3', { health: o.strayHealth ?? false })];
  const leader = o.leader === null ? undefined : (o.leader ?? 'basic-pd-1');
  const changes = [
    ...convergedPd(tc),
    ...(o.strayPod ? [withOwned('Pod', testPod('basic-pd-3', { revision: 'rev-1', claims: ['pd-basic-pd-3'] }))] : []),
    withPd(pdViewOf(members, leader)),
  ];
  return ruleInputOf(snapshot(...changes));
}

describe('PD members left by a scale-in (PdStrayMembers)', () => {
  it('deletes an unhealthy member above the replicas with no pod, by name, with a Warning', () => {
    const decision = planPdStrayMembers(input({}));
    expect(decision.actions).toEqual([
      { kind: 'pd.deleteMember', name: 'basic-pd-3' },
      expect.objectContaining({ kind: 'event', type: 'Warning', reason: 'PDMemberDeleted', message: expect.stringContaining('basic-pd-3 has no pod since a scale-in') }),
    ]);
    expect(decision.outcome.kind).toBe('complete');
  });

  it.each([
    { name: 'a healthy member (it serves)', o: { strayHealth: true } },
    { name: 'a member whose pod exists', o: { strayPod: true } },
    { name: 'a member of an ordinal the spec and StatefulSet still run', o: { replicas: 4 } },
  ])('leaves alone $name', ({ o }) => {
    expect(planPdStrayMembers(input(o)).actions).toEqual([]);
  });

  it.each([
    { name: 'PD has no leader', o: { leader: null } },
    { name: 'the members left would not keep a serving majority', o: { healths: [true, false, false] } },
  ])('waits, with a PDQuorumAtRisk Warning once, when $name', ({ o }) => {
    const decision = planPdStrayMembers(input(o));
    expect(decision.actions).toEqual([expect.objectContaining({ kind: 'event', reason: 'PDQuorumAtRisk', once: true })]);
    expect(decision.outcome.kind).toBe('retry');
  });
});
