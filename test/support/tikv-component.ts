/**
 * A TiKV-shaped declaration with TiKV's scale hooks, for scale tests until the TiKV declaration
 * itself is in the tree.
 */

import { componentLabels } from '../../lib/model/labels.js';
import { isPdAvailable } from '../../lib/reconcile/components/pd/availability.js';
import { beforeTikvScaleIn, beforeTikvScaleOut, settleTikvScaleIn } from '../../lib/reconcile/components/tikv/scale.js';
import { complete } from '../../lib/reconcile/engine/outcome.js';
import type { ComponentDeclaration } from '../../lib/reconcile/member/component.js';

/** TiKV as the scale rules see it. */
export const tikvComponent: ComponentDeclaration = {
  name: 'tikv',
  title: 'TiKV',
  ruleName: 'Tikv',
  retryMs: 5_000,
  specOf: (tc) => tc.spec.tikv,
  claim: 'tikv',
  claimTemplates: () => [{ metadata: { name: 'tikv' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  services: () => [],
  config: { data: () => ({ 'config-file': '' }), tomlKeys: ['config-file'] },
  podTemplate: (tc, configMap) => ({
    metadata: { labels: componentLabels(tc, 'tikv') },
    spec: { containers: [{ name: 'tikv', image: 'pingcap/tikv:v8.5.0' }], volumes: [{ name: 'config', configMap: { name: configMap } }] },
  }),
  desiredReplicas: (tc) => tc.spec.tikv?.replicas ?? 0,
  syncStatus: () => ({ outcome: complete() }),
  requeueAfterCreate: false,
  dependencies: { availableBefore: [{ name: 'pd', isAvailable: isPdAvailable }], upgradeWaitsFor: [] },
  hooks: {
    gates: [],
    extra: [],
    beforeScaleIn: beforeTikvScaleIn,
    settleScaleIn: settleTikvScaleIn,
    beforeScaleOut: beforeTikvScaleOut,
    failover: () => ({ actions: [], outcome: complete() }),
    beforeRestart: (_input, ordinal) => ({ kind: 'roll', ordinal }),
    updatedPodHold: () => undefined,
  },
};
