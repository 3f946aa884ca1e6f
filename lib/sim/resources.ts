/**
 * The built-in kinds the simulated API server serves, with the names discovery publishes. One
 * table, so routing, discovery, validation and garbage collection agree on what exists; custom
 * resources (TidbCluster among them) are served from the CustomResourceDefinitions in the store.
 */

/** A served resource: `group` is '' for the core group. */
export type ResourceDef = {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  /** Subresources served besides the object itself; any other `/{name}/{sub}` path is 404, as on a real server. */
  readonly subresources: readonly ('status' | 'scale')[];
  /** A custom resource's scale subresource: where its replicas and selector live (CRD `subresources.scale`). */
  readonly scalePaths?: ScalePaths;
  /** Whether a change to `spec` (anything but metadata/status) bumps metadata.generation. */
  readonly hasGeneration: boolean;
  /** Categories discovery lists (`all` lets `kubectl get all` include the kind). */
  readonly categories?: readonly string[];
  /** Served from a CustomResourceDefinition rather than built in. */
  readonly custom?: boolean;
};

/** The JSON paths of a CRD's scale subresource (`.spec.replicas` style). */
export type ScalePaths = { readonly specReplicasPath: string; readonly statusReplicasPath: string; readonly labelSelectorPath?: string };

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

function def(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  opts: { shortNames?: string[]; subresources?: ('status' | 'scale')[]; hasGeneration?: boolean } = {},
): ResourceDef {
  return {
    group,
    version,
    kind,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: opts.shortNames ?? [],
    subresources: opts.subresources ?? [],
    hasGeneration: opts.hasGeneration ?? false,
  };
}

/** Every built-in resource. */
export const RESOURCES: readonly ResourceDef[] = [
  def('', 'v1', 'Namespace', 'namespaces', false, { shortNames: ['ns'], subresources: ['status'] }),
  def('', 'v1', 'Node', 'nodes', false, { shortNames: ['no'], subresources: ['status'] }),
  def('', 'v1', 'Pod', 'pods', true, { shortNames: ['po'], subresources: ['status'] }),
  def('', 'v1', 'Service', 'services', true, { shortNames: ['svc'], subresources: ['status'] }),
  def('', 'v1', 'Endpoints', 'endpoints', true, { shortNames: ['ep'] }),
  def('', 'v1', 'ConfigMap', 'configmaps', true, { shortNames: ['cm'] }),
  def('', 'v1', 'Secret', 'secrets', true),
  def('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, { shortNames: ['pvc'], subresources: ['status'] }),
  def('', 'v1', 'PersistentVolume', 'persistentvolumes', false, { shortNames: ['pv'], subresources: ['status'] }),
  def('', 'v1', 'ServiceAccount', 'serviceaccounts', true, { shortNames: ['sa'] }),
  def('', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
  def('apps', 'v1', 'StatefulSet', 'statefulsets', true, { shortNames: ['sts'], subresources: ['status', 'scale'], hasGeneration: true }),
  def('apps', 'v1', 'ControllerRevision', 'controllerrevisions', true),
  def('apps', 'v1', 'Deployment', 'deployments', true, { shortNames: ['deploy'], subresources: ['status', 'scale'], hasGeneration: true }),
  def('batch', 'v1', 'Job', 'jobs', true, { subresources: ['status'], hasGeneration: true }),
  // Leader-election locks (client-go's `leases` resource lock), e.g. TiDB Operator's controller manager's.
  def('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  def('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', false, { shortNames: ['sc'] }),
  // GA in Kubernetes 1.34: the volume attributes (EBS type, IOPS, throughput) a claim may switch to.
  def('storage.k8s.io', 'v1', 'VolumeAttributesClass', 'volumeattributesclasses', false, { shortNames: ['vac'] }),
  def('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true),
  def('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true),
  def('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false),
  def('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  def('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', false, { shortNames: ['crd', 'crds'], subresources: ['status'], hasGeneration: true }),
];

/** The verbs every resource supports (the simulator serves all of them for every kind). */
export const RESOURCE_VERBS: readonly string[] = VERBS;

/** `apiVersion` as objects carry it: `v1` or `group/version`. */
export function apiVersionOf(r: ResourceDef): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** The group/versions of `resources` in order of first appearance, for discovery. */
export function groupVersions(resources: readonly ResourceDef[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of resources) seen.set(`${r.group}/${r.version}`, { group: r.group, version: r.version });
  return [...seen.values()];
}
