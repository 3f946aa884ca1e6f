/**
 * The observer's read of the volumes bound to a cluster's claims, against the simulated API server:
 * the labelled ones in one LIST, a GET only for a volume not labelled yet, nothing without a bound claim.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';

import { KubeClient } from '../../lib/kube/client.js';
import { NO_OWNED_OBJECTS } from '../../lib/step/ports.js';
import { readBoundVolumes } from '../../lib/wiring/observe-volumes.js';
import { type BareServer, startBareServer } from '../support/api-server.js';

const LABELLED = { 'app.kubernetes.io/instance': 'basic', 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/namespace': 'demo' };

let s: BareServer;
let kube: KubeClient;
beforeEach(async () => {
  s = await startBareServer();
  kube = KubeClient.fromKubeConfig(s.kubeConfig, { timeoutMs: 5000 });
});
afterEach(async () => {
  await s.close();
});

function volume(name: string, labels: Record<string, string>): void {
  s.store.create('PersistentVolume', { metadata: { name, labels }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: name } } });
}

const claim = (name: string, volumeName?: string): IPersistentVolumeClaim => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'demo' }, spec: { ...(volumeName ? { volumeName } : {}) } });
const owned = (...claims: IPersistentVolumeClaim[]) => ({ ...NO_OWNED_OBJECTS, PersistentVolumeClaim: claims });
const gets = (): number => s.server.requestCounts.get('GET') ?? 0;

describe('reading the volumes of a cluster\'s claims', () => {
  it.each([
    { name: 'no bound claim: nothing is read', claims: [claim('pd-basic-pd-0')], want: undefined, requests: 0 },
    { name: 'every volume labelled: one LIST', claims: [claim('pd-basic-pd-0', 'pv-a'), claim('pd-basic-pd-1', 'pv-b')], want: ['pv-a', 'pv-b'], requests: 1 },
    { name: 'a volume bound since the last step: the LIST and one GET for it', claims: [claim('pd-basic-pd-0', 'pv-a'), claim('pd-basic-pd-2', 'pv-new')], want: ['pv-a', 'pv-new'], requests: 2 },
    { name: 'a volume deleted meanwhile is left out, not an error', claims: [claim('pd-basic-pd-0', 'pv-a'), claim('pd-basic-pd-3', 'pv-gone')], want: ['pv-a'], requests: 2 },
  ])('$name', async ({ claims, want, requests }) => {
    // Prepare
    volume('pv-a', LABELLED);
    volume('pv-b', LABELLED);
    volume('pv-new', {});
    volume('pv-other', { ...LABELLED, 'app.kubernetes.io/namespace': 'prod' });
    const before = gets();

    // Act
    const volumes = await readBoundVolumes(kube, 'demo', 'basic', owned(...claims), new AbortController().signal);

    // Assess
    expect(volumes?.map((v) => v.metadata?.name)).toEqual(want);
    expect(gets() - before).toBe(requests);
  });
});
