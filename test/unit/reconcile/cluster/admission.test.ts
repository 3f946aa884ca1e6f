import { describe, expect, it } from '@jest/globals';

import type { TidbCluster } from '../../../../lib/model/kube.js';
import { INVALID_SPEC_CONDITION, admissionProblems, planAdmission } from '../../../../lib/reconcile/cluster/admission.js';
import { toKubeTime } from '../../../../lib/reconcile/cluster/condition.js';
import { DEFAULT_TIDB_LOG_MAX_BACKUPS, defaultTidbConfig, defaultTidbCluster } from '../../../../lib/reconcile/cluster/defaults.js';
import { complete, fail } from '../../../../lib/reconcile/engine/outcome.js';
import { planStep } from '../../../../lib/reconcile/engine/planner.js';
import { actRule, type RuleInput } from '../../../../lib/reconcile/engine/rule.js';
import { clusterRules } from '../../../../lib/reconcile/cluster/recipe.js';
import { describeProblem, quantityValue } from '../../../../lib/reconcile/cluster/validate.js';
import {
  T0,
  at,
  atGeneration,
  changeSpec,
  snapshot,
  tidbCluster,
  withCluster,
  withConfig,
  withSpec,
  type Change,
} from '../../../support/fixtures.js';

type Spec = TidbCluster['spec'];
type Component = 'pd' | 'tikv' | 'tidb' | 'tiflash';

/** Sets fields of one component's spec; values may be of the wrong type on purpose (what a user may apply). */
const component = (name: Component, fields: Record<string, unknown>): Change<TidbCluster> =>
  changeSpec((spec) => ({ ...spec, [name]: { ...(spec[name] ?? {}), ...fields } }) as Spec);
const named = (name: string): Change<TidbCluster> => (tc) => ({ ...tc, metadata: { ...tc.metadata, name } });
const problemsOf = (tc: TidbCluster): string[] => admissionProblems(tc).map(describeProblem);
const inputFor = (tc: TidbCluster, nowMs = T0): RuleInput => ({
  snapshot: snapshot(withCluster(tc), at(nowMs)),
  cluster: tc,
  status: tc.status ?? {},
});

const tiflash = (storageClaims: unknown[]): Change<TidbCluster> =>
  withSpec({ tiflash: { replicas: 1, storageClaims } as NonNullable<Spec['tiflash']> });
const image = (c: Component): Change<TidbCluster> => component(c, { image: `pingcap/${c}:v8.5.0` });

