import { describe, expect, it } from '@jest/globals';

import type { Action } from '../../../../lib/model/action.js';
import type { Outcome } from '../../../../lib/model/outcome.js';
import { block, type ScopedRule } from '../../../../lib/reconcile/engine/block.js';
import { complete, fail, retry, wait } from '../../../../lib/reconcile/engine/outcome.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { actRule, ruleNames, type Rule } from '../../../../lib/reconcile/engine/rule.js';
import { snapshot } from '../../../support/fixtures.js';

const event = (reason: string): Action => ({
  kind: 'event',
  type: 'Normal',
  reason,
  message: reason,
  object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
});

/** Scope: how often the block was entered; draft: the names of the rules that chose it, joined. */
type Scope = { readonly entered: number };
type Draft = string;

const acting = (name: string, outcome: Outcome = complete(), o: { stop?: boolean; draft?: boolean } = {}): ScopedRule<Scope, Draft> => ({
  kind: 'act',
  name,
  plan: ({ draft }) => ({ actions: [event(name)], outcome, ...(o.stop ? { stop: true } : {}), ...(o.draft ? { draft: `${draft}${name};` } : {}) }),
});
const writing: ScopedRule<Scope, Draft> = {
  kind: 'finally',
  name: 'Write',
  plan: ({ draft, scope }, blockStopped) => ({ actions: [event(`Write ${draft || '-'} stopped=${blockStopped} entered=${scope.entered}`)], outcome: complete() }),
};
const stamping: ScopedRule<Scope, Draft> = {
  kind: 'status',
  name: 'Stamp',
  plan: ({ status }) => ({ status: { ...status, clusterID: `${status.clusterID ?? ''}stamp;` }, outcome: complete() }),
};

let entries = 0;
const component = (name: string, rules: readonly ScopedRule<Scope, Draft>[]): Rule =>
  block<Scope, Draft>({
    name,
    enter: (input) => {
      entries += 1;
      return { cluster: input.cluster, scope: { entered: entries }, draft: '' };
    },
    rules,
  });
const reasons = (actions: readonly Action[]) => actions.map((a) => (a.kind === 'event' ? a.reason : a.kind));

describe('a block: one scope per step, a draft passed along, a stop that ends only its own act rules', () => {
  it.each<{ name: string; rules: readonly ScopedRule<Scope, Draft>[]; expected: string[] }>([
    {
      name: 'every rule runs in order; the finally rule sees the draft the act rules chose',
      rules: [acting('A', complete(), { draft: true }), stamping, acting('B', complete(), { draft: true }), writing],
      expected: ['A', 'B', 'Write A;B; stopped=false entered=1'],
    },
    {
      name: 'a stop skips the act rules after it, and the finally rule still writes its draft',
      rules: [acting('A', retry(5_000, 'moved'), { stop: true, draft: true }), acting('B'), writing],
      expected: ['A', 'Write A; stopped=true entered=1'],
    },
    {
      name: 'a fail ends the block as a stop does',
      rules: [acting('A', fail('no quorum')), acting('B'), writing],
      expected: ['A', 'Write - stopped=true entered=1'],
    },
  ])('$name', ({ rules, expected }) => {
    // Prepare
    entries = 0;
    // Act
    const plan = planStep(snapshot(), [component('C', rules)]);
    // Assess
    expect(reasons(plan.actions)).toEqual(expected);
  });

  it('a stop inside one block does not stop the rules after the block', () => {
    entries = 0;
    const plan = planStep(snapshot(), [component('C', [acting('A', wait('waits for PD'), { stop: true }), acting('B'), writing]), actRule('After', () => ({ actions: [event('After')], outcome: complete() }))]);
    expect(reasons(plan.actions)).toEqual(['A', 'Write - stopped=true entered=1', 'After']);
    expect(plan.outcome).toEqual(wait('waits for PD'));
  });

  it('a stop before the block skips its act and finally rules; its status rules still run', () => {
    entries = 0;
    const gate = actRule('Paused', () => ({ actions: [], outcome: wait('paused'), stop: true }));
    const plan = planStep(snapshot(), [gate, component('C', [acting('A'), stamping, writing])]);
    expect(plan.actions).toEqual([]);
    expect(plan.ruleResults.map((r) => r.rule)).toEqual(['Paused', 'Stamp']);
    expect(plan.status?.clusterID).toBe('stamp;');
  });

  it('is entered once per step and lists its rules in the recipe', () => {
    entries = 0;
    const rules = [component('C', [acting('A'), stamping, acting('B'), writing])];
    planStep(snapshot(), rules);
    expect(entries).toBe(1);
    expect(ruleNames(rules)).toEqual(['act:A', 'status:Stamp', 'act:B', 'act:Write']);
  });
});
