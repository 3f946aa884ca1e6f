import { describe, expect, it } from '@jest/globals';
import { formatNextStep, statusChanges, visibleActions } from '../../lib/cli/plan-format.js';
import { contextOfEksCluster, parsePlanArgs } from '../../lib/cli/plan.js';
import type { Action } from '../../lib/model/action.js';
import type { Plan } from '../../lib/model/plan.js';
import type { NextStep } from '../../lib/wiring/next-step.js';
import { T0, paused, snapshot, tidbCluster, withCluster } from '../support/fixtures.js';

describe('plan: the status fields a step would change', () => {
  it.each([
    { name: 'the same status changes nothing', before: { pd: { phase: 'Normal' } }, after: { pd: { phase: 'Normal' } }, changes: [] },
    { name: 'a leaf that changes', before: { pd: { phase: 'Normal', synced: true } }, after: { pd: { phase: 'Scale', synced: true } }, changes: [{ path: 'status.pd.phase', before: 'Normal', after: 'Scale' }] },
    { name: 'a field that appears', before: {}, after: { pd: { statefulSet: { replicas: 0 } } }, changes: [{ path: 'status.pd', before: undefined, after: { statefulSet: { replicas: 0 } } }] },
    { name: 'a field that goes away', before: { pd: { image: 'x' } }, after: { pd: {} }, changes: [{ path: 'status.pd.image', before: 'x', after: undefined }] },
    { name: 'list items compared per index', before: { conditions: [{ type: 'Ready', status: 'True' }] }, after: { conditions: [{ type: 'Ready', status: 'False' }] }, changes: [{ path: 'status.conditions[0].status', before: 'True', after: 'False' }] },
    { name: 'a list that grows is one change', before: { c: [1] }, after: { c: [1, 2] }, changes: [{ path: 'status.c', before: [1], after: [1, 2] }] },
  ])('$name', ({ before, after, changes }) => {
    expect(statusChanges(before, after)).toEqual(changes);
  });
});

describe('plan: the next step as text', () => {
  const putStoreId: Action = { kind: 'state.putStoreId', record: { component: 'tikv', podName: 'basic-tikv-0', storeId: '4' } } as Action;
  const scaleOut: Action = { kind: 'patch', ref: { kind: 'StatefulSet', namespace: 'demo', name: 'basic-pd' }, patch: { spec: { replicas: 4 } } } as unknown as Action;
  const planOf = (actions: readonly Action[], outcome: Plan['outcome'] = { kind: 'complete' }): Plan => ({ actions, status: undefined, outcome, ruleResults: [] });
  const stepOf = (plan: Plan, tc = tidbCluster(), resumed?: Plan): NextStep => ({ ok: true, snapshot: snapshot(withCluster(tc)), plan, wakeAtMs: undefined, ...(resumed ? { resumed } : {}) });

  it('a healthy cluster whose only action is recording a store id the plan cannot see recorded has nothing to do', () => {
    // Act
    const text = formatNextStep('demo/basic', stepOf(planOf([putStoreId])), T0);
    // Assess
    expect(text).toContain('  nothing to do');
    expect(text).not.toContain('store');
    expect(visibleActions(planOf([putStoreId, scaleOut]))).toEqual([scaleOut]);
  });

  it.each([
    { name: 'keeping the TiDB Operator verdict is bookkeeping', action: { kind: 'state.putDeadline', deadline: { component: 'cluster', member: 'tidb-operator', kind: 'operatorAbsent', sinceMs: T0, deadlineAtMs: T0 + 240_000 } }, visible: false },
    { name: 'replacing it too', action: { kind: 'state.deleteDeadline', deadline: { component: 'cluster', member: 'tidb-operator', kind: 'operatorRunning' } }, visible: false },
    { name: 'a failover deadline is not', action: { kind: 'state.putDeadline', deadline: { component: 'tikv', member: 'basic-tikv-1', kind: 'failover', sinceMs: T0, deadlineAtMs: T0 + 300_000 } }, visible: true },
  ])('$name (visible: $visible)', ({ action, visible }) => {
    expect(visibleActions(planOf([action as Action, scaleOut]))).toEqual(visible ? [action, scaleOut] : [scaleOut]);
  });

  it('a paused cluster says what the first step after resume would do', () => {
    // Prepare
    const held = planOf([], { kind: 'wait', message: 'cluster is paused: status only' });
    const resumed = planOf([putStoreId, scaleOut], { kind: 'retry', afterMs: 5000, message: 'scaling PD out' });
    // Act
    const text = formatNextStep('demo/basic', stepOf(held, tidbCluster(paused()), resumed), T0);
    // Assess
    expect(text).toContain('  paused: steps write only status; after resume the next step would:\n    1. ');
    expect(text).toContain('basic-pd');
    expect(text).toContain('    then retry in 5s: scaling PD out');
    expect(text).not.toContain('2. ');
  });

  it('a paused cluster with nothing to do after resume says so', () => {
    const text = formatNextStep('demo/basic', stepOf(planOf([]), tidbCluster(paused()), planOf([putStoreId])), T0);
    expect(text).toContain('after resume the next step would do nothing (complete)');
  });

  it('a cluster that is not there is not found', () => {
    expect(formatNextStep('demo/x', { ok: true, snapshot: snapshot(withCluster(undefined)), plan: planOf([]), wakeAtMs: undefined }, T0)).toBe('demo/x: TidbCluster not found');
  });
});

