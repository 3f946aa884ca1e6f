/**
 * How the API server picks a pod's deletion grace period, as the pod strategy's CheckGracefulDelete
 * (pkg/registry/core/pod/strategy.go): the caller's gracePeriodSeconds, else the pod's
 * terminationGracePeriodSeconds — but an unscheduled pod, or one already Failed or Succeeded,
 * goes at once whatever was asked.
 */
import { describe, it, expect } from '@jest/globals';
import { VirtualClock } from '../../lib/platform/clock.js';
import { ObjectStore } from '../../lib/sim/store.js';

const NS = 'demo';

describe('pod deletion grace (CheckGracefulDelete)', () => {
  it.each([
    { name: 'a running pod keeps its terminationGracePeriodSeconds', nodeName: 'node-0', phase: 'Running', askedSeconds: undefined, removedAtOnce: false, graceSeconds: 30 },
    { name: 'a running pod takes the grace the caller asks for', nodeName: 'node-0', phase: 'Running', askedSeconds: 5, removedAtOnce: false, graceSeconds: 5 },
    { name: 'a Failed pod goes at once', nodeName: 'node-0', phase: 'Failed', askedSeconds: undefined, removedAtOnce: true, graceSeconds: undefined },
    { name: 'a Succeeded pod goes at once even when the caller asks for grace', nodeName: 'node-0', phase: 'Succeeded', askedSeconds: 30, removedAtOnce: true, graceSeconds: undefined },
    { name: 'an unscheduled pod goes at once even when the caller asks for grace', nodeName: undefined, phase: 'Pending', askedSeconds: 30, removedAtOnce: true, graceSeconds: undefined },
  ])('$name', ({ nodeName, phase, askedSeconds, removedAtOnce, graceSeconds }) => {
    // Prepare
    const store = new ObjectStore(new VirtualClock(Date.UTC(2026, 0, 1)));
    store.create('Namespace', { metadata: { name: NS } });
    const pod = store.create('Pod', { metadata: { name: 'p', namespace: NS }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'main', image: 'nginx:1.27' }] } });
    store.update('Pod', { ...pod, status: { ...pod.status, phase } }, { subresource: 'status' });

    // Act
    store.delete('Pod', NS, 'p', askedSeconds === undefined ? {} : { gracePeriodSeconds: askedSeconds });

    // Assess
    const left = store.get('Pod', NS, 'p');
    expect(left === undefined).toBe(removedAtOnce);
    expect(left?.metadata.deletionGracePeriodSeconds).toBe(graceSeconds);
  });
});
