/**
 * Strategic merge patch as kubectl sends it: lists merge by their patch merge key (containers by
 * name, container ports by containerPort, Service ports by port, …), set lists take the union, other
 * lists are replaced, and the `$patch`, `$deleteFromPrimitiveList`, `$setElementOrder` and
 * `$retainKeys` directives are obeyed and never stored.
 */

import { describe, it, expect } from '@jest/globals';
import { applyStrategicMergePatch, listStrategyAt } from '../../lib/sim/strategic-merge.js';
import { apiErrorOf } from '../support/api-error.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The patch result, typed loosely so tests can reach into it. */
const smp = (target: unknown, patch: unknown): Obj => applyStrategicMergePatch(target, patch);

const statefulSet = (): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: {
    name: 'basic-pd',
    finalizers: ['a', 'b'],
    ownerReferences: [{ uid: 'u1', kind: 'TidbCluster', name: 'basic' }],
    annotations: { keep: 'me' },
  },
  spec: {
    replicas: 3,
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    volumeClaimTemplates: [{ metadata: { name: 'pd' } }, { metadata: { name: 'log' } }],
    template: {
      spec: {
        tolerations: [{ key: 'a' }, { key: 'b' }],
        containers: [
          {
            name: 'pd',
            image: 'pingcap/pd:v8.1.0',
            ports: [{ containerPort: 2379, name: 'client' }, { containerPort: 2380, name: 'peer' }],
            env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
            volumeMounts: [{ mountPath: '/var/lib/pd', name: 'pd' }],
          },
          { name: 'log', image: 'busybox:1' },
        ],
        volumes: [{ name: 'config', configMap: { name: 'cm' } }],
      },
    },
  },
  status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Progressing', status: 'True' }] },
});

const containers = (obj: Obj): Obj[] => obj.spec.template.spec.containers;
const patchContainers = (list: Obj[], extra: Obj = {}): Obj => ({ spec: { template: { spec: { ...extra, containers: list } } } });

