/** The world's API server refuses StatefulSet spec updates as kube-apiserver's `ValidateStatefulSetUpdate` does. */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { ApiError } from '../../lib/sim/api-error.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

const NS = 'demo';

function stored(): { store: ObjectStore; sts: KubeObject } {
  const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  store.create('Namespace', { metadata: { name: NS } });
  const sts = store.create('StatefulSet', {
    metadata: { name: 'basic-tikv', namespace: NS },
    spec: {
      replicas: 3,
      serviceName: 'basic-tikv-peer',
      selector: { matchLabels: { app: 'tikv' } },
      template: { metadata: { labels: { app: 'tikv' } }, spec: { containers: [{ name: 'tikv', image: 'pingcap/tikv:v8.5.0' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'tikv' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '100Gi' } } } }],
    },
  });
  return { store, sts };
}

type Spec = Record<string, unknown>;
const FORBIDDEN = `StatefulSet.apps "basic-tikv" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden`;

describe('StatefulSet spec updates', () => {
  it.each([
    { name: 'a larger claim template is refused', change: (s: Spec) => ({ ...s, volumeClaimTemplates: [{ metadata: { name: 'tikv' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '200Gi' } } } }] }), refused: true },
    { name: 'another serviceName is refused', change: (s: Spec) => ({ ...s, serviceName: 'other' }), refused: true },
    { name: 'another podManagementPolicy is refused', change: (s: Spec) => ({ ...s, podManagementPolicy: 'Parallel' }), refused: true },
    { name: 'replicas may change', change: (s: Spec) => ({ ...s, replicas: 4 }), refused: false },
    { name: 'the template may change', change: (s: Spec) => ({ ...s, template: { metadata: { labels: { app: 'tikv' } }, spec: { containers: [{ name: 'tikv', image: 'pingcap/tikv:v8.5.1' }] } } }), refused: false },
    { name: 'updateStrategy, minReadySeconds and revisionHistoryLimit may change', change: (s: Spec) => ({ ...s, updateStrategy: { type: 'OnDelete' }, minReadySeconds: 5, revisionHistoryLimit: 3 }), refused: false },
  ])('$name', ({ change, refused }) => {
    // Arrange
    const { store, sts } = stored();

    // Act
    const act = () => store.update('StatefulSet', { ...sts, spec: change(sts.spec as Spec) });

    // Assert
    if (!refused) {
      expect(act).not.toThrow();
      return;
    }
    let error: unknown;
    try {
      act();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(422);
    expect((error as ApiError).message).toBe(FORBIDDEN);
  });
});
