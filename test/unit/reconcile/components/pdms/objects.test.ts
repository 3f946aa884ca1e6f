import { describe, expect, it } from '@jest/globals';

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';

import type { TidbCluster } from '../../../../../lib/model/kube.js';
import { pdConfigData } from '../../../../../lib/reconcile/components/pd/config-map.js';
import { pdmsImage } from '../../../../../lib/reconcile/components/pdms/pod-template.js';
import { pdmsRules } from '../../../../../lib/reconcile/components/pdms/recipe.js';
import { planStep } from '../../../../../lib/reconcile/engine/planner.js';
import { snapshot, tidbCluster, withCluster, withSpec, type Change } from '../../../../support/fixtures.js';

type PdmsEntry = NonNullable<TidbCluster['spec']['pdms']>[number];
const tso = (extra: Partial<PdmsEntry> = {}): PdmsEntry => ({ name: 'tso', replicas: 2, ...extra });
const scheduling = (extra: Partial<PdmsEntry> = {}): PdmsEntry => ({ name: 'scheduling', replicas: 1, ...extra });
const pd = (mode?: '' | 'ms') => ({ baseImage: 'pingcap/pd', replicas: 1, ...(mode === undefined ? {} : { mode }) });
const cluster = (mode: '' | 'ms' | undefined, pdms: PdmsEntry[] | undefined): Change<TidbCluster> => withSpec({ pd: pd(mode), ...(pdms === undefined ? {} : { pdms }) });
const created = (tc: TidbCluster) => planStep(snapshot(withCluster(tc)), pdmsRules).actions.flatMap((a) => (a.kind === 'create' ? [a.object] : []));

describe('which PD microservices run (as v1.6: PD in mode ms and spec.pdms, both)', () => {
  it.each([
    { name: 'mode ms with tso and scheduling: both services, each its Services, ConfigMap and StatefulSet', mode: 'ms', pdms: [tso(), scheduling()], want: ['Service/basic-tso', 'Service/basic-tso-peer', 'ConfigMap', 'StatefulSet/basic-tso', 'Service/basic-scheduling', 'Service/basic-scheduling-peer', 'ConfigMap', 'StatefulSet/basic-scheduling'] },
    { name: 'mode ms with tso only: tso only', mode: 'ms', pdms: [tso()], want: ['Service/basic-tso', 'Service/basic-tso-peer', 'ConfigMap', 'StatefulSet/basic-tso'] },
    { name: 'spec.pdms without mode ms: nothing', mode: undefined, pdms: [tso(), scheduling()], want: [] },
    { name: 'mode ms without spec.pdms: nothing', mode: 'ms', pdms: undefined, want: [] },
  ] as { name: string; mode: '' | 'ms' | undefined; pdms: PdmsEntry[] | undefined; want: string[] }[])('$name', ({ mode, pdms, want }) => {
    // Act
    const objects = created(tidbCluster(cluster(mode, pdms)));
    // Assess
    expect(objects.map((o) => (o.kind === 'ConfigMap' ? 'ConfigMap' : `${o.kind}/${o.metadata.name ?? ''}`))).toEqual(want);
  });
});

