/**
 * TiProxy's pod template and claim templates, as TiDB Operator v1.6's `getNewStatefulSet` for
 * TiProxy: one container `tiproxy` running `/bin/sh /etc/proxy/start.sh` (the ConfigMap's
 * `config-file` and `startup-script` mounted at `/etc/proxy` as `proxy.toml` and `start.sh`), ports
 * 6000, 3080 and 3081, Prometheus scraping 3080 at `/api/metrics`, the certificates of its layout
 * (legacy or `v1`), and claims only for `spec.tiproxy.storageVolumes`. The StatefulSet around it is
 * the shared draft.
 */

import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';

import type { TidbCluster } from '../../../model/kube.js';
import { CLUSTER_CLIENT_TLS, clusterClientSecretName, clusterTlsSecretName, isTlsCluster, type TlsWiring } from '../../cluster/tls.js';
import { componentPodTemplate, containerResources, defined, imagePullPolicyOf } from '../../member/pod-spec.js';
import { ANNOTATIONS_MOUNT, ANNOTATIONS_VOLUME, storageVolumeClaims, storageVolumeMounts, type ClaimTemplate } from '../../member/pod-volumes.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { TIPROXY_TLS_PATHS, isCertLayoutV1, isSqlTlsToTidb, isTidbClientTls } from './config-map.js';
import { TIPROXY_API_PORT, TIPROXY_PEER_PORT, TIPROXY_SQL_PORT, tiproxyPeerServiceName } from './names.js';

/** As v1's `TiProxyImage`: `<baseImage>:<version>` (component version, else `spec.version`) when a base image is set, else `image`. */
export function tiproxyImage(tc: TidbCluster): string {
  const spec = tc.spec.tiproxy;
  const base = spec?.baseImage ?? 'pingcap/tiproxy';
  if (base === '') return spec?.image ?? '';
  const version = spec?.version ?? tc.spec.version ?? '';
  return version === '' ? base : `${base}:${version}`;
}

const secretVolume = (name: string, secretName: string): IVolume => ({ name, secret: { secretName } });
const mount = (name: string, mountPath: string): IVolumeMount => ({ name, readOnly: true, mountPath });

/** As v1's `buildVolumesAndVolumeMountsForTLSLegacy`. */
function legacyTls(tc: TidbCluster): TlsWiring {
  const name = tc.metadata.name ?? '';
  const cluster = isTlsCluster(tc);
  const tidb = isTidbClientTls(tc);
  const wiring: TlsWiring = { volumes: [], mounts: [] };
  const add = (volume: string, secretName: string, path: string) => {
    wiring.volumes.push(secretVolume(volume, secretName));
    wiring.mounts.push(mount(volume, path));
  };
  if (cluster) add(CLUSTER_CLIENT_TLS.volume, clusterClientSecretName(name), CLUSTER_CLIENT_TLS.mountPath);
  if (tidb) {
    add('tidb-server-tls', `${name}-tidb-server-secret`, TIPROXY_TLS_PATHS.server);
    if (isSqlTlsToTidb(tc)) add('tidb-client-tls', tc.spec.tiproxy?.tlsClientSecretName ?? `${name}-tidb-client-secret`, TIPROXY_TLS_PATHS.sql);
  }
  if (cluster && !tidb) add('tiproxy-tls', clusterTlsSecretName(name, 'tiproxy'), TIPROXY_TLS_PATHS.httpServer);
  return wiring;
}

/** As v1's `buildVolumesAndVolumeMountsForTLSV1`: the cluster client and TiProxy's own certificate, TiDB's server certificate. */
function layoutV1Tls(tc: TidbCluster): TlsWiring {
  const name = tc.metadata.name ?? '';
  const wiring: TlsWiring = { volumes: [], mounts: [] };
  const add = (volume: string, secretName: string, path: string) => {
    wiring.volumes.push(secretVolume(volume, secretName));
    wiring.mounts.push(mount(volume, path));
  };
  if (isTlsCluster(tc)) {
    add(CLUSTER_CLIENT_TLS.volume, clusterClientSecretName(name), CLUSTER_CLIENT_TLS.mountPath);
    add('tiproxy-tls', clusterTlsSecretName(name, 'tiproxy'), TIPROXY_TLS_PATHS.cluster);
  }
  if (isTidbClientTls(tc)) add('tidb-server-tls', `${name}-tidb-server-secret`, TIPROXY_TLS_PATHS.server);
  return wiring;
}

/** The certificates TiProxy mounts for its layout (none without TLS). */
export const tiproxyTlsWiring = (tc: TidbCluster): TlsWiring => (isCertLayoutV1(tc) ? layoutV1Tls(tc) : legacyTls(tc));

function tiproxyContainer(tc: TidbCluster, tls: TlsWiring): IContainer {
  const spec = tc.spec.tiproxy;
  const port = (name: string, containerPort: number) => ({ name, containerPort, protocol: 'TCP' as const });
  return defined({
    name: 'tiproxy',
    image: tiproxyImage(tc),
    imagePullPolicy: imagePullPolicyOf(tc, spec),
    command: ['/bin/sh', '/etc/proxy/start.sh'],
    ports: [port('tiproxy', TIPROXY_SQL_PORT), port('tiproxy-api', TIPROXY_API_PORT), port('tiproxy-peer', TIPROXY_PEER_PORT)],
    volumeMounts: [mount('config', '/etc/proxy'), ANNOTATIONS_MOUNT, ...tls.mounts, ...storageVolumeMounts('tiproxy', spec), ...(spec?.additionalVolumeMounts ?? [])],
    resources: containerResources(spec),
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'HEADLESS_SERVICE_NAME', value: tiproxyPeerServiceName(tc) },
      ...(spec?.env ?? []),
    ],
    envFrom: spec?.envFrom,
  });
}

/** The desired pod template: labels, Prometheus on 3080 at `/api/metrics`, scheduling settings, the `tiproxy` container. */
export function tiproxyPodTemplate(tc: TidbCluster, configMap: string): PodTemplate {
  const tls = tiproxyTlsWiring(tc);
  const config: IVolume = {
    name: 'config',
    configMap: { name: configMap, items: [{ key: SCRIPTED_CONFIG_KEYS.config, path: 'proxy.toml' }, { key: SCRIPTED_CONFIG_KEYS.script, path: 'start.sh' }] },
  };
  const volumes = [config, ANNOTATIONS_VOLUME, ...tls.volumes, ...(tc.spec.tiproxy?.additionalVolumes ?? [])];
  const template = componentPodTemplate(tc, 'tiproxy', tc.spec.tiproxy, { containers: [tiproxyContainer(tc, tls)], volumes, metricsPort: TIPROXY_API_PORT });
  // As v1: TiProxy serves its metrics at /api/metrics (the user's annotations still win).
  const annotations = { ...template.metadata?.annotations, 'prometheus.io/path': '/api/metrics', ...tc.spec.annotations, ...tc.spec.tiproxy?.annotations };
  return { ...template, metadata: { ...template.metadata, annotations } };
}

/** TiProxy's claim templates: one `tiproxy-<name>` per `spec.tiproxy.storageVolumes` entry (none by default). */
export function tiproxyClaimTemplates(tc: TidbCluster): ClaimTemplate[] {
  return storageVolumeClaims('tiproxy', tc.spec.tiproxy);
}
