/**
 * The TiFlash read asks the proxy store status only of the pods an upgrade waits on — Ready, on the
 * update revision of a StatefulSet still rolling, running TiFlash ≥ v5.1.2 — and keeps each answer
 * or error per pod.
 */
import { describe, expect, it } from '@jest/globals';

import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';

import type { TiflashStatusPort } from '../../../lib/components/port.js';
import { podsToAsk, readTiflashView } from '../../../lib/wiring/tiflash-view.js';

const pod = (i: number, o: { revision?: string; ready?: boolean; image?: string } = {}): IPod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `basic-tiflash-${i}`, labels: { 'controller-revision-hash': o.revision ?? 'r2' } },
  spec: { containers: [{ name: 'tiflash', image: o.image ?? 'pingcap/tiflash:v7.5.0' }] },
  status: { conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
});
const set = (current: string, update: string): IStatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'basic-tiflash' },
  spec: { selector: {}, template: {} },
  status: { replicas: 3, currentRevision: current, updateRevision: update },
});

describe('which TiFlash pods are asked for their store status', () => {
  it.each([
    { name: 'a rolling set: the Ready pods on the update revision', sts: set('r1', 'r2'), pods: [pod(0, { revision: 'r1' }), pod(1), pod(2)], asked: ['basic-tiflash-1', 'basic-tiflash-2'] },
    { name: 'a set at rest: none', sts: set('r2', 'r2'), pods: [pod(0), pod(1)], asked: [] },
    { name: 'an updated pod not Ready: not asked', sts: set('r1', 'r2'), pods: [pod(1, { ready: false }), pod(2)], asked: ['basic-tiflash-2'] },
    { name: 'TiFlash before v5.1.2 has no such endpoint: not asked', sts: set('r1', 'r2'), pods: [pod(2, { image: 'pingcap/tiflash:v5.0.0' })], asked: [] },
    { name: 'no StatefulSet: none', sts: undefined, pods: [pod(2)], asked: [] },
  ])('$name', ({ sts, pods, asked }) => {
    expect(podsToAsk({ StatefulSet: sts ? [sts] : [], Pod: pods })).toEqual(asked);
  });

  it('keeps each pod\'s answer, or its error, without failing the read', async () => {
    // Prepare
    const port: TiflashStatusPort = {
      getStoreStatus: async (p) => {
        if (p === 'basic-tiflash-1') throw new Error('HTTP 503: connection refused');
        return 'Running';
      },
    };
    // Act
    const view = await readTiflashView({ StatefulSet: [set('r1', 'r2')], Pod: [pod(1), pod(2)] }, port);
    // Assess
    expect(view).toEqual({ storeStatus: { 'basic-tiflash-1': { error: 'HTTP 503: connection refused' }, 'basic-tiflash-2': { status: 'Running' } } });
  });
});
