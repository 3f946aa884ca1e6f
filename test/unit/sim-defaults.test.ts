/**
 * What the simulated API server fills in on create, as the real one's defaulting: also when a Go
 * client (kubectl's generators) sends a field present but at its zero value (`strategy: {}`,
 * `targetPort: 0`), which means "unset" to the real server.
 */
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

function store(): ObjectStore {
  const s = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  s.create('Namespace', { metadata: { name: 'demo' } });
  return s;
}

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } };

describe('create defaults', () => {
  it.each([
    {
      name: 'a Secret without a type is Opaque',
      kind: 'Secret',
      object: { metadata: { name: 's', namespace: 'demo' }, data: { a: 'MQ==' } },
      want: { type: 'Opaque' },
    },
    {
      name: 'a Secret keeps its type',
      kind: 'Secret',
      object: { metadata: { name: 's', namespace: 'demo' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': 'e30=' } },
      want: { type: 'kubernetes.io/dockerconfigjson' },
    },
    {
      name: 'a Deployment with strategy {} rolls with 25 % surge and unavailability',
      kind: 'Deployment',
      object: { metadata: { name: 'd', namespace: 'demo' }, spec: { selector: { matchLabels: { app: 'web' } }, template, strategy: {} } },
      want: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } },
    },
    {
      name: 'a Deployment rolling update keeps the bound it sets and defaults the other',
      kind: 'Deployment',
      object: { metadata: { name: 'd', namespace: 'demo' }, spec: { selector: { matchLabels: { app: 'web' } }, template, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      want: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } } } },
    },
    {
      name: 'a StatefulSet with updateStrategy {} rolls from partition 0',
      kind: 'StatefulSet',
      object: { metadata: { name: 'web', namespace: 'demo' }, spec: { serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template, updateStrategy: {} } },
      want: { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } } },
    },
    {
      name: 'a Service port with targetPort 0 targets the port itself',
      kind: 'Service',
      object: { metadata: { name: 'web', namespace: 'demo' }, spec: { selector: { app: 'web' }, ports: [{ name: 'a', port: 80, targetPort: 0 }, { name: 'b', port: 443 }, { name: 'c', port: 8080, targetPort: 'http' }] } },
      want: { spec: { ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }, { port: 443, targetPort: 443, protocol: 'TCP' }, { port: 8080, targetPort: 'http', protocol: 'TCP' }] } },
    },
    {
      name: "a Namespace is Active, with the namespace controller's finalizer",
      kind: 'Namespace',
      object: { metadata: { name: 'fresh' }, spec: {} },
      want: { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
    },
  ])('$name', ({ kind, object, want }) => {
    // Prepare
    const s = store();
    // Act
    const created = s.create(kind, object as KubeObject);
    // Assess
    expect(created).toMatchObject(want);
  });
});