describe('admission: every class of invalid spec is refused, naming its field', () => {
  it.each<{ name: string; changes: Change<TidbCluster>[]; problem: string }>([
    { name: 'negative replicas (schema)', changes: [component('pd', { replicas: -1 })], problem: 'spec.pd.replicas: must be >= 0' },
    { name: 'fractional replicas', changes: [component('tikv', { replicas: 1.5 })], problem: 'spec.tikv.replicas: must be integer' },
    { name: 'replicas as a string', changes: [component('tidb', { replicas: '2' })], problem: 'spec.tidb.replicas: must be integer' },
    { name: 'replicas missing', changes: [component('pd', { replicas: undefined })], problem: 'spec.pd.replicas: required' },
    {
      name: 'PD at 0 while TiKV and TiDB have replicas',
      changes: [component('pd', { replicas: 0 })],
      problem: 'spec.pd.replicas: must be > 0 while tikv, tidb have replicas',
    },
    { name: 'a name that is not a DNS label', changes: [named('DB_1')], problem: 'metadata.name: must be a DNS-1035 label' },
    {
      name: 'a name starting with a digit (Services need DNS-1035)',
      changes: [named('1basic')],
      problem: 'metadata.name: must be a DNS-1035 label',
    },
    { name: 'no name', changes: [named('')], problem: 'metadata.name: required' },
    {
      name: 'a name too long for the TiKV StatefulSet (52 characters at most)',
      changes: [named('a'.repeat(50))],
      problem: `metadata.name: too long: the StatefulSet name "${'a'.repeat(50)}-tikv" has 55 characters, at most 52 fit`,
    },
    {
      name: 'a name that fits PD but not TiFlash',
      changes: [named('a'.repeat(45)), tiflash([{ resources: { requests: { storage: '1Gi' } } }])],
      problem: `metadata.name: too long: the StatefulSet name "${'a'.repeat(45)}-tiflash" has 53 characters`,
    },
    {
      name: 'a storage size that is not a quantity (schema)',
      changes: [component('pd', { requests: { storage: 'ten gigs' } })],
      problem: 'spec.pd.requests.storage: must match format "quantity"',
    },
    {
      name: 'a storage size of zero',
      changes: [component('pd', { requests: { storage: '0Gi' } })],
      problem: 'spec.pd.requests.storage: must be greater than zero',
    },
    {
      name: 'a storage volume size the schema lets through',
      changes: [component('tikv', { storageVolumes: [{ name: 'raft', storageSize: 'lots' }] })],
      problem: 'spec.tikv.storageVolumes[0].storageSize: must be a quantity such as 10Gi',
    },
    {
      name: 'a TiFlash claim without a size',
      changes: [tiflash([{ resources: {} }])],
      problem: 'spec.tiflash.storageClaims[0].resources.requests.storage: must be a quantity such as 10Gi',
    },
    {
      name: 'a TiFlash without storage claims (schema)',
      changes: [withSpec({ tiflash: { replicas: 1 } as NonNullable<Spec['tiflash']> })],
      problem: 'spec.tiflash.storageClaims: required',
    },
    {
      name: 'a TiFlash with an empty list of storage claims (it has no data volume)',
      changes: [tiflash([])],
      problem: 'spec.tiflash.storageClaims: storageClaims should be configured at least one item',
    },
    {
      name: 'a config that is not TOML',
      changes: [component('pd', { config: 'a = = 1' })],
      problem: 'spec.pd.config: invalid TOML at line 1, column 5',
    },
    {
      name: 'a TiDB config that is not TOML',
      changes: [component('tidb', { config: '[log\nlevel = "info"' })],
      problem: 'spec.tidb.config: invalid TOML',
    },
    {
      name: 'a config that is neither text nor map',
      changes: [component('tikv', { config: 5 })],
      problem: 'spec.tikv.config: must be a TOML string or a map',
    },
    {
      name: 'no version and no image',
      changes: [withSpec({ version: undefined })],
      problem: 'spec.pd.image: no image: set spec.pd.image, or a version (spec.version or spec.pd.version) for spec.pd.baseImage',
    },
    {
      name: 'a version without its leading v (no such image tag)',
      changes: [withSpec({ version: '8.5.0' })],
      problem: 'spec.version: "8.5.0" is not a TiDB image tag: versions are tagged with a leading v (v8.5.0)',
    },
    {
      name: 'a version that is no image tag at all',
      changes: [withSpec({ version: 'v8.5.0 latest!' })],
      problem: 'spec.version: "v8.5.0 latest!" is not a valid image tag',
    },
    {
      name: 'a component version that is no image tag',
      changes: [component('tikv', { version: 'v8.5.0/tikv' })],
      problem: 'spec.tikv.version: "v8.5.0/tikv" is not a valid image tag',
    },
    {
      name: 'a service type outside the enum (schema)',
      changes: [component('pd', { service: { type: 'Bogus' } })],
      problem: 'spec.pd.service.type: must be one of ClusterIP, ExternalName, LoadBalancer, NodePort',
    },
  ])('$name', ({ changes, problem }) => {
    // Prepare
    const tc = tidbCluster(...changes);
    // Act
    const problems = problemsOf(tc);
    // Assess
    expect(problems.some((p) => p.startsWith(problem))).toBe(true);
  });
});

describe('admission: valid specs pass', () => {
  it.each<{ name: string; changes: Change<TidbCluster>[] }>([
    { name: 'the basic cluster', changes: [] },
    {
      name: 'a TOML text config and a map config',
      changes: [component('pd', { config: '[replication]\nmax-replicas = 3\n' }), component('tikv', { config: { storage: { reserve: '1GB' } } })],
    },
    { name: 'images without any version', changes: [withSpec({ version: undefined }), image('pd'), image('tikv'), image('tidb')] },
    {
      name: 'a base image with its own tag',
      changes: [withSpec({ version: undefined, tikv: undefined, tidb: undefined }), component('pd', { baseImage: 'registry.local/pd:v8.5.0' })],
    },
    {
      name: 'PD at 0 with everything else at 0',
      changes: [component('pd', { replicas: 0 }), component('tikv', { replicas: 0 }), component('tidb', { replicas: 0 })],
    },
    { name: 'PD at 0 in a cluster joining another cluster’s PD', changes: [withSpec({ cluster: { name: 'main' } }), component('pd', { replicas: 0 })] },
    { name: 'a component version of its own', changes: [component('tikv', { version: 'v8.5.1' })] },
    { name: 'a pre-release and a nightly tag', changes: [withSpec({ version: 'v8.5.0-alpha' }), component('pd', { version: 'nightly' })] },
    { name: 'a storage size in plain bytes', changes: [component('pd', { requests: { storage: 10_737_418_240 } })] },
    { name: 'a name of 47 characters with PD, TiKV and TiDB (its TiKV StatefulSet fits in 52)', changes: [named('a'.repeat(47))] },
  ])('$name', ({ changes }) => {
    expect(problemsOf(tidbCluster(...changes))).toEqual([]);
  });

  it('quantities: spellings the API server swaps are the same amount', () => {
    const amounts = ['0.5', '500m', '1Gi', '1e3', 'x'].map(quantityValue);
    expect(amounts).toEqual([0.5, 0.5, 2 ** 30, 1000, undefined]);
  });
});

