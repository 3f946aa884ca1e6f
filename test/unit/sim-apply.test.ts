import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../../lib/sim/api-error.js';
import { type ApplyRequest, appliedFieldPaths, fromFieldsV1, mergeApplied, ownOnlyAdmitted, printPath, serverSideApply, toFieldsV1 } from '../../lib/sim/apply.js';

const req = (manager: string, force = false, custom = false): ApplyRequest => ({ manager, force, custom, apiVersion: 'apps/v1', now: '2026-01-01T00:00:00Z' });
const container = (name: string, image: string, extra: Record<string, unknown> = {}) => ({ name, image, ...extra });
const deployment = (containers: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { ...extra, template: { spec: { containers } } },
});

describe('the field set of an applied configuration', () => {
  it.each([
    { name: 'scalars are leaves, identity metadata is left out', applied: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: '1' } }, data: { k: 'v' } }, custom: false, paths: ['.metadata.labels.x', '.data.k'] },
    { name: 'containers are keyed by name', applied: deployment([container('a', 'a:1')]), custom: false, paths: ['.spec.template.spec.containers[name="a"].name', '.spec.template.spec.containers[name="a"].image'] },
    { name: "a custom resource's list is atomic", applied: { spec: { containers: [{ name: 'a' }] } }, custom: true, paths: ['.spec.containers'] },
    { name: 'a list without a merge key is atomic', applied: { spec: { tolerations: [{ key: 'k' }] } }, custom: false, paths: ['.spec.tolerations'] },
    { name: 'status is not tracked', applied: { status: { phase: 'Running' }, spec: { replicas: 1 } }, custom: false, paths: ['.spec.replicas'] },
  ])('$name', ({ applied, custom, paths }) => {
    // Act
    const got = appliedFieldPaths(applied, custom);
    // Assess
    expect(got.map(printPath)).toEqual(paths);
    expect(fromFieldsV1(toFieldsV1(got))).toEqual(got);
  });
});

describe('merging an applied configuration', () => {
  it.each([
    { name: 'maps merge', live: { a: { b: 1, c: 2 } }, applied: { a: { c: 3 } }, custom: false, want: { a: { b: 1, c: 3 } } },
    { name: 'containers merge by name', live: deployment([container('a', 'a:1'), container('b', 'b:1')]), applied: deployment([container('b', 'b:2')]), custom: false, want: deployment([container('a', 'a:1'), container('b', 'b:2')]) },
    { name: 'ports merge by containerPort', live: { spec: { template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] } } } }, applied: { spec: { template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 81 }] }] } } } }, custom: false, want: { spec: { template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }, { containerPort: 81 }] }] } } } } },
    { name: "a custom resource's lists are replaced", live: { spec: { containers: [{ name: 'a' }] } }, applied: { spec: { containers: [{ name: 'b' }] } }, custom: true, want: { spec: { containers: [{ name: 'b' }] } } },
  ])('$name', ({ live, applied, custom, want }) => {
    // Act / Assess
    expect(mergeApplied(live, applied, custom)).toEqual(want);
  });
});

