import { describe, expect, it } from '@jest/globals';
import { pdStartScript } from '../../lib/reconcile/components/pd/start-script.js';
import { pdIdentityOf } from '../../lib/sim/tidb/pd-identity.js';
import type { PodInfo } from '../../lib/sim/tidb/pod-info.js';

function podWith(startScript: string | undefined): PodInfo {
  return { name: 'basic-pd-1', namespace: 'demo', subdomain: 'basic-pd-peer', env: { PEER_SERVICE_NAME: 'basic-pd-peer' }, startScript } as unknown as PodInfo;
}

const script = (clusterDomain: string): string => pdStartScript({ dataDir: '/var/lib/pd', startTimeoutSeconds: 30, scheme: 'http', clusterDomain });

describe('a simulated PD process names itself as its start script says', () => {
  it.each([
    { name: 'no clusterDomain: named by pod, advertised under .svc', startScript: script(''), member: 'basic-pd-1', host: 'basic-pd-1.basic-pd-peer.demo.svc' },
    {
      name: 'clusterDomain: named and advertised by the fully qualified name',
      startScript: script('cluster.local'),
      member: 'basic-pd-1.basic-pd-peer.demo.svc.cluster.local',
      host: 'basic-pd-1.basic-pd-peer.demo.svc.cluster.local',
    },
    { name: 'no start script: the plain pod', startScript: undefined, member: 'basic-pd-1', host: 'basic-pd-1.basic-pd-peer.demo.svc' },
  ])('$name', ({ startScript, member, host }) => {
    // Prepare
    const pod = podWith(startScript);

    // Act
    const identity = pdIdentityOf(pod);

    // Assess
    expect(identity).toEqual({ name: member, host });
  });
});