describe('admission rule: a terminal problem gets one Warning Event per spec generation and a condition', () => {
  const invalid = (generation: number): TidbCluster => tidbCluster(atGeneration(generation), component('pd', { replicas: -1 }));
  const notReady = (summary: string, sinceMs: number, nowMs: number) => ({
    type: 'Ready',
    status: 'False',
    reason: 'InvalidSpec',
    message: `the spec is invalid: ${summary}`,
    lastUpdateTime: toKubeTime(nowMs),
    lastTransitionTime: toKubeTime(sinceMs),
  });
  const conditionOf = (message: string, sinceMs: number, nowMs: number) => ({
    type: INVALID_SPEC_CONDITION,
    status: 'True',
    reason: 'FailedValidation',
    message,
    lastUpdateTime: toKubeTime(nowMs),
    lastTransitionTime: toKubeTime(sinceMs),
  });

  it('an invalid spec: the FailedValidation Event, Ready False saying so first, the InvalidSpec condition, a terminal failure and nothing else', () => {
    // Prepare
    const tc = invalid(3);
    // Act
    const decision = planAdmission(inputFor(tc));
    // Assess
    expect(decision.actions).toEqual([
      {
        kind: 'event',
        type: 'Warning',
        reason: 'FailedValidation',
        message: 'spec.pd.replicas: must be >= 0',
        object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' },
      },
    ]);
    expect(decision.status?.conditions).toEqual([notReady('spec.pd.replicas: must be >= 0', T0, T0), conditionOf('generation 3: spec.pd.replicas: must be >= 0', T0, T0)]);
    expect(decision.outcome).toEqual(fail('invalid spec: spec.pd.replicas: must be >= 0', true));
    expect(decision.stop).toBe(true);
  });

  it.each<{ name: string; generation: number; events: number; statusChanges: boolean }>([
    { name: 'the same generation again (a sweep): no Event, no status write, still terminal', generation: 3, events: 0, statusChanges: false },
    { name: 'a new generation, still invalid: the Event again', generation: 4, events: 1, statusChanges: true },
  ])('$name', ({ generation, events, statusChanges }) => {
    // Prepare: generation 3 was reported at T0
    const first = planAdmission(inputFor(invalid(3)));
    const tc: TidbCluster = { ...invalid(generation), status: first.status ?? {} };
    // Act
    const decision = planAdmission(inputFor(tc, T0 + 60_000));
    // Assess
    expect(decision.actions.filter((a) => a.kind === 'event')).toHaveLength(events);
    expect(decision.actions).toHaveLength(events);
    expect(decision.status !== undefined).toBe(statusChanges);
    expect(decision.outcome).toEqual(fail('invalid spec: spec.pd.replicas: must be >= 0', true));
    if (statusChanges) {
      // the condition moves on, but it has been True since T0
      const message = `generation ${generation}: spec.pd.replicas: must be >= 0`;
      expect(decision.status?.conditions).toEqual([notReady('spec.pd.replicas: must be >= 0', T0, T0 + 60_000), conditionOf(message, T0, T0 + 60_000)]);
    }
  });

  it('a Ready that was False already keeps its transition time when the spec turns invalid', () => {
    const before = { type: 'Ready', status: 'False', reason: 'PDUnhealthy', message: 'PD(s) are not healthy', lastTransitionTime: toKubeTime(T0 - 5_000) };
    const tc: TidbCluster = { ...invalid(3), status: { conditions: [before] } };
    const decision = planAdmission(inputFor(tc));
    expect(decision.status?.conditions?.[0]).toEqual(notReady('spec.pd.replicas: must be >= 0', T0 - 5_000, T0));
  });

  it('a later valid spec removes the condition, keeps the others and lets the rules go on', () => {
    // Prepare
    const reported = planAdmission(inputFor(invalid(3))).status ?? {};
    const progressing = { type: 'Progressing', status: 'True', reason: 'Scaling', message: 'x' };
    const tc = tidbCluster(atGeneration(4), (t) => ({ ...t, status: { conditions: [progressing, ...(reported.conditions ?? [])] } }));
    // Act
    const decision = planAdmission(inputFor(tc));
    // Assess: the InvalidSpec condition goes; Ready (False, InvalidSpec) stays for the status rule of this step to recompute
    expect(decision).toEqual({ status: { conditions: [progressing, notReady('spec.pd.replicas: must be >= 0', T0, T0)] }, actions: [], outcome: complete('spec is valid again') });
  });

  it('a valid spec with nothing reported: no action, no status change', () => {
    expect(planAdmission(inputFor(tidbCluster()))).toEqual({ actions: [], outcome: complete() });
  });

  it('many problems: the first five, then how many more', () => {
    const tc = tidbCluster(...(['pd', 'tikv', 'tidb'] as const).map((c) => component(c, { replicas: -1, config: 7 })));
    const decision = planAdmission(inputFor(tc));
    expect(decision.actions[0]).toMatchObject({ message: expect.stringMatching(/; and 1 more$/) });
  });

  it('in a step, an invalid spec stops every act rule after it (no retry storm, no writes)', () => {
    // Prepare
    const transfer = { kind: 'pd.transferLeader', to: 'basic-pd-0' } as const;
    const after = actRule('Later', () => ({ actions: [transfer], outcome: complete() }));
    const rules = [actRule('Admission', planAdmission), after];
    // Act
    const plan = planStep(snapshot(withCluster(invalid(3))), rules);
    // Assess
    expect(plan.ruleResults.map((r) => r.rule)).toEqual(['Admission']);
    expect(plan.actions.map((a) => a.kind)).toEqual(['event']);
    expect(plan.outcome).toMatchObject({ kind: 'fail', terminal: true });
  });
});