describe('plan: <eks-cluster>/<namespace>/<name>', () => {
  const ctx = (name: string, cluster = name) => ({ name, cluster, user: 'u' });
  const kubeconfig = (...contexts: ReturnType<typeof ctx>[]) => ({ getContexts: () => contexts });

  it.each([
    { name: '<namespace>/<name>: the context as given', args: ['demo/basic'], ref: { namespace: 'demo', name: 'basic' } },
    { name: '<eks-cluster>/<namespace>/<name>: the EKS cluster kept', args: ['prod-b/demo/basic'], ref: { eksCluster: 'prod-b', namespace: 'demo', name: 'basic' } },
  ])('the address $name', ({ args, ref }) => {
    expect(parsePlanArgs(['--kubeconfig', 'k', ...args]).ref).toEqual(ref);
  });

  it.each([
    { name: 'an EKS cluster name EKS refuses', args: ['prod b/demo/basic'], error: 'is not an EKS cluster name' },
    { name: 'an EKS cluster and --context', args: ['prod-b/demo/basic', '--context', 'x'], error: '--context and "prod-b/demo/basic" both pick the cluster' },
    { name: 'four parts', args: ['a/b/c/d'], error: 'cluster: "a/b/c/d" is not <namespace>/<name>' },
  ])('refused naming the problem: $name', ({ args, error }) => {
    expect(() => parsePlanArgs(['--kubeconfig', 'k', ...args])).toThrow(error);
  });

  it.each([
    { name: 'a context of that name', contexts: [ctx('prod-a'), ctx('prod-b')], want: 'prod-b' },
    { name: 'the context aws eks update-kubeconfig names by ARN', contexts: [ctx('arn:aws:eks:us-east-1:1:cluster/prod-a'), ctx('arn:aws:eks:eu-west-1:1:cluster/prod-b')], want: 'arn:aws:eks:eu-west-1:1:cluster/prod-b' },
    { name: 'an aliased context whose cluster is the ARN', contexts: [ctx('b', 'arn:aws:eks:eu-west-1:1:cluster/prod-b')], want: 'b' },
  ])('the context of an EKS cluster: $name', ({ contexts, want }) => {
    expect(contextOfEksCluster(kubeconfig(...contexts), 'prod-b')).toBe(want);
  });

  it('no context of that EKS cluster is refused naming the contexts', () => {
    expect(() => contextOfEksCluster(kubeconfig(ctx('prod-a')), 'prod-b')).toThrow('no kubeconfig context is EKS cluster "prod-b" (contexts: prod-a)');
  });
});