describe('ownership', () => {
  it('the first apply records its manager, operation Apply, apiVersion, time and field set', () => {
    // Act
    const out = serverSideApply(undefined, deployment([container('a', 'a:1')], { replicas: 2 }), req('kubectl'));
    // Assess
    expect(out['metadata']).toMatchObject({
      managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { 'f:name': {}, 'f:image': {} } } } } } } }],
    });
  });

  it('a field the manager applied before and omits now is removed', () => {
    // Prepare
    const live = serverSideApply(undefined, deployment([container('a', 'a:1'), container('b', 'b:1')], { replicas: 2 }), req('kubectl'));
    // Act
    const out = serverSideApply(live, deployment([container('a', 'a:2')]), req('kubectl')) as any;
    // Assess
    expect(out.spec).toEqual({ template: { spec: { containers: [container('a', 'a:2')] } } });
    expect(out.metadata.managedFields).toHaveLength(1);
  });

  it.each([
    { name: 'a different value without force is a 409 naming the manager and field', applied: { replicas: 3 }, force: false, error: 'Apply failed with 1 conflict: conflict with "helm": .spec.replicas' },
    { name: 'the same value is shared, no conflict', applied: { replicas: 2 }, force: false, error: undefined },
  ])('$name', ({ applied, force, error }) => {
    // Prepare
    const live = serverSideApply(undefined, deployment([container('a', 'a:1')], { replicas: 2 }), req('helm'));
    // Act
    const act = () => serverSideApply(live, deployment([container('a', 'a:1')], applied), req('kubectl', force));
    // Assess
    if (error) {
      expect(act).toThrow(ApiError);
      expect(act).toThrow(error);
    } else {
      expect((act() as any).metadata.managedFields.map((e: any) => e.manager)).toEqual(['helm', 'kubectl']);
    }
  });

  it('two conflicts are listed under their manager; an Update manager is named with apiVersion and time', () => {
    // Prepare
    const live = { ...deployment([container('a', 'a:1')], { replicas: 2 }), metadata: { name: 'web', managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { 'f:image': {} } } } } } } }] } };
    // Act
    const act = () => serverSideApply(live, deployment([container('a', 'a:2')], { replicas: 3 }), req('kubectl'));
    // Assess
    expect(act).toThrow('Apply failed with 2 conflicts: conflicts with "kube-controller-manager" using apps/v1 at 2026-01-01T00:00:00Z:\n- .spec.replicas\n- .spec.template.spec.containers[name="a"].image');
  });

  it('a forced apply takes the conflicting field over; the other manager keeps the rest', () => {
    // Prepare
    const live = serverSideApply(undefined, deployment([container('a', 'a:1')], { replicas: 2 }), req('helm'));
    // Act
    const out = serverSideApply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 5 } }, req('kubectl', true)) as any;
    // Assess
    expect(out.spec.replicas).toBe(5);
    expect(out.metadata.managedFields.map((e: any) => [e.manager, fromFieldsV1(e.fieldsV1).map(printPath)])).toEqual([
      ['helm', ['.spec.template.spec.containers[name="a"].name', '.spec.template.spec.containers[name="a"].image']],
      ['kubectl', ['.spec.replicas']],
    ]);
  });

  it('a field another manager still owns is not removed when this manager omits it', () => {
    // Prepare
    const first = serverSideApply(undefined, deployment([container('a', 'a:1')], { replicas: 2 }), req('kubectl'));
    const shared = serverSideApply(first, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2 } }, req('helm'));
    // Act
    const out = serverSideApply(shared, deployment([container('a', 'a:1')]), req('kubectl')) as any;
    // Assess
    expect(out.spec.replicas).toBe(2);
  });

  it.each([
    { name: 'the same configuration again keeps the time (a no-op writes nothing)', replicas: 2, time: '2026-01-01T00:00:00Z' },
    { name: 'a changed value records the new time', replicas: 3, time: '2026-01-02T00:00:00Z' },
  ])('$name', ({ replicas, time }) => {
    // Prepare
    const live = serverSideApply(undefined, deployment([container('a', 'a:1')], { replicas: 2 }), req('kubectl'));
    // Act
    const out = serverSideApply(live, deployment([container('a', 'a:1')], { replicas }), { ...req('kubectl'), now: '2026-01-02T00:00:00Z' }) as any;
    // Assess
    expect(out.metadata.managedFields[0].time).toBe(time);
  });

  it('an applied configuration carrying managedFields is a 400', () => {
    // Act / Assess
    expect(() => serverSideApply(undefined, { metadata: { name: 'a', managedFields: [] } }, req('kubectl'))).toThrow('metadata.managedFields must be nil');
  });
});

describe('ownership of pruned fields', () => {
  it.each([
    { name: 'a pruned field is dropped from the Apply entry', admitted: { data: { k: 'v' } }, want: ['.data.k'] },
    { name: 'nothing pruned keeps the entry', admitted: { data: { k: 'v' }, dat: { x: '1' } }, want: ['.data.k', '.dat.x'] },
  ])('$name', ({ admitted, want }) => {
    // Prepare
    const applied = serverSideApply(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' }, dat: { x: '1' } }, req('kubectl'));
    // Act
    const out = ownOnlyAdmitted(applied, admitted, 'kubectl') as any;
    // Assess
    expect(fromFieldsV1(out.metadata.managedFields[0].fieldsV1).map(printPath)).toEqual(want);
  });
});
