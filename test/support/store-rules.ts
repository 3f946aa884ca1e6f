/**
 * Store failover's rules as a TiKV block runs them: the input entered as the TiKV block enters it
 * (defaulted cluster, TiKV's context), so a unit test sees one rule's whole effect as data.
 */

import type { RuleInput } from '../../lib/reconcile/engine/rule.js';
import type { ComponentDeclaration, MemberDecision, MemberInput } from '../../lib/reconcile/member/component.js';
import { enterMember } from '../../lib/reconcile/member/context.js';
import { TIKV_STORES } from '../../lib/reconcile/member/store-access.js';
import { planStoreFailover, planStoreRecovery } from '../../lib/reconcile/member/store-failover.js';
import { pdComponent } from '../../lib/reconcile/components/pd/recipe.js';

// TiKV as store failover reads it: its name (pods `<tc>-tikv-<n>`), claim, spec and replica formula.
const tikvShaped: ComponentDeclaration = {
  ...pdComponent,
  name: 'tikv',
  title: 'TiKV',
  ruleName: 'Tikv',
  claim: 'tikv',
  specOf: (tc) => tc.spec.tikv,
  desiredReplicas: (tc, status) => TIKV_STORES.desiredReplicas(tc.spec, status),
};

/** The input of a TiKV rule, as the TiKV block enters it. */
export function tikvInputOf(input: RuleInput): MemberInput {
  const entry = enterMember(tikvShaped, input);
  return { ...input, cluster: entry.cluster, scope: entry.scope, draft: entry.draft };
}

/** The `TikvFailover` rule. */
export const planTikvFailover = (input: RuleInput): MemberDecision => planStoreFailover(TIKV_STORES)(tikvInputOf(input));
/** The `TikvFailoverRecovery` rule. */
export const planTikvRecovery = (input: RuleInput): MemberDecision => planStoreRecovery(TIKV_STORES)(tikvInputOf(input));
