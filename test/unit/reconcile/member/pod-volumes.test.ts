import { describe, expect, it } from '@jest/globals';

import type { MemberName } from '../../../../lib/reconcile/member/component.js';
import { componentPodTemplate } from '../../../../lib/reconcile/member/pod-spec.js';
import { ANNOTATIONS_VOLUME, clusterCertWiring, storageVolumeClaims, storageVolumeMounts } from '../../../../lib/reconcile/member/pod-volumes.js';
import { tidbCluster, withSpec } from '../../../support/fixtures.js';

const tls = withSpec({ tlsCluster: { enabled: true } });

describe('the volumes components wire alike', () => {
  it.each([
    { name: 'TLS off: no volume, no mount', tc: tidbCluster(), component: 'pd' as MemberName, client: true, volumes: [], mounts: [] },
    {
      name: "TLS on: the component's own certificate at /var/lib/<c>-tls",
      tc: tidbCluster(tls),
      component: 'tiflash' as MemberName,
      client: false,
      volumes: [{ name: 'tiflash-tls', secret: { secretName: 'basic-tiflash-cluster-secret' } }],
      mounts: [{ name: 'tiflash-tls', readOnly: true, mountPath: '/var/lib/tiflash-tls' }],
    },
    {
      name: 'TLS on, with the client certificate: it follows the own one',
      tc: tidbCluster(tls),
      component: 'ticdc' as MemberName,
      client: true,
      volumes: [
        { name: 'ticdc-tls', secret: { secretName: 'basic-ticdc-cluster-secret' } },
        { name: 'cluster-client-tls', secret: { secretName: 'basic-cluster-client-secret' } },
      ],
      mounts: [
        { name: 'ticdc-tls', readOnly: true, mountPath: '/var/lib/ticdc-tls' },
        { name: 'cluster-client-tls', readOnly: true, mountPath: '/var/lib/cluster-client-tls' },
      ],
    },
  ])('cluster certificate: $name', ({ tc, component, client, volumes, mounts }) => {
    // Act
    const wiring = clusterCertWiring(tc, component, client);

    // Assess
    expect(wiring).toEqual({ volumes, mounts });
  });

  it('storage volumes: one claim each in the component class unless named, a mount only where a path is given', () => {
    // Prepare
    const spec = {
      storageClassName: 'gp3',
      volumeAttributesClassName: 'fast',
      storageVolumes: [
        { name: 'log', storageSize: '2Gi', mountPath: '/var/log/tidb' },
        { name: 'raft', storageSize: '3Gi', storageClassName: 'io2' },
      ],
    };

    // Act
    const claims = storageVolumeClaims('tidb', spec);
    const mounts = storageVolumeMounts('tidb', spec);

    // Assess
    expect(claims.map((c) => [c.metadata?.name, c.spec?.resources?.requests?.['storage'], c.spec?.storageClassName, c.spec?.volumeAttributesClassName])).toEqual([
      ['tidb-log', '2Gi', 'gp3', 'fast'],
      ['tidb-raft', '3Gi', 'io2', 'fast'],
    ]);
    expect(mounts).toEqual([{ name: 'tidb-log', mountPath: '/var/log/tidb' }]);
  });
});

describe('a component pod template, put together', () => {
  it('an additional container of the same name patches the own one; others are appended; own init containers and annotations go first', () => {
    // Prepare
    const tc = tidbCluster(withSpec({ annotations: { team: 'db' } }));
    const spec = { additionalContainers: [{ name: 'pump', env: [{ name: 'X', value: '1' }] }, { name: 'side', image: 'busybox' }] };

    // Act
    const template = componentPodTemplate(tc, 'pump', spec, {
      containers: [{ name: 'pump', image: 'pingcap/tidb-binlog' }],
      volumes: [ANNOTATIONS_VOLUME],
      metricsPort: 8250,
      initContainers: [{ name: 'init', image: 'busybox' }],
      annotations: { own: 'yes' },
    });

    // Assess
    expect(template.spec?.containers.map((c) => [c.name, c.image, c.env])).toEqual([
      ['pump', 'pingcap/tidb-binlog', [{ name: 'X', value: '1' }]],
      ['side', 'busybox', undefined],
    ]);
    expect(template.spec?.initContainers?.map((c) => c.name)).toEqual(['init']);
    expect(Object.keys(template.metadata?.annotations ?? {})).toEqual(['own', 'prometheus.io/scrape', 'prometheus.io/path', 'prometheus.io/port', 'team']);
    expect(template.metadata?.annotations?.['prometheus.io/port']).toBe('8250');
    expect(template.spec?.volumes).toEqual([ANNOTATIONS_VOLUME]);
  });
});
