import { describe, expect, it } from '@jest/globals';
import type { KubeAction } from '../../../../lib/model/action.js';
import { controlEvent } from '../../../../lib/reconcile/cluster/control-events.js';

const by = { namespace: 'demo', name: 'basic' };
const ref = (kind: string, name: string) => ({ kind, namespace: 'demo', name }) as KubeAction['ref'];
const create = (kind: string, name: string): KubeAction => ({ kind: 'create', ref: ref(kind, name), object: { metadata: { name } } }) as KubeAction;
const update = (kind: string, name: string): KubeAction => ({ kind: 'update', ref: ref(kind, name), object: { metadata: { name } }, resourceVersion: '1' }) as unknown as KubeAction;
const patch = (kind: string, name: string): KubeAction => ({ kind: 'patch', ref: ref(kind, name), patch: {}, resourceVersion: '1' }) as unknown as KubeAction;
const del = (kind: string, name: string): KubeAction => ({ kind: 'delete', ref: ref(kind, name) }) as KubeAction;

describe('the Events TiDB Operator v1 records for its writes', () => {
  it.each([
    { name: 'a StatefulSet created', action: create('StatefulSet', 'basic-tikv'), want: ['Normal', 'SuccessfulCreate', 'create StatefulSet basic-tikv in TidbCluster basic successful'] },
    { name: 'a StatefulSet updated', action: update('StatefulSet', 'basic-tikv'), want: ['Normal', 'SuccessfulUpdate', 'update StatefulSet basic-tikv in TidbCluster basic successful'] },
    { name: 'a StatefulSet patched is an update to v1', action: patch('StatefulSet', 'basic-pd'), want: ['Normal', 'SuccessfulUpdate', 'update StatefulSet basic-pd in TidbCluster basic successful'] },
    { name: 'a StatefulSet deleted', action: del('StatefulSet', 'basic-tiflash'), want: ['Normal', 'SuccessfulDelete', 'delete StatefulSet basic-tiflash in TidbCluster basic successful'] },
    { name: 'a Service created', action: create('Service', 'basic-pd'), want: ['Normal', 'SuccessfulCreate', 'create Service basic-pd in TidbCluster basic successful'] },
    { name: 'a Pod deleted', action: del('Pod', 'basic-pd-1'), want: ['Normal', 'SuccessfulDelete', 'delete Pod basic-pd-1 in TidbCluster basic successful'] },
    { name: 'a claim patched is an update of the PVC', action: patch('PersistentVolumeClaim', 'pd-basic-pd-0'), want: ['Normal', 'SuccessfulUpdate', 'update PVC pd-basic-pd-0 in TidbCluster basic successful'] },
    { name: 'a claim deleted', action: del('PersistentVolumeClaim', 'tikv-basic-tikv-3'), want: ['Normal', 'SuccessfulDelete', 'delete PVC tikv-basic-tikv-3 in TidbCluster basic successful'] },
    { name: 'a volume patched', action: patch('PersistentVolume', 'pvc-1'), want: ['Normal', 'SuccessfulPatch', 'patch PV pvc-1 in TidbCluster basic successful'] },
    { name: 'a ConfigMap created through the generic control', action: create('ConfigMap', 'basic-pd-1a2b3c4'), want: ['Normal', 'Successfully Create', 'create ConfigMap/basic-pd-1a2b3c4 for controller TidbCluster/basic successfully'] },
    { name: 'the discovery Deployment created', action: create('Deployment', 'basic-discovery'), want: ['Normal', 'Successfully Create', 'create Deployment/basic-discovery for controller TidbCluster/basic successfully'] },
  ])('$name', ({ action, want }) => {
    // Act
    const event = controlEvent(by, action);
    // Assess
    expect(event).toEqual({ kind: 'event', type: want[0], reason: want[1], message: want[2], object: { kind: 'TidbCluster', namespace: 'demo', name: 'basic' } });
  });

  it.each([
    { name: 'a monitor\'s StatefulSet created', action: create('StatefulSet', 'basic-monitor'), want: ['Normal', 'SuccessfulCreate', 'create StatefulSet basic-monitor in TidbMonitor basic successful'] },
    { name: 'a monitor\'s ConfigMap created through the generic control', action: create('ConfigMap', 'basic-monitor'), want: ['Normal', 'Successfully Create', 'create ConfigMap/basic-monitor for controller TidbMonitor/basic successfully'] },
  ])('on a TidbMonitor: $name', ({ action, want }) => {
    // Act
    const event = controlEvent({ ...by, kind: 'TidbMonitor', uid: 'tm-uid' }, action);
    // Assess
    expect(event).toEqual({ kind: 'event', type: want[0], reason: want[1], message: want[2], object: { kind: 'TidbMonitor', namespace: 'demo', name: 'basic' }, involvedUid: 'tm-uid' });
  });

  it.each([
    { name: 'a ConfigMap updated (the generic control records creations only)', action: update('ConfigMap', 'basic-pd-1a2b3c4') },
    { name: 'a Pod patched', action: patch('Pod', 'basic-tikv-0') },
    { name: 'an Event', action: create('Event', 'x') },
  ])('records nothing for $name', ({ action }) => {
    expect(controlEvent(by, action)).toBeUndefined();
  });

  it('a failed write is a Warning with the error, as v1 words it', () => {
    expect(controlEvent(by, update('StatefulSet', 'basic-tikv'), { error: 'admission webhook denied' })).toEqual(
      expect.objectContaining({ type: 'Warning', reason: 'FailedUpdate', message: 'update StatefulSet basic-tikv in TidbCluster basic failed error: admission webhook denied' }),
    );
  });

  it('a write that lost a resourceVersion race records nothing (v1 retries conflicts inside the write)', () => {
    expect(controlEvent(by, update('StatefulSet', 'basic-tikv'), { error: '409', conflict: true })).toBeUndefined();
  });
});
