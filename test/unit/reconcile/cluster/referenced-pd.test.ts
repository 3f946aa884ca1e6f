import { describe, expect, it } from '@jest/globals';

import { planReferencedPd, REFERENCED_PD_CONVERGING_RETRY_MS, REFERENCED_PD_UNREAD_RETRY_MS } from '../../../../lib/reconcile/cluster/referenced-pd.js';
import { T0, healthyStatus, pdViewOf, ruleInputOf, snapshot, tidbCluster, withCluster, withPd, withSpec, withStatus } from '../../../support/fixtures.js';

const hetero = withSpec({ pd: undefined, cluster: { name: 'main' } });

describe('a cluster on another cluster\'s PD looks again while it converges', () => {
  it.each([
    { name: 'its own PD: nothing asked', changes: [withCluster(tidbCluster())], wake: undefined },
    { name: 'no PD and no reference: nothing asked', changes: [withCluster(tidbCluster(withSpec({ pd: undefined })))], wake: undefined },
    { name: 'that PD not read: soon', changes: [withCluster(tidbCluster(hetero)), withPd(undefined, 'no endpoints available for service "main-pd"')], wake: T0 + REFERENCED_PD_UNREAD_RETRY_MS },
    { name: 'read, not Ready yet: a little later', changes: [withCluster(tidbCluster(hetero)), withPd(pdViewOf([]))], wake: T0 + REFERENCED_PD_CONVERGING_RETRY_MS },
    { name: 'Ready: nothing asked', changes: [withCluster(tidbCluster(hetero, withStatus(healthyStatus()))), withPd(pdViewOf([]))], wake: undefined },
  ])('$name', ({ changes, wake }) => {
    const decision = planReferencedPd(ruleInputOf(snapshot(...changes)));
    expect(decision.wakeAtMs).toBe(wake);
    expect(decision.status).toBeUndefined();
  });
});
