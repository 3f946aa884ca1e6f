/**
 * The Kubernetes objects TiDB Operator v1 creates for a TidbCluster, reduced to what the simulated
 * processes read (names, labels, images, commands, ports, volumes, claim templates, ConfigMaps),
 * for bringing a cluster up by hand through the API server in tests and the benchmark — the way an
 * operator would, one object at a time.
 */
import type { KubeObject } from '../object.js';

/** The cluster to build objects for. */
export type HandCluster = {
  namespace: string;
  name: string;
  version: string;
  replicas: { pd: number; tikv: number; tidb: number; tiflash?: number; ticdc?: number; pump?: number };
  /** pd.toml (default: max-replicas = 3). */
  pdConfig?: string;
  tikvConfig?: string;
  tidbConfig?: string;
};

/** The components with a StatefulSet. */
export type SetComponent = 'pd' | 'tikv' | 'tidb' | 'tiflash' | 'ticdc' | 'pump';

const IMAGES: Record<SetComponent, string> = { pd: 'pingcap/pd', tikv: 'pingcap/tikv', tidb: 'pingcap/tidb', tiflash: 'pingcap/tiflash', ticdc: 'pingcap/ticdc', pump: 'pingcap/tidb-binlog' };
const DATA: Partial<Record<SetComponent, { claim: string; mount: string }>> = { pd: { claim: 'pd', mount: '/var/lib/pd' }, tikv: { claim: 'tikv', mount: '/var/lib/tikv' }, tiflash: { claim: 'data0', mount: '/data0' }, pump: { claim: 'data', mount: '/data' } };
const PORTS: Record<SetComponent, { name: string; containerPort: number }[]> = {
  pd: [{ name: 'server', containerPort: 2380 }, { name: 'client', containerPort: 2379 }],
  tikv: [{ name: 'server', containerPort: 20160 }],
  tidb: [{ name: 'server', containerPort: 4000 }, { name: 'status', containerPort: 10080 }],
  tiflash: [{ name: 'proxy-metrics', containerPort: 20292 }],
  ticdc: [{ name: 'ticdc', containerPort: 8301 }],
  pump: [{ name: 'pump', containerPort: 8250 }],
};
const CONFIG_KEY: Record<SetComponent, string> = { pd: 'config-file', tikv: 'config-file', tidb: 'config-file', tiflash: 'config_templ.toml', ticdc: 'config-file', pump: 'pump-config' };

/** TiDB Operator's labels for a component (§2.0). */
export function componentLabels(c: HandCluster, component: string): Record<string, string> {
  return { 'app.kubernetes.io/name': 'tidb-cluster', 'app.kubernetes.io/managed-by': 'tidb-operator', 'app.kubernetes.io/instance': c.name, 'app.kubernetes.io/component': component };
}

/** The TidbCluster object (discovery reads `spec.pd.replicas` and the resourceVersion). */
export function tidbClusterObject(c: HandCluster): KubeObject {
  const spec: Record<string, unknown> = { version: c.version, discovery: {} };
  for (const [component, replicas] of Object.entries(c.replicas)) {
    if (replicas === undefined) continue;
    // TiFlash's spec requires its storage claims (the CRD schema says so, as TiDB Operator's does);
    // the others with data ask for what their StatefulSet's claims hold (`statefulSetObject`), so the
    // hand-built cluster is one the reconciler would have built, not a request to shrink its volumes.
    const claims =
      component === 'tiflash'
        ? { storageClaims: [{ resources: { requests: { storage: '10Gi' } } }] }
        : DATA[component as SetComponent]
          ? { requests: { storage: '10Gi' } }
          : {};
    spec[component] = { replicas, baseImage: IMAGES[component as SetComponent], ...claims };
  }
  return { apiVersion: 'pingcap.com/v1alpha1', kind: 'TidbCluster', metadata: { name: c.name, namespace: c.namespace }, spec };
}

