/**
 * The objects of a TidbNGMonitoring, as TiDB Operator v1 builds them (release-1.6
 * `pkg/manager/tidbngmonitoring/*`): the headless Service, the ConfigMap and the StatefulSet, all
 * `<tngm>-ng-monitoring` (the ConfigMap with v1's content-digest suffix, as its RollingUpdate config
 * strategy names it), port 12020. The container runs `/ng-monitoring-server` against the cluster's
 * PD (`--pd.endpoints <tc>-pd.<ns>:2379`), advertising `${POD_NAME}.<tngm>-ng-monitoring.<ns>:12020`;
 * under cluster TLS it mounts `<tngm>-tc-client-tls` and its config names those files.
 */

import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../model/kube.js';
import { isTlsCluster } from '../cluster/tls.js';
import { companionLabels, companionOwnerRef } from '../companion/meta.js';
import { companionStatefulSet } from '../companion/statefulset.js';
import { withServiceRecord } from '../member/apply.js';
import { configDataDigest, renderConfig } from '../member/config-data.js';
import type { TidbNGMonitoring } from './types.js';

/** ng-monitoring's port. */
export const NGM_PORT = 12020;
const DATA_DIR = '/var/lib/ng-monitoring';
const CONFIG_DIR = '/etc/ng-monitoring';
const TLS_DIR = '/var/lib/tc-client-tls';
/** The ConfigMap key holding the TOML (v1's `ngmConfigMapConfigKey`). */
export const NGM_CONFIG_KEY = 'config-file';

/** The name of the StatefulSet, the headless Service and (before its digest suffix) the ConfigMap. */
export const ngmName = (tngm: string): string => `${tngm}-ng-monitoring`;
/** The Secret holding the TidbCluster's client certificates, keys `<tc>_<ns>_<key>` (v1's `TCClientTLSSecretName`). */
export const ngmTlsSecretName = (tngm: string): string => `${tngm}-tc-client-tls`;
/** The key a TidbCluster certificate file gets in that Secret (v1's `assetKey`). */
export const ngmAssetKey = (tc: TidbCluster, key: string): string => `${tc.metadata.name ?? ''}_${tc.metadata.namespace ?? ''}_${key}`;

/** The image: `baseImage:version` (the section's version, else the top-level one), else `image` (v1's `NGMonitoringImage`). */
export function ngmImage(tngm: TidbNGMonitoring): string {
  const section = tngm.spec?.ngMonitoring ?? {};
  const base = section.baseImage ?? '';
  if (base === '') return section.image ?? '';
  const version = section.version ?? tngm.spec?.version ?? '';
  return version === '' ? base : `${base}:${version}`;
}

/** The start script (v1's `ngMonitoringStartScriptTpl`). */
export function ngmStartScript(tngm: TidbNGMonitoring, tc: TidbCluster): string {
  const name = tngm.metadata.name ?? '';
  const ns = tngm.metadata.namespace ?? '';
  const domain = tngm.spec?.clusterDomain ?? '';
  const peer = domain === '' ? `\${POD_NAME}.${ngmName(name)}.${ns}:${NGM_PORT}` : `\${POD_NAME}.${ngmName(name)}.${ns}.svc.${domain}:${NGM_PORT}`;
  const retention = tngm.spec?.ngMonitoring?.retentionPeriod ?? '';
  return [
    '/ng-monitoring-server \\',
    `\t--pd.endpoints ${tc.metadata.name ?? ''}-pd.${tc.metadata.namespace ?? ''}:2379 \\`,
    `\t--advertise-address ${peer} \\`,
    `\t--config ${CONFIG_DIR}/ng-monitoring.toml \\`,
    `\t--storage.path ${DATA_DIR}${retention === '' ? '' : ` \\\n\t--retention-period ${retention}`}`,
    '',
  ].join('\n');
}