describe('strategic merge patch on lists with a merge key', () => {
  it('a kubectl apply patch that changes one image keeps the other container', () => {
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"StatefulSet"}' } },
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'pd' }, { name: 'log' }], containers: [{ name: 'pd', image: 'pingcap/pd:v8.5.0' }] } } },
    };

    const result = smp(statefulSet(), patch);

    expect(containers(result).map((c) => [c.name, c.image])).toEqual([
      ['pd', 'pingcap/pd:v8.5.0'],
      ['log', 'busybox:1'],
    ]);
    expect(containers(result)[0]?.env).toEqual(statefulSet().spec.template.spec.containers[0].env);
    expect(result.metadata.annotations).toEqual({ keep: 'me', 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"StatefulSet"}' });
  });

  it('`$patch: delete` on an element removes that container', () => {
    const result = smp(statefulSet(), patchContainers([{ name: 'log', $patch: 'delete' }]));

    expect(containers(result).map((c) => c.name)).toEqual(['pd']);
  });

  it('an element with a new key is appended without its directives or nulls', () => {
    const result = smp(statefulSet(), patchContainers([{ name: 'sidecar', image: 's:1', $patch: 'merge', args: null }]));

    expect(containers(result)[2]).toEqual({ name: 'sidecar', image: 's:1' });
  });

  it('a `{$patch: replace}` element replaces the whole list with the other elements', () => {
    const result = smp(statefulSet(), patchContainers([{ $patch: 'replace' }, { name: 'only', image: 'o:1' }]));

    expect(containers(result)).toEqual([{ name: 'only', image: 'o:1' }]);
  });

  it.each([
    {
      name: 'container ports merge by containerPort',
      patch: patchContainers([{ name: 'pd', ports: [{ containerPort: 2380, name: 'peer2' }, { containerPort: 9090 }] }]),
      read: (o: Obj) => containers(o)[0]?.ports,
      want: [{ containerPort: 2379, name: 'client' }, { containerPort: 2380, name: 'peer2' }, { containerPort: 9090 }],
    },
    {
      name: 'env merges by name and a null field inside an element is removed',
      patch: patchContainers([{ name: 'pd', env: [{ name: 'B', value: null, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }]),
      read: (o: Obj) => containers(o)[0]?.env,
      want: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    },
    {
      name: 'volumeMounts merge by mountPath',
      patch: patchContainers([{ name: 'pd', volumeMounts: [{ mountPath: '/etc/pd', name: 'config' }] }]),
      read: (o: Obj) => containers(o)[0]?.volumeMounts,
      want: [{ mountPath: '/var/lib/pd', name: 'pd' }, { mountPath: '/etc/pd', name: 'config' }],
    },
    {
      name: 'volumes merge by name',
      patch: { spec: { template: { spec: { volumes: [{ name: 'config', configMap: { name: 'cm2' } }, { name: 'tmp', emptyDir: {} }] } } } },
      read: (o: Obj) => o.spec.template.spec.volumes,
      want: [{ name: 'config', configMap: { name: 'cm2' } }, { name: 'tmp', emptyDir: {} }],
    },
    {
      name: 'ownerReferences merge by uid',
      patch: { metadata: { ownerReferences: [{ uid: 'u2', kind: 'Other', name: 'x' }] } },
      read: (o: Obj) => o.metadata.ownerReferences.map((r: Obj) => r.uid),
      want: ['u1', 'u2'],
    },
    {
      name: 'status conditions merge by type',
      patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      read: (o: Obj) => o.status.conditions,
      want: [{ type: 'Ready', status: 'True' }, { type: 'Progressing', status: 'True' }],
    },
  ])('$name', ({ patch, read, want }) => {
    expect(read(smp(statefulSet(), patch))).toEqual(want);
  });

  it('Service ports merge by port', () => {
    const service = { kind: 'Service', spec: { ports: [{ port: 2379, name: 'client' }, { port: 2380, name: 'peer' }] } };

    const result = smp(service, { spec: { ports: [{ port: 2380, targetPort: 2390 }] } });

    expect(result['spec']).toEqual({ ports: [{ port: 2379, name: 'client' }, { port: 2380, name: 'peer', targetPort: 2390 }] });
  });
});

describe('strategic merge patch on other lists and maps', () => {
  it.each([
    { name: 'tolerations are replaced', patch: { spec: { template: { spec: { tolerations: [{ key: 'c' }] } } } }, read: (o: Obj) => o.spec.template.spec.tolerations, want: [{ key: 'c' }] },
    { name: 'volumeClaimTemplates are replaced', patch: { spec: { volumeClaimTemplates: [{ metadata: { name: 'data' } }] } }, read: (o: Obj) => o.spec.volumeClaimTemplates, want: [{ metadata: { name: 'data' } }] },
    { name: 'finalizers take the union', patch: { metadata: { finalizers: ['b', 'c'] } }, read: (o: Obj) => o.metadata.finalizers, want: ['a', 'b', 'c'] },
    { name: '$deleteFromPrimitiveList removes finalizers', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, read: (o: Obj) => o.metadata.finalizers, want: ['b'] },
    { name: 'a finalizer list emptied by deletion is removed', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'b'] } }, read: (o: Obj) => 'finalizers' in o.metadata, want: false },
    { name: 'a null removes a map key', patch: { metadata: { annotations: { keep: null } } }, read: (o: Obj) => o.metadata.annotations, want: {} },
    { name: '`$patch: replace` on a map replaces it', patch: { spec: { updateStrategy: { $patch: 'replace', type: 'OnDelete' } } }, read: (o: Obj) => o.spec.updateStrategy, want: { type: 'OnDelete' } },
    { name: '`$patch: delete` on a map removes the field', patch: { spec: { updateStrategy: { $patch: 'delete' } } }, read: (o: Obj) => 'updateStrategy' in o.spec, want: false },
    { name: '$retainKeys clears the fields it does not list', patch: { spec: { updateStrategy: { $retainKeys: ['type'], type: 'OnDelete', rollingUpdate: null } } }, read: (o: Obj) => o.spec.updateStrategy, want: { type: 'OnDelete' } },
    { name: 'a scalar field is replaced', patch: { spec: { replicas: 5 } }, read: (o: Obj) => o.spec.replicas, want: 5 },
  ])('$name', ({ patch, read, want }) => {
    expect(read(smp(statefulSet(), patch))).toEqual(want);
  });

  it('$setElementOrder orders the listed elements and leaves server-only ones in place', () => {
    const target = { spec: { containers: [{ name: 'a' }, { name: 'server-only' }, { name: 'b' }] } };

    const result = smp(target, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }], containers: [{ name: 'c' }] } });

    expect((result['spec'] as Obj).containers.map((c: Obj) => c.name)).toEqual(['c', 'server-only', 'b', 'a']);
  });

  it('$setElementOrder orders a primitive set list', () => {
    const result = smp(statefulSet(), { metadata: { '$setElementOrder/finalizers': ['c', 'b', 'a'], finalizers: ['c'] } });

    expect(result['metadata'].finalizers).toEqual(['c', 'b', 'a']);
  });

  it('the target and the patch are never mutated', () => {
    const target = statefulSet();
    const patch = patchContainers([{ name: 'pd', image: 'x' }, { name: 'new', image: 'n' }]);
    const patchBefore = structuredClone(patch);

    const result = smp(target, patch);
    for (const c of containers(result)) c.image = 'mutated-later';

    expect(target).toEqual(statefulSet());
    expect(patch).toEqual(patchBefore);
  });
});

