import { describe, expect, it } from '@jest/globals';

import type { FinalState } from '../../lib/local/scenario/report.js';
import { objectKey, ReportBuilder, reportToJson } from '../../lib/local/scenario/report.js';
import type { InvariantResult } from '../../lib/local/scenario/report.js';

const EMPTY_FINAL: FinalState = { tidbcluster: null, objects: {}, pd: { members: [], leader: null, stores: [], schedulers: [] } };
const HELD: InvariantResult[] = [{ name: 'pd-quorum-kept', violations: [] }];
const REQUESTS = { apiServer: 276, exporter: 420, pd: 72, tidb: 24, tikv: 0, tiflash: 0, ticdc: 24, pump: 12, dynamodb: 458, sqs: 48, scheduler: 0 };

function finished(builder: ReportBuilder, invariants: InvariantResult[] = HELD, final: FinalState = EMPTY_FINAL) {
  return builder.finish({ virtualMs: 1_834_000, wallMs: 5_120, steps: 212, invocationErrors: 0, requests: REQUESTS, invariants, final });
}

describe('the report has exactly the documented shape', () => {
  it('keys, order and values match docs/SCENARIOS.md', () => {
    // Prepare
    const builder = new ReportBuilder('pd-failover');
    const sts = { metadata: { name: 'basic-pd', namespace: 'demo' }, spec: { replicas: 3 } };
    builder.startEntry({ index: 0, verb: 'waitFor' }, 0);
    builder.recordAction({ atMs: 1_200, actor: 'reconciler', verb: 'create', kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd', object: sts });
    builder.recordAction({ atMs: 95_000, actor: 'reconciler', verb: 'pd.transferLeader', args: { to: 'basic-pd-0' } });
    builder.recordEvent(96_000, 'reconciler', { type: 'Warning', reason: 'PDMemberUnhealthy', message: 'basic-pd-1 is unhealthy', object: { kind: 'TidbCluster', name: 'basic' } });
    builder.recordAction({ atMs: 97_000, actor: 'reconciler', verb: 'pd.deleteMember', args: { id: '12' }, error: 'PD answered 500' });
    builder.endEntry(61_000, true);
    const final: FinalState = {
      tidbcluster: { kind: 'TidbCluster', status: { pd: { phase: 'Normal' } } },
      objects: { 'StatefulSet/demo/basic-pd': sts },
      pd: {
        members: [{ name: 'basic-pd-0', id: '7340977823423423423', health: true }],
        leader: 'basic-pd-0',
        stores: [{ id: '1', address: 'basic-tikv-0:20160', state: 'Up', leaderCount: 30, labels: { zone: 'zone-a' } }],
        schedulers: [],
      },
    };
    // Act
    const report = finished(builder, HELD, final);
    // Assess
    expect(JSON.parse(reportToJson(report))).toEqual({
      scenario: 'pd-failover',
      passed: true,
      virtualMs: 1_834_000,
      wallMs: 5_120,
      steps: 212,
      invocationErrors: 0,
      requests: REQUESTS,
      timeline: [{ index: 0, verb: 'waitFor', ok: true, startMs: 0, endMs: 61_000 }],
      actions: [
        { atMs: 1_200, actor: 'reconciler', verb: 'create', kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd', object: sts },
        { atMs: 95_000, actor: 'reconciler', verb: 'pd.transferLeader', args: { to: 'basic-pd-0' } },
        { atMs: 96_000, actor: 'reconciler', verb: 'event', args: { type: 'Warning', reason: 'PDMemberUnhealthy', message: 'basic-pd-1 is unhealthy', object: { kind: 'TidbCluster', name: 'basic' } } },
        { atMs: 97_000, actor: 'reconciler', verb: 'pd.deleteMember', args: { id: '12' }, error: 'PD answered 500' },
      ],
      invariants: [{ name: 'pd-quorum-kept', violations: [] }],
      final,
    });
    expect(Object.keys(report)).toEqual(['scenario', 'passed', 'virtualMs', 'wallMs', 'steps', 'invocationErrors', 'requests', 'timeline', 'actions', 'invariants', 'final']);
    expect(Object.keys(report.actions[0] ?? {})).toEqual(['atMs', 'actor', 'verb', 'kind', 'namespace', 'name', 'object']);
    expect(Object.keys(report.final)).toEqual(['tidbcluster', 'objects', 'pd']);
  });

  it('the JSON is two-space indented and ends with a newline', () => {
    const json = reportToJson(finished(new ReportBuilder('s')));
    expect(json.startsWith('{\n  "scenario": "s",\n  "passed": true,')).toBe(true);
    expect(json.endsWith('}\n')).toBe(true);
  });
});

describe('a run passes only when every entry that ran was ok and no invariant was violated', () => {
  it.each<{ name: string; entries: { ok: boolean; error?: string }[]; violations: number; passed: boolean }>([
    { name: 'all ok, no violation', entries: [{ ok: true }, { ok: true }], violations: 0, passed: true },
    { name: 'no entries at all', entries: [], violations: 0, passed: true },
    { name: 'a waitFor that timed out', entries: [{ ok: true }, { ok: false, error: 'timed out after 20m' }], violations: 0, passed: false },
    { name: 'an invariant violated', entries: [{ ok: true }], violations: 1, passed: false },
  ])('$name', ({ entries, violations, passed }) => {
    // Prepare
    const builder = new ReportBuilder('s');
    entries.forEach((e, index) => {
      builder.startEntry({ index, verb: 'waitFor' }, index * 1000);
      builder.endEntry(index * 1000 + 500, e.ok, e.error);
    });
    const invariants = [{ name: 'pd-quorum-kept', violations: Array.from({ length: violations }, (_, i) => ({ atMs: i, message: 'lost quorum' })) }];
    // Act
    const report = finished(builder, invariants);
    // Assess
    expect(report.passed).toBe(passed);
  });

  it('a failed entry carries its error after endMs', () => {
    const builder = new ReportBuilder('s');
    builder.startEntry({ index: 3, verb: 'waitFor' }, 1_000);
    builder.endEntry(1_201_000, false, 'timed out after 20m');
    expect(Object.entries(finished(builder).timeline[0] ?? {})).toEqual([
      ['index', 3],
      ['verb', 'waitFor'],
      ['ok', false],
      ['startMs', 1_000],
      ['endMs', 1_201_000],
      ['error', 'timed out after 20m'],
    ]);
  });

  it('an entry still open when the run ends is reported failed at the end of the run', () => {
    const builder = new ReportBuilder('s');
    builder.startEntry({ index: 0, verb: 'advance' }, 0);
    const report = finished(builder);
    expect(report.timeline).toEqual([{ index: 0, verb: 'advance', ok: false, startMs: 0, endMs: 1_834_000, error: 'the run ended before this entry finished' }]);
    expect(report.passed).toBe(false);
  });

  it('an entry cannot start before the previous one ended, nor end before it started', () => {
    const builder = new ReportBuilder('s');
    expect(() => builder.endEntry(0, true)).toThrow('no timeline entry has started');
    builder.startEntry({ index: 0, verb: 'patch' }, 0);
    expect(() => builder.startEntry({ index: 1, verb: 'patch' }, 0)).toThrow('timeline entry 0 has not ended');
  });
});

describe('recorded history does not change afterwards, and the final state is in a stable order', () => {
  it('an object changed after it was recorded keeps its recorded value', () => {
    const builder = new ReportBuilder('s');
    const pod = { metadata: { name: 'basic-pd-0' }, status: { phase: 'Pending' } };
    builder.recordAction({ atMs: 0, actor: 'sim', verb: 'updateStatus', kind: 'Pod', namespace: 'demo', name: 'basic-pd-0', object: pod });
    pod.status.phase = 'Running';
    expect(finished(builder).actions[0]?.object).toEqual({ metadata: { name: 'basic-pd-0' }, status: { phase: 'Pending' } });
  });

  it('objects, members, stores and schedulers are sorted', () => {
    const final: FinalState = {
      tidbcluster: null,
      objects: { 'Pod/demo/basic-pd-1': {}, 'ConfigMap/demo/basic-pd': {}, 'Pod/demo/basic-pd-0': {} },
      pd: {
        members: [{ name: 'basic-pd-2', id: '3', health: true }, { name: 'basic-pd-0', id: '1', health: true }],
        leader: null,
        stores: [
          { id: '10', address: 'b', state: 'Up', leaderCount: 1, labels: {} },
          { id: '9', address: 'a', state: 'Up', leaderCount: 1, labels: {} },
        ],
        schedulers: ['evict-leader-scheduler-9', 'balance-leader-scheduler'],
      },
    };
    const report = finished(new ReportBuilder('s'), HELD, final);
    expect(Object.keys(report.final.objects)).toEqual(['ConfigMap/demo/basic-pd', 'Pod/demo/basic-pd-0', 'Pod/demo/basic-pd-1']);
    expect(report.final.pd.members.map((m) => m.name)).toEqual(['basic-pd-0', 'basic-pd-2']);
    expect(report.final.pd.stores.map((s) => s.id)).toEqual(['9', '10']);
    expect(report.final.pd.schedulers).toEqual(['balance-leader-scheduler', 'evict-leader-scheduler-9']);
  });

  it.each([
    { name: 'a namespaced object is Kind/namespace/name', kind: 'PersistentVolumeClaim', namespace: 'demo', key: 'PersistentVolumeClaim/demo/pd-basic-pd-0' },
    { name: 'a cluster-scoped object is Kind/name', kind: 'Node', namespace: undefined, key: 'Node/pd-basic-pd-0' },
  ])('$name', ({ kind, namespace, key }) => {
    expect(objectKey(kind, namespace, 'pd-basic-pd-0')).toBe(key);
  });
});

describe('a deployment of several EKS clusters in the report', () => {
  it('each further world comes after final under its name, objects and PD sorted as the first\'s, and requests end with eks', () => {
    // Prepare
    const builder = new ReportBuilder('two-eks');
    const store = (id: string) => ({ id, address: `other-tikv-${id}:20160`, state: 'Up', leaderCount: 1, labels: {} });
    const eksB = {
      actions: [{ atMs: 5, actor: 'timeline' as const, verb: 'patch' as const, kind: 'TidbCluster', namespace: 'demo', name: 'other' }],
      objects: { 'Pod/demo/other-pd-0': {}, 'ConfigMap/demo/team-b': {} },
      pd: { members: [{ name: 'other-pd-1', id: '2', health: true }, { name: 'other-pd-0', id: '1', health: true }], leader: 'other-pd-0', stores: [store('10'), store('9')], schedulers: ['b', 'a'] },
    };

    // Act
    const report = builder.finish({ virtualMs: 1, wallMs: 1, steps: 1, invocationErrors: 0, requests: REQUESTS, eksRequests: 6, invariants: HELD, final: EMPTY_FINAL, eksClusters: { 'eks-b': eksB, 'eks-c': { actions: [], objects: {}, pd: null } } });

    // Assess
    expect(Object.keys(report)).toEqual(['scenario', 'passed', 'virtualMs', 'wallMs', 'steps', 'invocationErrors', 'requests', 'timeline', 'actions', 'invariants', 'final', 'eksClusters']);
    expect(Object.keys(report.requests)).toEqual([...Object.keys(REQUESTS), 'eks']);
    expect(report.requests.eks).toBe(6);
    const b = report.eksClusters?.['eks-b'];
    expect(b?.actions).toEqual(eksB.actions);
    expect(Object.keys(b?.objects ?? {})).toEqual(['ConfigMap/demo/team-b', 'Pod/demo/other-pd-0']);
    expect([b?.pd?.members.map((m) => m.name), b?.pd?.stores.map((s) => s.id), b?.pd?.schedulers]).toEqual([['other-pd-0', 'other-pd-1'], ['9', '10'], ['a', 'b']]);
    expect(report.eksClusters?.['eks-c']?.pd).toBeNull();
  });

  it('without further worlds the report has neither eksClusters nor requests.eks', () => {
    // Act
    const report = finished(new ReportBuilder('one'));

    // Assess
    expect('eksClusters' in report).toBe(false);
    expect(Object.keys(report.requests)).toEqual(Object.keys(REQUESTS));
  });
});
