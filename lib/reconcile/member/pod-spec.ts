/**
 * The parts of a component's pod template every component builds the same way, as TiDB Operator
 * v1's `ComponentAccessor` (`component_spec.go`): the image `<baseImage>:<version>`, the scheduling
 * settings (component spec over cluster spec), resources without the storage request, topology
 * spread constraints with the component's selector, the pod labels and Prometheus annotations,
 * a TCP readiness probe, and the pod template put together from them. A component's
 * pod-template.ts adds only its containers and volumes (member/pod-volumes.ts has the shared ones).
 */

import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';

import type { TidbCluster } from '../../model/kube.js';
import { componentLabels } from '../../model/labels.js';
import type { DeclaredName } from './component.js';
import { mergeContainers } from './container-merge.js';
import type { PodTemplate } from './statefulset.js';

type PodSpec = NonNullable<PodTemplate['spec']>;
// Every component spec shares these fields; one of them names their types.
type AnySpec = NonNullable<TidbCluster['spec']['pd']>;

/** What the shared builders read of `spec.<component>` (every component spec has these fields). */
export type ComponentPodSettings = Pick<
  AnySpec,
  | 'image'
  | 'baseImage'
  | 'version'
  | 'imagePullPolicy'
  | 'requests'
  | 'limits'
  | 'schedulerName'
  | 'affinity'
  | 'nodeSelector'
  | 'tolerations'
  | 'priorityClassName'
  | 'imagePullSecrets'
  | 'podSecurityContext'
  | 'serviceAccount'
  | 'hostNetwork'
  | 'dnsPolicy'
  | 'dnsConfig'
  | 'terminationGracePeriodSeconds'
  | 'topologySpreadConstraints'
  | 'initContainers'
  | 'annotations'
  | 'labels'
  | 'additionalContainers'
>;

/** Drops the keys whose value is undefined (so built objects compare and serialise cleanly). */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The image: `spec.<c>.image` when set, else `<baseImage>:<version>` (component version, else `spec.version`). */
export function componentImage(tc: TidbCluster, spec: ComponentPodSettings | undefined, defaultBase: string): string {
  if (spec?.image !== undefined && spec.image !== '') return spec.image;
  const base = spec?.baseImage ?? defaultBase;
  const version = spec?.version ?? tc.spec.version;
  return version === undefined || version === '' ? base : `${base}:${version}`;
}

/** As v1's `ContainerResource`: the requests without `storage` (that is the claim's), and the limits. */
export function containerResources(spec: ComponentPodSettings | undefined): IContainer['resources'] {
  const { storage: _storage, ...requests } = spec?.requests ?? {};
  return defined({ requests: Object.keys(requests).length > 0 ? requests : undefined, limits: spec?.limits });
}

/** The image pull policy: the component's, else the cluster's, else `IfNotPresent`. */
export function imagePullPolicyOf(tc: TidbCluster, spec: ComponentPodSettings | undefined): NonNullable<IContainer['imagePullPolicy']> {
  return spec?.imagePullPolicy ?? tc.spec.imagePullPolicy ?? 'IfNotPresent';
}

function topologySpread(tc: TidbCluster, name: DeclaredName, spec: ComponentPodSettings | undefined): PodSpec['topologySpreadConstraints'] {
  const constraints = spec?.topologySpreadConstraints ?? tc.spec.topologySpreadConstraints;
  if (!constraints) return undefined;
  return constraints.map((c) =>
    defined({
      maxSkew: c.maxSkew ?? 1,
      topologyKey: c.topologyKey,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { ...componentLabels(tc, name), ...c.matchLabels } },
      minDomains: c.minDomains,
      nodeAffinityPolicy: c.nodeAffinityPolicy,
    }),
  );
}

/**
 * As v1's `BuildPodSpec`: the scheduling settings of the pod spec (component over cluster), host
 * network with its DNS policy, the user's init containers — everything but containers and volumes.
 */
