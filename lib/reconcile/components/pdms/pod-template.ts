/**
 * A PD microservice's pod template, claim templates and ConfigMap data, as TiDB Operator v1.6's
 * `getNewPDMSStatefulSet` and `getPDMSConfigMap` (docs/reference/pd-microservices.md §2): image
 * `image`, else `<baseImage>:<version>` (PD's image when neither), one container named after the
 * service running `pdms_start_script.sh`, `pd.toml` at `/etc/pd`, PD's cluster certificate under
 * cluster TLS, no readiness probe, and claims only for `storageVolumes` (there is no data claim).
 */

import type { IContainer } from 'kubernetes-models/v1/Container';

import type { TidbCluster } from '../../../model/kube.js';
import type { PdmsServiceName } from '../../../model/labels.js';
import { clusterScheme } from '../../cluster/tls.js';
import { renderConfig, type ConfigData } from '../../member/config-data.js';
import { componentPodTemplate, containerResources, defined, imagePullPolicyOf } from '../../member/pod-spec.js';
import { ANNOTATIONS_MOUNT, ANNOTATIONS_VOLUME, clusterCertWiring, configMapFileVolume, storageVolumeClaims, storageVolumeMounts, type ClaimTemplate } from '../../member/pod-volumes.js';
import { SCRIPTED_CONFIG_KEYS } from '../../member/start-script.js';
import type { PodTemplate } from '../../member/statefulset.js';
import { DEFAULT_PD_START_TIMEOUT_SECONDS } from '../pd/start-script.js';
import { pdImage } from '../pd/pod-template.js';
import { pdSecurityConfig } from '../pd/tls.js';
import { imageTagOf, isVersionAtLeast } from '../../member/cmpver.js';
import { PDMS_NAMED_SINCE, PDMS_PORTS, pdmsPeerServiceName, pdmsSetName, pdmsSpecOf } from './names.js';
import { pdmsStartScript } from './start-script.js';

/** The CRD's default `spec.pdms[].baseImage`. */
export const DEFAULT_PDMS_BASE_IMAGE = 'pingcap/pd';

/** The start script's file name under `/usr/local/bin`. */
export const PDMS_START_SCRIPT = 'pdms_start_script.sh';

/**
 * As v1's `PDMSImage` under the CRD's default (`baseImage: pingcap/pd`, filled in by the API server):
 * `<baseImage>:<version>` (version: the entry's, else `spec.version`; the bare base image when
 * neither), so `image` counts only when `baseImage` is explicitly empty; PD's image when nothing is set.
 */
export function pdmsImage(tc: TidbCluster, service: PdmsServiceName): string {
  const spec = pdmsSpecOf(tc, service);
  const base = spec?.baseImage ?? DEFAULT_PDMS_BASE_IMAGE;
  const version = spec?.version ?? tc.spec.version ?? '';
  if (base !== '') return version === '' ? base : `${base}:${version}`;
  return spec?.image !== undefined && spec.image !== '' ? spec.image : pdImage(tc);
}

/** The version the service's image runs (its tag), for the version gates. */
export const pdmsVersion = (tc: TidbCluster, service: PdmsServiceName): string => imageTagOf(pdmsImage(tc, service));

/** Whether the service's servers take `--name` and are known by it (PD ≥ v8.3.0). */
export const isPdmsNamed = (tc: TidbCluster, service: PdmsServiceName): boolean => isVersionAtLeast(pdmsVersion(tc, service), PDMS_NAMED_SINCE) === true;

/** The ConfigMap data: `config-file` (the entry's config, PD's TLS paths overlaid) and `startup-script`. */
export function pdmsConfigData(tc: TidbCluster, service: PdmsServiceName): ConfigData {
  const scheme = clusterScheme(tc);
  const script = pdmsStartScript({
    service,
    scheme,
    peerService: pdmsPeerServiceName(tc, service),
    namespace: tc.metadata.namespace ?? '',
    clusterDomain: tc.spec.clusterDomain ?? '',
    backend: `${scheme}://${tc.metadata.name ?? ''}-pd:${PDMS_PORTS.client}`,
    startTimeoutSeconds: tc.spec.pd?.startTimeout ?? DEFAULT_PD_START_TIMEOUT_SECONDS,
    named: isPdmsNamed(tc, service),
  });
  return { [SCRIPTED_CONFIG_KEYS.config]: renderConfig(pdmsSpecOf(tc, service)?.config, { ...pdSecurityConfig(tc) }), [SCRIPTED_CONFIG_KEYS.script]: script };
}

function pdmsContainer(tc: TidbCluster, service: PdmsServiceName): IContainer {
  const spec = pdmsSpecOf(tc, service);
  const tls = clusterCertWiring(tc, 'pd', spec?.mountClusterClientSecret === true);
  const env = [
    { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'PEER_SERVICE_NAME', value: pdmsPeerServiceName(tc, service) },
    { name: 'SERVICE_NAME', value: pdmsSetName(tc, service) },
    { name: 'SET_NAME', value: pdmsSetName(tc, service) },
    { name: 'TZ', value: tc.spec.timezone ?? 'UTC' },
    { name: 'CLUSTER_NAME', value: tc.metadata.name ?? '' },
    { name: 'HEADLESS_SERVICE_NAME', value: pdmsPeerServiceName(tc, service) },
    ...(spec?.env ?? []),
  ];
  return defined({
    name: service,
    image: pdmsImage(tc, service),
    imagePullPolicy: imagePullPolicyOf(tc, spec),
    command: ['/bin/sh', `/usr/local/bin/${PDMS_START_SCRIPT}`],
    ports: [{ name: 'server', containerPort: PDMS_PORTS.client, protocol: 'TCP' }],
    volumeMounts: [
      ANNOTATIONS_MOUNT,
      { name: 'config', readOnly: true, mountPath: '/etc/pd' },
      { name: 'startup-script', readOnly: true, mountPath: '/usr/local/bin' },
      ...tls.mounts,
      // as v1: storage volume mounts and additional mounts only when storageVolumes is set
      ...(spec?.storageVolumes === undefined ? [] : [...storageVolumeMounts(service, spec), ...(spec.additionalVolumeMounts ?? [])]),
    ],
    resources: containerResources(spec),
    env,
    envFrom: spec?.envFrom,
  });
}

/** The desired pod template of `service`, mounting ConfigMap `configMap`. */
export function pdmsPodTemplate(tc: TidbCluster, service: PdmsServiceName, configMap: string): PodTemplate {
  const spec = pdmsSpecOf(tc, service);
  const tls = clusterCertWiring(tc, 'pd', spec?.mountClusterClientSecret === true);
  const volumes = [
    ANNOTATIONS_VOLUME,
    configMapFileVolume('config', configMap, SCRIPTED_CONFIG_KEYS.config, 'pd.toml'),
    configMapFileVolume('startup-script', configMap, SCRIPTED_CONFIG_KEYS.script, PDMS_START_SCRIPT),
    ...tls.volumes,
    ...(spec?.additionalVolumes ?? []),
  ];
  return componentPodTemplate(tc, service, spec, { containers: [pdmsContainer(tc, service)], volumes, metricsPort: PDMS_PORTS.client });
}

/** Its claim templates: one per `storageVolumes` entry (`<svc>-<name>`); no data claim. */
export function pdmsClaimTemplates(tc: TidbCluster, service: PdmsServiceName): ClaimTemplate[] {
  return storageVolumeClaims(service, pdmsSpecOf(tc, service));
}