describe('defaulting (in memory, as TiDB Operator §1.2)', () => {
  it('fills what is unset and leaves the observed cluster untouched', () => {
    // Prepare
    const tc = tidbCluster(tiflash([]), withSpec({ ticdc: { replicas: 1 }, pump: { replicas: 1 } }));
    const before = JSON.stringify(tc);
    // Act
    const spec = defaultTidbCluster(tc).spec;
    // Assess
    expect(JSON.stringify(tc)).toBe(before);
    const cluster = { imagePullPolicy: 'IfNotPresent', tlsCluster: { enabled: false }, enablePVReclaim: false, pvReclaimPolicy: 'Retain' };
    expect(spec).toMatchObject(cluster);
    expect(spec.pd).toMatchObject({ maxFailoverCount: 3, spareVolReplaceReplicas: 1 });
    expect(spec.tikv).toMatchObject({ maxFailoverCount: 3, spareVolReplaceReplicas: 1 });
    expect(spec.tidb).toMatchObject({ maxFailoverCount: 3 });
    expect(spec.tiflash).toMatchObject({ baseImage: 'pingcap/tiflash', maxFailoverCount: 3 });
    expect(spec.ticdc).toMatchObject({ baseImage: 'pingcap/ticdc' });
    expect(spec.pump).toMatchObject({ baseImage: 'pingcap/tidb-binlog' });
    expect(defaultTidbCluster(defaultTidbCluster(tc))).toEqual(defaultTidbCluster(tc));
  });

  it.each<{ name: string; changes: Change<TidbCluster>[]; read: (spec: Spec) => unknown; expected: unknown }>([
    { name: 'a user value wins', changes: [component('pd', { maxFailoverCount: 0 })], read: (s) => s.pd?.maxFailoverCount, expected: 0 },
    {
      name: 'no base image without a version',
      changes: [withSpec({ version: undefined }), component('tikv', { baseImage: undefined })],
      read: (s) => s.tikv?.baseImage,
      expected: undefined,
    },
    {
      name: 'a component version is enough for a base image',
      changes: [withSpec({ version: undefined }), component('tikv', { baseImage: undefined, version: 'v8.5.0' })],
      read: (s) => s.tikv?.baseImage,
      expected: 'pingcap/tikv',
    },
    { name: 'TiDB without a config gets none', changes: [], read: (s) => s.tidb?.config, expected: undefined },
  ])('$name', ({ changes, read, expected }) => {
    expect(read(defaultTidbCluster(tidbCluster(...changes)).spec)).toEqual(expected);
  });

  it.each<{ name: string; config: unknown; expected: unknown }>([
    {
      name: 'a map gets log.file.max-backups',
      config: { log: { level: 'info' } },
      expected: { log: { level: 'info', file: { 'max-backups': DEFAULT_TIDB_LOG_MAX_BACKUPS } } },
    },
    { name: 'a map that sets it keeps it', config: { log: { file: { 'max-backups': 7 } } }, expected: { log: { file: { 'max-backups': 7 } } } },
    { name: 'TOML text gets a [log.file] table', config: 'token-limit = 100\n', expected: 'token-limit = 100\n\n[log.file]\nmax-backups = 3\n' },
    {
      name: 'TOML text with [log.file] gets the key under it',
      config: '[log.file]\nmax-size = 300\n',
      expected: '[log.file]\nmax-backups = 3\nmax-size = 300\n',
    },
    { name: 'TOML text with an inline log table is left alone', config: 'log = { level = "info" }\n', expected: 'log = { level = "info" }\n' },
    { name: 'invalid TOML is left for validation', config: 'a = = 1', expected: 'a = = 1' },
  ])('TiDB config: $name', ({ config, expected }) => {
    expect(defaultTidbConfig(config)).toEqual(expected);
  });
});

