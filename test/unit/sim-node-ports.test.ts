/**
 * NodePort Services get node ports as kube-apiserver allocates them (portallocator, the default
 * --service-node-port-range 30000-32767): every port without one gets a free one, kept across
 * updates; a requested port that is taken or out of range is refused with 422.
 */
import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { ApiError } from '../../lib/sim/api-error.js';
import type { KubeObject } from '../../lib/sim/object.js';
import { ObjectStore } from '../../lib/sim/store.js';

const NS = 'demo';

function store(): ObjectStore {
  const s = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
  s.create('Namespace', { metadata: { name: NS } });
  return s;
}

function service(name: string, type: string, ports: Record<string, unknown>[]): KubeObject {
  return { metadata: { name, namespace: NS }, spec: { type, selector: { app: name }, ports } };
}

const nodePorts = (svc: KubeObject): unknown[] => (svc.spec.ports as { nodePort?: number }[]).map((p) => p.nodePort);

function refusal(act: () => unknown): { code: number; message: string } | undefined {
  try {
    act();
    return undefined;
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, message: err.message };
    throw err;
  }
}

describe('NodePort allocation', () => {
  it.each([
    { name: 'a NodePort Service gets a port in 30000-32767 for each of its ports', type: 'NodePort', count: 2 },
    { name: 'a LoadBalancer Service gets node ports too', type: 'LoadBalancer', count: 1 },
  ])('$name', ({ type, count }) => {
    // Prepare
    const s = store();
    const ports = Array.from({ length: count }, (_, i) => ({ name: `p${i}`, port: 4000 + i }));

    // Act
    const svc = s.create('Service', service('a', type, ports));

    // Assess
    const got = nodePorts(svc) as number[];
    expect(got).toHaveLength(count);
    for (const port of got) expect(port >= 30_000 && port <= 32_767).toBe(true);
    expect(new Set(got).size).toBe(count);
  });

  it('a ClusterIP Service gets none', () => {
    expect(nodePorts(store().create('Service', service('a', 'ClusterIP', [{ port: 4000 }])))).toEqual([undefined]);
  });

  it('two Services never share a node port', () => {
    // Prepare
    const s = store();
    // Act
    const a = s.create('Service', service('a', 'NodePort', [{ port: 4000 }]));
    const b = s.create('Service', service('b', 'NodePort', [{ port: 4000 }]));
    // Assess
    expect(nodePorts(a)[0]).not.toBe(nodePorts(b)[0]);
  });

  it('an update that leaves nodePort out keeps the port the Service holds', () => {
    // Prepare
    const s = store();
    const created = s.create('Service', service('a', 'NodePort', [{ name: 'mysql', port: 4000 }, { name: 'status', port: 10080 }]));

    // Act: a replace from a client that never saw the allocated ports.
    const updated = s.update('Service', { ...service('a', 'NodePort', [{ name: 'mysql', port: 4000 }, { name: 'status', port: 10081 }]), metadata: { ...created.metadata } });

    // Assess
    expect(nodePorts(updated)).toEqual(nodePorts(created));
  });

  it.each([
    { name: 'a requested port another Service holds is refused', requested: 'taken', message: 'spec.ports[0].nodePort: Invalid value: PORT: provided port is already allocated' },
    { name: 'a requested port outside the range is refused', requested: 8080, message: 'spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767' },
  ])('$name', ({ requested, message }) => {
    // Prepare
    const s = store();
    const held = nodePorts(s.create('Service', service('a', 'NodePort', [{ port: 4000 }])))[0] as number;
    const port = requested === 'taken' ? held : (requested as number);

    // Act
    const answer = refusal(() => s.create('Service', service('b', 'NodePort', [{ port: 4000, nodePort: port }])));

    // Assess
    expect(answer).toEqual({ code: 422, message: `Service "b" is invalid: ${message.replace('PORT', String(port))}` });
    expect(s.get('Service', NS, 'b')).toBeUndefined();
  });

  it('a requested free port is granted, and freed when the Service is deleted', () => {
    // Prepare
    const s = store();
    s.create('Service', service('a', 'NodePort', [{ port: 4000, nodePort: 30080 }]));

    // Act
    s.delete('Service', NS, 'a');
    const b = s.create('Service', service('b', 'NodePort', [{ port: 4000, nodePort: 30080 }]));

    // Assess
    expect(nodePorts(b)).toEqual([30080]);
  });

  it('turning a NodePort Service into ClusterIP drops its node ports; naming one on a ClusterIP Service is refused', () => {
    // Prepare
    const s = store();
    const created = s.create('Service', service('a', 'NodePort', [{ port: 4000 }]));

    // Act
    const clusterIp = s.update('Service', { ...created, spec: { ...created.spec, type: 'ClusterIP' } });
    const refused = refusal(() => s.create('Service', service('b', 'ClusterIP', [{ port: 4000, nodePort: 30081 }])));

    // Assess
    expect(nodePorts(clusterIp)).toEqual([undefined]);
    expect(refused).toEqual({ code: 422, message: "Service \"b\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'" });
  });
});