describe("a service's objects, as v1.6's pd_ms_member_manager builds them", () => {
  const objects = created(tidbCluster(withSpec({ version: 'v8.5.0', pd: pd('ms'), pdms: [tso({ baseImage: 'hub.pingcap.net/devbuild/pd', version: 'v8.3.0-5427' })] })));
  const service = (name: string) => objects.find((o) => o.kind === 'Service' && o.metadata.name === name) as IService;
  const set = objects.find((o) => o.kind === 'StatefulSet') as IStatefulSet;
  const configMap = objects.find((o) => o.kind === 'ConfigMap') as IConfigMap;

  it('the client Service: port client 2379, component label tso, used by the end user', () => {
    expect(service('basic-tso').spec).toMatchObject({ type: 'ClusterIP', ports: [{ name: 'client', port: 2379, targetPort: 2379 }], selector: { 'app.kubernetes.io/component': 'tso' } });
    expect(service('basic-tso').metadata?.labels?.['app.kubernetes.io/used-by']).toBe('end-user');
  });

  it('the headless Service: both peer ports, not-ready addresses published', () => {
    expect(service('basic-tso-peer').spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true, ports: [{ name: 'tcp-peer-2380', port: 2380 }, { name: 'tcp-peer-2379', port: 2379 }] });
  });

  it('the StatefulSet: replicas, partition, the peer Service, one container named after the service', () => {
    expect(set.spec).toMatchObject({ replicas: 2, serviceName: 'basic-tso-peer', updateStrategy: { rollingUpdate: { partition: 2 } }, volumeClaimTemplates: [] });
    const container = set.spec?.template.spec?.containers[0];
    expect(container).toMatchObject({ name: 'tso', image: 'hub.pingcap.net/devbuild/pd:v8.3.0-5427', command: ['/bin/sh', '/usr/local/bin/pdms_start_script.sh'], ports: [{ name: 'server', containerPort: 2379 }] });
    expect(container?.readinessProbe).toBeUndefined();
    expect(container?.volumeMounts?.map((m) => m.mountPath)).toEqual(['/etc/podinfo', '/etc/pd', '/usr/local/bin']);
    const volumes = set.spec?.template.spec?.volumes ?? [];
    expect(volumes.find((v) => v.name === 'startup-script')?.configMap?.items).toEqual([{ key: 'startup-script', path: 'pdms_start_script.sh' }]);
    expect(volumes.find((v) => v.name === 'config')?.configMap?.items).toEqual([{ key: 'config-file', path: 'pd.toml' }]);
  });

  it('the start script: services tso named after the pod (v8.3.0 on), PD as the backend', () => {
    const script = configMap.data?.['startup-script'] ?? '';
    expect(script).toContain('ARGS=" services tso --name=${PDMS_POD_NAME} --listen-addr=http://0.0.0.0:2379');
    expect(script).toContain('--advertise-listen-addr=http://${PD_DOMAIN}:2379');
    expect(script).toContain('--backend-endpoints=http://basic-pd:2379');
    expect(script).toContain('PD_DOMAIN=${PDMS_POD_NAME}.basic-tso-peer.demo.svc');
  });
});

describe('versions and images', () => {
  it.each([
    { name: 'before v8.3.0 the server takes no --name', entry: tso({ version: 'v8.1.0' }), named: false },
    { name: 'from v8.3.0 it is named after its pod', entry: tso({ version: 'v8.3.0' }), named: true },
  ])('$name', ({ entry, named }) => {
    const configMap = created(tidbCluster(cluster('ms', [entry]))).find((o) => o.kind === 'ConfigMap') as IConfigMap;
    expect((configMap.data?.['startup-script'] ?? '').includes('--name=')).toBe(named);
  });

  it.each([
    { name: "the CRD's default base image with the cluster's version", entry: tso(), want: 'pingcap/pd:v8.5.0' },
    { name: "the entry's base image and version", entry: tso({ baseImage: 'my/pd', version: 'v8.3.0' }), want: 'my/pd:v8.3.0' },
    { name: 'image counts only when baseImage is explicitly empty', entry: tso({ baseImage: '', image: 'my/pd:nightly' }), want: 'my/pd:nightly' },
  ])('$name', ({ entry, want }) => {
    expect(pdmsImage(tidbCluster(cluster('ms', [entry])), 'tso')).toBe(want);
  });
});

describe("PD's start script in mode ms (as v1.6: `services api` before PD's arguments)", () => {
  it.each([
    { name: 'mode ms with spec.pdms: PD is the API service', mode: 'ms', pdms: [tso()], api: true },
    { name: 'mode ms without spec.pdms: plain PD', mode: 'ms', pdms: undefined, api: false },
    { name: 'spec.pdms without mode ms: plain PD', mode: undefined, pdms: [tso()], api: false },
  ] as { name: string; mode: '' | 'ms' | undefined; pdms: PdmsEntry[] | undefined; api: boolean }[])('$name', ({ mode, pdms, api }) => {
    const script = pdConfigData(tidbCluster(cluster(mode, pdms)))['startup-script'] ?? '';
    expect(script.includes('ARGS=" services api --data-dir=/var/lib/pd')).toBe(api);
  });
});
