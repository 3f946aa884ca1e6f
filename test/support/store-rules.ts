/**
 * Store failover's rules as the TiKV block runs them (TiKV's store access, the input entered as the
 * TiKV block enters it), so a unit test sees one rule's whole effect as data.
 */

import type { RuleInput } from '../../lib/reconcile/engine/rule.js';
import type { MemberDecision } from '../../lib/reconcile/member/component.js';
import { planStoreFailover, planStoreRecovery } from '../../lib/reconcile/member/store-failover.js';
import { TIKV_STORES } from '../../lib/reconcile/components/tikv/failover.js';
import { tikvInputOf } from './tikv-rules.js';

export { TIKV_STORES, tikvInputOf };

/** The `TikvFailover` rule. */
export const planTikvFailover = (input: RuleInput): MemberDecision => planStoreFailover(TIKV_STORES)(tikvInputOf(input));
/** The `TikvFailoverRecovery` rule. */
export const planTikvRecovery = (input: RuleInput): MemberDecision => planStoreRecovery(TIKV_STORES)(tikvInputOf(input));
