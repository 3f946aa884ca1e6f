import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { Action } from '../../../../lib/model/action.js';
import type { TidbCluster } from '../../../../lib/model/kube.js';
import { isPdAvailable } from '../../../../lib/reconcile/components/pd/availability.js';
import { pdRules } from '../../../../lib/reconcile/components/pd/recipe.js';
import { componentLabels, ownerReference } from '../../../../lib/model/labels.js';
import { complete, wait } from '../../../../lib/reconcile/engine/outcome.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { ruleNames } from '../../../../lib/reconcile/engine/rule.js';
import { withServiceRecord } from '../../../../lib/reconcile/member/apply.js';
import type { ComponentDeclaration } from '../../../../lib/reconcile/member/component.js';
import { memberBlock } from '../../../../lib/reconcile/member/recipe.js';
import { withLastApplied } from '../../../../lib/reconcile/member/statefulset.js';
import { changeStatus, snapshot, tidbCluster, withCluster, withOwned, withSpec, type Change } from '../../../support/fixtures.js';

/** A component declared and nothing else: TiCDC-shaped, one Service, one config key, needs PD. */
const stub: ComponentDeclaration = {
  name: 'ticdc',
  title: 'TiCDC',
  ruleName: 'Ticdc',
  retryMs: 5_000,
  specOf: (tc) => tc.spec.ticdc,
  claim: 'ticdc',
  claimTemplates: () => [{ metadata: { name: 'ticdc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  services: (tc) => [
    withServiceRecord({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${tc.metadata.name ?? ''}-ticdc-peer`, namespace: tc.metadata.namespace, labels: componentLabels(tc, 'ticdc'), ownerReferences: [ownerReference(tc)] },
      spec: { clusterIP: 'None', ports: [{ name: 'ticdc', port: 8301 }], selector: componentLabels(tc, 'ticdc') },
    }),
  ],
  config: { data: () => ({ 'config-file': 'gc-ttl = 86400\n' }), tomlKeys: ['config-file'] },
  podTemplate: (tc, configMap) => ({
    metadata: { labels: componentLabels(tc, 'ticdc') },
    spec: {
      containers: [{ name: 'ticdc', image: 'pingcap/ticdc:v8.5.0' }],
      volumes: [{ name: 'config', configMap: { name: configMap } }],
    },
  }),
  desiredReplicas: (tc) => tc.spec.ticdc?.replicas ?? 0,
  syncStatus: () => ({ outcome: complete() }),
  requeueAfterCreate: false,
  dependencies: { availableBefore: [{ name: 'pd', isAvailable: isPdAvailable }], upgradeWaitsFor: [] },
  hooks: {
    gates: [],
    extra: [],
    beforeScaleIn: () => ({ first: [] }),
    failover: () => ({ actions: [], outcome: complete() }),
    beforeRestart: (_input, ordinal) => ({ kind: 'roll', ordinal }),
    updatedPodHold: () => undefined,
  },
};
const stubRules = [memberBlock(stub)];

const ticdcOnly: Change<TidbCluster> = withSpec({ pd: undefined, tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas: 2 } });
const withTicdc: Change<TidbCluster> = withSpec({ tikv: undefined, tidb: undefined, ticdc: { baseImage: 'pingcap/ticdc', replicas: 2 } });
const written = (actions: readonly Action[]) => actions.map((a) => ('ref' in a ? `${a.kind} ${a.ref.kind}/${a.ref.name}` : a.kind));

describe('a component that is only a declaration', () => {
  it('gets the whole member recipe, named after it', () => {
    expect(ruleNames(stubRules)).toEqual([
      'act:TicdcGate',
      'status:TicdcStatus',
      'act:TicdcSuspend',
      'act:TicdcDependencies',
      'act:TicdcServices',
      'act:TicdcConfigMap',
      'act:TicdcScale',
      'act:TicdcFailover',
      'act:TicdcUpgrade',
      'act:TicdcStatefulSet',
    ]);
  });

  it('on an empty cluster gets its Services, ConfigMap and StatefulSet planned, with no new machinery', () => {
    // Act
    const plan = planStep(snapshot(withCluster(tidbCluster(ticdcOnly))), stubRules);
    // Assess
    expect(written(plan.actions)).toEqual(['create Service/basic-ticdc-peer', 'create ConfigMap/basic-ticdc', 'create StatefulSet/basic-ticdc']);
    const sts = plan.actions.flatMap((a) => (a.kind === 'create' && a.ref.kind === 'StatefulSet' ? [a.object as IStatefulSet] : []))[0];
    expect(sts?.spec).toMatchObject({
      replicas: 2,
      serviceName: 'basic-ticdc-peer',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      template: { spec: { volumes: [{ name: 'config', configMap: { name: 'basic-ticdc' } }] } },
    });
    expect(plan.outcome.kind).toBe('complete'); // nothing to wait for: not PD
    expect(plan.status?.ticdc).toEqual({ statefulSet: { replicas: 0 } });
  });

  it('scales one member per step through the shared scaler and the one StatefulSet write', () => {
    // Prepare: its objects exist at 1 replica, status synced
    const tc = tidbCluster(ticdcOnly, changeStatus((s) => ({ ...s, ticdc: { synced: true, phase: 'Scale' } })));
    const first = planStep(snapshot(withCluster(tidbCluster(ticdcOnly))), stubRules);
    const [svc, cm, set] = first.actions.flatMap((a) => (a.kind === 'create' ? [{ ...a.object, metadata: { ...a.object.metadata, resourceVersion: '7' } }] : []));
    if (!svc || !cm || !set) throw new Error('the first step creates three objects');
    const spec = (set as IStatefulSet).spec ?? { selector: {}, template: {} };
    const oneReplica = withLastApplied({ ...(set as IStatefulSet), spec: { ...spec, replicas: 1 } });
    // Act
    const plan = planStep(snapshot(withCluster(tc), withOwned('Service', svc as never), withOwned('ConfigMap', cm as never), withOwned('StatefulSet', oneReplica)), stubRules);
    // Assess
    expect(written(plan.actions)).toEqual(['update StatefulSet/basic-ticdc']);
    const update = plan.actions[0];
    expect(update?.kind === 'update' ? (update.object as IStatefulSet).spec?.replicas : undefined).toBe(2);
    expect(plan.outcome).toMatchObject({ kind: 'retry', message: 'scaling TiCDC out to 2' });
  });
});

describe('§1.5 as data, and a stop scoped to its component', () => {
  it('waits for PD to be available before writing anything', () => {
    const plan = planStep(snapshot(withCluster(tidbCluster(withTicdc))), stubRules);
    expect(plan.actions).toEqual([]);
    expect(plan.outcome).toEqual(wait('TiCDC waits for pd to be available'));
  });

  it("a component waiting for PD does not stop PD's rules after it", () => {
    const plan = planStep(snapshot(withCluster(tidbCluster(withTicdc))), [...stubRules, ...pdRules]);
    expect(written(plan.actions)).toEqual(['create Service/basic-pd', 'create Service/basic-pd-peer', 'create ConfigMap/basic-pd', 'create StatefulSet/basic-pd']);
    expect(plan.ruleResults.map((r) => r.rule)).toContain('TicdcStatus');
    expect(plan.ruleResults.map((r) => r.rule)).not.toContain('TicdcServices');
  });

  it('goes ahead once PD is available (a quorum of healthy members and ready replicas)', () => {
    const member = (i: number) => [`basic-pd-${i}`, { name: `basic-pd-${i}`, id: `${i}`, clientURL: '', health: true }] as const;
    const pd = { synced: true, phase: 'Normal', members: Object.fromEntries([0, 1, 2].map(member)), statefulSet: { replicas: 3, readyReplicas: 3 } };
    const tc = tidbCluster(withTicdc, changeStatus((s) => ({ ...s, pd })));
    expect(isPdAvailable(tc, tc.status ?? {})).toBe(true);
    const plan = planStep(snapshot(withCluster(tc)), stubRules);
    expect(written(plan.actions)).toEqual(['create Service/basic-ticdc-peer', 'create ConfigMap/basic-ticdc', 'create StatefulSet/basic-ticdc']);
  });
});