/** The discovery Deployment and Service. */
export function discoveryObjects(c: HandCluster): { kind: string; object: KubeObject }[] {
  const labels = componentLabels(c, 'discovery');
  const container = { name: 'discovery', image: 'pingcap/tidb-operator:v1.6.0', command: ['/usr/local/bin/tidb-discovery'], env: [{ name: 'MY_POD_NAMESPACE', value: c.namespace }, { name: 'TC_NAME', value: c.name }] };
  const deployment = { metadata: { name: `${c.name}-discovery`, namespace: c.namespace, labels }, spec: { replicas: 1, strategy: { type: 'Recreate' }, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container] } } } };
  const service = { metadata: { name: `${c.name}-discovery`, namespace: c.namespace, labels }, spec: { selector: labels, ports: [{ name: 'discovery', port: 10261, targetPort: 10261 }, { name: 'proxy', port: 10262, targetPort: 10262 }] } };
  return [{ kind: 'Deployment', object: deployment }, { kind: 'Service', object: service }];
}

function configText(c: HandCluster, component: SetComponent): string {
  if (component === 'pd') return c.pdConfig ?? '[replication]\nmax-replicas = 3\n';
  if (component === 'tikv') return c.tikvConfig ?? '';
  if (component === 'tidb') return c.tidbConfig ?? '';
  return '';
}

/** The headless peer Service (and PD's client Service) of a component. */
export function serviceObjects(c: HandCluster, component: SetComponent): KubeObject[] {
  const selector = componentLabels(c, component);
  const peerName = component === 'pump' ? `${c.name}-pump` : `${c.name}-${component}-peer`;
  const ports = PORTS[component].map((p) => ({ name: p.name, port: p.containerPort, targetPort: p.containerPort }));
  const peer = { metadata: { name: peerName, namespace: c.namespace, labels: { ...selector, 'app.kubernetes.io/used-by': 'peer' } }, spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector, ports } };
  if (component !== 'pd') return [peer];
  const client = { metadata: { name: `${c.name}-pd`, namespace: c.namespace, labels: { ...selector, 'app.kubernetes.io/used-by': 'end-user' } }, spec: { selector, ports: [{ name: 'client', port: 2379, targetPort: 2379 }] } };
  return [client, peer];
}

/** The ConfigMap of a component (`<tc>-<component>`). */
export function configMapObject(c: HandCluster, component: SetComponent, text = configText(c, component)): KubeObject {
  return { metadata: { name: `${c.name}-${component}`, namespace: c.namespace, labels: componentLabels(c, component) }, data: { [CONFIG_KEY[component]]: text } };
}

/** The StatefulSet of a component with `image` (default `<base>:<version>`). */
export function statefulSetObject(c: HandCluster, component: SetComponent, image = `${IMAGES[component]}:${c.version}`): KubeObject {
  const labels = componentLabels(c, component);
  const data = DATA[component];
  const container = {
    name: component,
    image,
    command: component === 'pump' ? ['/bin/sh', '-c', '/pump -config=/etc/pump/pump.toml'] : ['/bin/sh', `/usr/local/bin/${component}_start_script.sh`],
    ports: PORTS[component],
    volumeMounts: [{ name: 'config', mountPath: `/etc/${component}` }, ...(data ? [{ name: data.claim, mountPath: data.mount }] : [])],
    // TiDB's default probe, and PD's optional one (TCP on the client port), so services only route to listeners.
    ...(component === 'tidb' ? { readinessProbe: { tcpSocket: { port: 4000 }, initialDelaySeconds: 10 } } : {}),
    ...(component === 'pd' ? { readinessProbe: { tcpSocket: { port: 2379 } } } : {}),
  };
  const claims = data ? [{ metadata: { name: data.claim }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }] : [];
  return {
    metadata: { name: `${c.name}-${component}`, namespace: c.namespace, labels },
    spec: {
      replicas: c.replicas[component] ?? 0,
      serviceName: component === 'pump' ? `${c.name}-pump` : `${c.name}-${component}-peer`,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: labels },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      template: { metadata: { labels }, spec: { containers: [container], volumes: [{ name: 'config', configMap: { name: `${c.name}-${component}` } }] } },
      volumeClaimTemplates: claims,
    },
  };
}

/** Every object of a component in creation order: ConfigMap, Services, StatefulSet. */
export function componentObjects(c: HandCluster, component: SetComponent): { kind: string; object: KubeObject }[] {
  return [
    { kind: 'ConfigMap', object: configMapObject(c, component) },
    ...serviceObjects(c, component).map((object) => ({ kind: 'Service', object })),
    { kind: 'StatefulSet', object: statefulSetObject(c, component) },
  ];
}