describe('strategic merge patch errors', () => {
  it.each([
    { name: 'an element without its merge key is 400', patch: patchContainers([{ image: 'x' }]), message: 'map: {"image":"x"} does not contain declared merge key: name' },
    { name: 'an unknown $patch value is 400', patch: { spec: { $patch: 'explode' } }, message: 'unknown patch type: explode in map: {"$patch":"explode"}' },
    { name: 'a patch key missing from $retainKeys is 400', patch: { spec: { updateStrategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, message: 'invalid patch format of retainKeys' },
    { name: 'a $deleteFromPrimitiveList that is not a list is 400', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, message: 'invalid patch format of primitive list' },
    { name: 'a $setElementOrder that is not a list is 400', patch: { metadata: { '$setElementOrder/finalizers': 'a' } }, message: 'invalid patch format of setElementOrder list' },
  ])('$name', ({ patch, message }) => {
    const err = apiErrorOf(() => smp(statefulSet(), patch));

    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe(message);
  });
});

describe('patch strategy table', () => {
  it.each([
    { name: 'pod template containers merge by name', path: ['spec', 'template', 'spec', 'containers'], want: { type: 'merge', key: 'name' } },
    { name: 'init container ports merge by containerPort', path: ['spec', 'initContainers', 'ports'], want: { type: 'merge', key: 'containerPort' } },
    { name: 'a Service spec.ports merges by port', path: ['spec', 'ports'], want: { type: 'merge', key: 'port' } },
    { name: 'ports elsewhere are replaced', path: ['spec', 'pd', 'ports'], want: { type: 'replace' } },
    { name: 'imagePullSecrets merge by name', path: ['spec', 'template', 'spec', 'imagePullSecrets'], want: { type: 'merge', key: 'name' } },
    { name: 'finalizers are a set', path: ['metadata', 'finalizers'], want: { type: 'set' } },
    { name: 'tolerations are replaced', path: ['spec', 'template', 'spec', 'tolerations'], want: { type: 'replace' } },
    { name: 'volumeClaimTemplates are replaced', path: ['spec', 'volumeClaimTemplates'], want: { type: 'replace' } },
  ])('$name', ({ path, want }) => {
    expect(listStrategyAt(path)).toEqual(want);
  });
});