/** The ConfigMap: the user's config, plus the certificate paths under cluster TLS (v1's `GenerateNGMonitoringConfigMap`). */
export function ngmConfigMap(tngm: TidbNGMonitoring, tc: TidbCluster): IConfigMap {
  const name = tngm.metadata.name ?? '';
  const tls: Record<string, string> = isTlsCluster(tc)
    ? { 'security.ca-path': `${TLS_DIR}/${ngmAssetKey(tc, 'ca.crt')}`, 'security.cert-path': `${TLS_DIR}/${ngmAssetKey(tc, 'tls.crt')}`, 'security.key-path': `${TLS_DIR}/${ngmAssetKey(tc, 'tls.key')}` }
    : {};
  const data = { [NGM_CONFIG_KEY]: renderConfig(tngm.spec?.ngMonitoring?.config, tls) };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${ngmName(name)}-${configDataDigest(data)}`, namespace: tngm.metadata.namespace ?? '', labels: companionLabels('TidbNGMonitoring', name), ownerReferences: [companionOwnerRef('TidbNGMonitoring', tngm)] },
    data,
  };
}

/** The headless Service (v1's `GenerateNGMonitoringHeadlessService`). */
export function ngmService(tngm: TidbNGMonitoring): IService {
  const name = tngm.metadata.name ?? '';
  const labels = companionLabels('TidbNGMonitoring', name);
  return withServiceRecord({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: ngmName(name), namespace: tngm.metadata.namespace ?? '', labels, ownerReferences: [companionOwnerRef('TidbNGMonitoring', tngm)] },
    spec: { clusterIP: 'None', ports: [{ name: 'ng-monitoring', port: NGM_PORT, targetPort: NGM_PORT, protocol: 'TCP' }], selector: labels, publishNotReadyAddresses: true },
  });
}

/** The StatefulSet mounting `configMapName` (v1's `GenerateNGMonitoringStatefulSet`), with its last-applied record. */
export function ngmStatefulSet(tngm: TidbNGMonitoring, tc: TidbCluster, configMapName: string): IStatefulSet {
  const name = tngm.metadata.name ?? '';
  const spec = tngm.spec ?? {};
  const section = spec.ngMonitoring ?? {};
  const tls = isTlsCluster(tc);
  const volumes: IVolume[] = [{ name: 'config', configMap: { name: configMapName, items: [{ key: NGM_CONFIG_KEY, path: 'ng-monitoring.toml' }] } }];
  const mounts: NonNullable<IContainer['volumeMounts']> = [
    { name: 'config', readOnly: true, mountPath: CONFIG_DIR },
    { name: 'ng-monitoring', mountPath: DATA_DIR },
  ];
  if (tls) {
    volumes.push({ name: 'tc-client-tls', secret: { secretName: ngmTlsSecretName(name) } });
    mounts.push({ name: 'tc-client-tls', readOnly: true, mountPath: TLS_DIR });
  }
  const container: IContainer = {
    name: 'ng-monitoring',
    image: ngmImage(tngm),
    imagePullPolicy: (spec.imagePullPolicy ?? 'IfNotPresent') as IContainer['imagePullPolicy'],
    command: ['/bin/sh', '-c', ngmStartScript(tngm, tc)],
    ports: [{ name: 'ng-monitoring', containerPort: NGM_PORT }],
    volumeMounts: mounts,
    env: [
      { name: 'HEADLESS_SERVICE_NAME', value: ngmName(name) },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
  };
  return companionStatefulSet({
    kind: 'TidbNGMonitoring',
    obj: tngm,
    component: section,
    common: spec,
    name: ngmName(name),
    serviceName: ngmName(name),
    container,
    volumes,
    claimName: 'ng-monitoring',
    storage: String(section.requests?.['storage'] ?? ''),
    storageClassName: section.storageClassName,
    storageVolumes: section.storageVolumes ?? [],
    memberType: 'ng-monitoring',
  });
}