export function podSchedulingSpec(tc: TidbCluster, name: DeclaredName, spec: ComponentPodSettings | undefined): PodSpec {
  const hostNetwork = spec?.hostNetwork ?? tc.spec.hostNetwork;
  const nodeSelector = { ...tc.spec.nodeSelector, ...spec?.nodeSelector };
  return defined({
    schedulerName: spec?.schedulerName ?? tc.spec.schedulerName,
    affinity: spec?.affinity ?? tc.spec.affinity,
    nodeSelector: Object.keys(nodeSelector).length > 0 ? nodeSelector : undefined,
    tolerations: spec?.tolerations ?? tc.spec.tolerations,
    priorityClassName: spec?.priorityClassName ?? tc.spec.priorityClassName,
    imagePullSecrets: spec?.imagePullSecrets ?? tc.spec.imagePullSecrets,
    securityContext: spec?.podSecurityContext ?? tc.spec.podSecurityContext,
    serviceAccountName: spec?.serviceAccount ?? tc.spec.serviceAccount,
    hostNetwork: hostNetwork === true ? true : undefined,
    dnsPolicy: spec?.dnsPolicy ?? tc.spec.dnsPolicy ?? (hostNetwork === true ? 'ClusterFirstWithHostNet' : undefined),
    dnsConfig: spec?.dnsConfig ?? tc.spec.dnsConfig,
    terminationGracePeriodSeconds: spec?.terminationGracePeriodSeconds,
    topologySpreadConstraints: topologySpread(tc, name, spec),
    initContainers: spec?.initContainers,
    containers: [],
  });
}

/** Whether the pod runs on the host network (component over cluster). */
export const isHostNetwork = (tc: TidbCluster, spec: ComponentPodSettings | undefined): boolean =>
  (spec?.hostNetwork ?? tc.spec.hostNetwork) === true;

/** The pod metadata: cluster and component labels under the selector labels; Prometheus annotations under the user's. */
export function podMetadata(tc: TidbCluster, name: DeclaredName, spec: ComponentPodSettings | undefined, metricsPort: number): PodTemplate['metadata'] {
  const annotations = {
    'prometheus.io/scrape': 'true',
    'prometheus.io/path': '/metrics',
    'prometheus.io/port': String(metricsPort),
    ...tc.spec.annotations,
    ...spec?.annotations,
  };
  const labels = { ...tc.spec.labels, ...spec?.labels, ...componentLabels(tc, name) };
  return { labels, annotations };
}

/**
 * A TCP readiness probe on `port` with `probe`'s timing (`initialDelaySeconds` defaulting to
 * `defaultDelaySeconds`), as v1 builds one for PD, TiKV and TiDB.
 */
export function tcpReadinessProbe(port: number, probe: { initialDelaySeconds?: number; periodSeconds?: number } | undefined, defaultDelaySeconds: number): IContainer['readinessProbe'] {
  return defined({ tcpSocket: { port }, initialDelaySeconds: probe?.initialDelaySeconds ?? defaultDelaySeconds, periodSeconds: probe?.periodSeconds });
}

/** What a component builds of its pod template itself. */
export type OwnPodParts = {
  /** Its own containers; an additional container of the same name patches one (v1's merge). */
  readonly containers: readonly IContainer[];
  readonly volumes: IVolume[];
  /** The port Prometheus scrapes (`prometheus.io/port`). */
  readonly metricsPort: number;
  /** Its own init containers, replacing the user's list as given (TiFlash puts its `init` first). */
  readonly initContainers?: IContainer[];
  /** Annotations of its own, ahead of the Prometheus and user annotations (TiFlash's proxy metrics). */
  readonly annotations?: Readonly<Record<string, string>>;
};

/**
 * The desired pod template, as every component's v1 StatefulSet builder assembles it: the pod
 * metadata, the scheduling settings, the component's containers patched by
 * `spec.<c>.additionalContainers`, and its volumes.
 */
export function componentPodTemplate(tc: TidbCluster, name: DeclaredName, spec: ComponentPodSettings | undefined, parts: OwnPodParts): PodTemplate {
  const metadata = podMetadata(tc, name, spec, parts.metricsPort);
  return {
    metadata: parts.annotations === undefined ? metadata : { ...metadata, annotations: { ...parts.annotations, ...metadata?.annotations } },
    spec: {
      ...podSchedulingSpec(tc, name, spec),
      ...(parts.initContainers === undefined ? {} : { initContainers: parts.initContainers }),
      containers: mergeContainers(parts.containers, spec?.additionalContainers ?? []),
      volumes: parts.volumes,
    },
  };
}