describe('admission: replicas per component are bounded (MAX_REPLICAS, default 1 000)', () => {
  const REPLICATED = ['pd', 'tikv', 'tidb', 'tiflash', 'ticdc', 'pump', 'tiproxy'] as const;
  const withReplicas = (c: (typeof REPLICATED)[number], replicas: number): Change<TidbCluster> =>
    changeSpec((spec) => ({ ...spec, [c]: { ...((spec as Record<string, unknown>)[c] ?? {}), replicas } }) as Spec);
  const replicaProblems = (tc: TidbCluster, maxReplicas?: number): string[] =>
    admissionProblems(tc, maxReplicas).map(describeProblem).filter((p) => p.includes('.replicas:'));

  it.each(REPLICATED.map((c) => ({ name: c, c })))('spec.$name.replicas: 1 000 passes, 1 001 is refused naming the field', ({ c }) => {
    // Act
    const atLimit = replicaProblems(tidbCluster(withReplicas(c, 1_000)));
    const over = replicaProblems(tidbCluster(withReplicas(c, 1_001)));
    // Assess
    expect(atLimit).toEqual([]);
    expect(over).toEqual([`spec.${c}.replicas: must be at most 1000 (the reconciler's MAX_REPLICAS), got 1001`]);
  });

  it('the bound is the configured one: with maxReplicas 5, 5 passes and 6 fails the Admission rule', () => {
    // Prepare
    const ok = tidbCluster(withReplicas('tikv', 5));
    const over = tidbCluster(withReplicas('tikv', 6));
    const config = withConfig({ maxReplicas: 5 });
    // Act
    const passed = planAdmission({ snapshot: snapshot(withCluster(ok), config), cluster: ok, status: ok.status ?? {} });
    const refused = planAdmission({ snapshot: snapshot(withCluster(over), config), cluster: over, status: over.status ?? {} });
    // Assess
    expect(passed.outcome).toEqual(complete());
    expect(refused.outcome).toEqual(fail("invalid spec: spec.tikv.replicas: must be at most 5 (the reconciler's MAX_REPLICAS), got 6", true));
  });

  it('a step over 2 147 483 647 replicas everywhere is refused at once: no rule builds a per-member list first', () => {
    // Prepare: the largest count the CRD schema lets through, in every component
    let tc = tidbCluster();
    for (const c of REPLICATED) tc = withReplicas(c, 2_147_483_647)(tc);
    const started = performance.now();
    // Act
    const plan = planStep(snapshot(withCluster(tc)), clusterRules);
    // Assess
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(plan.outcome.kind).toBe('fail');
    expect(plan.actions.map((a) => a.kind)).toEqual(['event']);
    const reason = plan.outcome.kind === 'fail' ? plan.outcome.error : '';
    expect(reason).toContain("spec.pd.replicas: must be at most 1000 (the reconciler's MAX_REPLICAS), got 2147483647");
    expect(reason).toContain('and 3 more');
  });
});
