/**
 * Discovery, as TiDB Operator v1's discovery manager (§2.7, §1.3 step 3): a ServiceAccount, a Role, a
 * RoleBinding, a Deployment and a Service, all named `<tc>-discovery`, for the service PD pods ask
 * for their start arguments (`/new/<peer URL>` on 10261). Created when missing, updated when they
 * differ in what the reconciler owns, never deleted (garbage collection follows the owner reference).
 * Like v1 it does not wait for discovery to be available: PD pods retry until it answers.
 */

import type { CreateAction, UpdateAction } from '../../model/action.js';
import type { ReconcileConfig } from '../../model/config.js';
import type { KubeObject, ObjectMeta, TidbCluster } from '../../model/kube.js';
import { defaultTidbCluster, isJsonObject } from './defaults.js';
import { jsonEqual } from '../engine/equal.js';
import { LAST_APPLIED_ANNOTATION, componentLabels, controllerUid, ownerReference, type OwnerReference } from '../../model/labels.js';
import { complete, fail } from '../engine/outcome.js';
import type { Decision, RuleInput } from '../engine/rule.js';
import type { Snapshot } from '../../model/snapshot.js';
import { planApply, type ApplyPolicy } from '../member/apply.js';
import { observedObjects } from './observed.js';
import { quantityValue } from './validate.js';

/** The operator image the discovery Deployment runs unless configured otherwise. */
export const DEFAULT_DISCOVERY_IMAGE = 'pingcap/tidb-operator:v1.6.0';

/** The discovery Service's ports, by TiDB Operator's port names. */
export const DISCOVERY_PORTS = { discovery: 10261, proxy: 10262 } as const;

/** The kinds of the discovery objects, in the order they are created. */
export const DISCOVERY_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service'] as const;

type DiscoveryKind = (typeof DISCOVERY_KINDS)[number];
type Json = Record<string, unknown>;
type LiveObject = { readonly metadata?: ObjectMeta };

// The top-level fields the reconciler owns per kind; `spec`s are compared as a subset (the API server
// adds defaults) plus the last-applied annotation, the RBAC bodies exactly (it adds none).
const OWNED_BODY: Readonly<Record<DiscoveryKind, readonly string[]>> = {
  ServiceAccount: [],
  Role: ['rules'],
  RoleBinding: ['subjects', 'roleRef'],
  Deployment: ['spec'],
  Service: ['spec'],
};

/** `<tc>-discovery`: the name of every discovery object. */
export function discoveryName(tc: TidbCluster): string {
  return `${tc.metadata.name ?? ''}-discovery`;
}

/** The discovery image: `spec.discovery.image`, else the configured one, else `DEFAULT_DISCOVERY_IMAGE`. */
export function discoveryImage(tc: TidbCluster, config: ReconcileConfig): string {
  const own = tc.spec.discovery?.image;
  if (own !== undefined && own !== '') return own;
  return config.discoveryImage !== undefined && config.discoveryImage !== '' ? config.discoveryImage : DEFAULT_DISCOVERY_IMAGE;
}

/** Whether the cluster gets a discovery service: it has PD (or spans Kubernetes clusters), as v1. */
export function needsDiscovery(tc: TidbCluster): boolean {
  return isJsonObject(tc.spec.pd) || tc.spec.acrossK8s === true;
}

/**
 * The five discovery objects `tc` should have, in creation order (the ServiceAccount before the
 * Deployment whose pods run as it). Each carries the discovery labels and the controller owner
 * reference; the Deployment and Service also the last-applied annotation (the JSON of their spec).
 */
export function desiredDiscoveryObjects(tc: TidbCluster, config: ReconcileConfig): readonly KubeObject[] {
  const name = discoveryName(tc);
  const labels = componentLabels(tc, 'discovery');
  const meta = (annotate?: Json): ObjectMeta => ({
    name,
    namespace: tc.metadata.namespace ?? '',
    labels,
    ownerReferences: [ownerReference(tc)],
    ...(annotate ? { annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify(annotate) } } : {}),
  });
  const deploymentSpec = discoveryDeploymentSpec(tc, config, labels);
  const serviceSpec = {
    type: 'ClusterIP',
    ports: Object.entries(DISCOVERY_PORTS).map(([port, number]) => ({ name: port, port: number, targetPort: number, protocol: 'TCP' })),
    selector: labels,
  };
  const rules = [
    { apiGroups: ['pingcap.com'], resources: ['tidbclusters'], resourceNames: [tc.metadata.name ?? ''], verbs: ['get'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
  ];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta() },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(), rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(),
      subjects: [{ kind: 'ServiceAccount', name, namespace: tc.metadata.namespace ?? '' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    },
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(deploymentSpec), spec: deploymentSpec },
    { apiVersion: 'v1', kind: 'Service', metadata: meta(serviceSpec), spec: serviceSpec },
  ];
}

/** One replica, `Recreate`, running `tidb-discovery` as the discovery ServiceAccount (as v1). */
function discoveryDeploymentSpec(tc: TidbCluster, config: ReconcileConfig, labels: Record<string, string>): Json {
  const spec = tc.spec;
  const own = spec.discovery ?? {};
  const tls = spec.tlsCluster?.enabled === true;
  const env: Json[] = [
    { name: 'MY_POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'TZ', value: spec.timezone !== undefined && spec.timezone !== '' ? spec.timezone : 'UTC' },
    { name: 'TC_NAME', value: tc.metadata.name ?? '' },
    ...(tls ? [{ name: 'TC_TLS_ENABLED', value: 'true' }] : []),
  ];
  const resources = {
    ...(isJsonObject(own.requests) ? { requests: own.requests } : {}),
    ...(isJsonObject(own.limits) ? { limits: own.limits } : {}),
  };
  const container = {
    name: 'discovery',
    image: discoveryImage(tc, config),
    imagePullPolicy: own.imagePullPolicy ?? spec.imagePullPolicy ?? 'IfNotPresent',
    command: ['/usr/local/bin/tidb-discovery'],
    env,
    ...(Object.keys(resources).length > 0 ? { resources } : {}),
    // As v1: with cluster TLS, discovery talks to PD with the PD cluster certificate.
    ...(tls ? { volumeMounts: [{ name: 'pd-tls', readOnly: true, mountPath: '/var/lib/pd-tls' }] } : {}),
  };
  const pullSecrets = own.imagePullSecrets ?? spec.imagePullSecrets;
  const podSpec = {
    serviceAccountName: discoveryName(tc),
    containers: [container],
    ...(pullSecrets !== undefined && pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
    ...(tls ? { volumes: [{ name: 'pd-tls', secret: { secretName: `${tc.metadata.name ?? ''}-pd-cluster-secret` } }] } : {}),
  };
  return {
    replicas: 1,
    strategy: { type: 'Recreate' },
    selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: podSpec },
  };
}

/**
 * The `Discovery` rule. Guarantees: nothing when the cluster has no PD; otherwise a `create` for each
 * missing object and an `update` (carrying the observed resourceVersion) for each that differs in
 * labels, owner reference or the fields the reconciler owns — API-server defaults are not
 * differences; never a delete. Completes (v1 goes on to PD without waiting for discovery); fails,
 * retryably, on an object of that name controlled by something else, which it leaves alone. At
 * rest (`snapshot.reads`) its objects were not read and it does nothing: they were verified for
 * this very spec, and the sweep's step reads them again.
 */
export function planDiscovery({ cluster, snapshot }: RuleInput): Decision {
  // At rest its objects were not read: the spec they follow is the one a full step verified them for.
  if (snapshot.reads === 'rest') return { actions: [], outcome: complete() };
  const tc = defaultTidbCluster(cluster);
  if (!needsDiscovery(tc)) return { actions: [], outcome: complete() };
  const actions: (CreateAction | UpdateAction)[] = [];
  for (const desired of desiredDiscoveryObjects(tc, snapshot.config)) {
    const kind = desired.kind as DiscoveryKind;
    const live = liveObjects(snapshot, kind).find((o) => o.metadata?.name === desired.metadata.name);
    const controller = controllerUid(live?.metadata);
    if (controller !== undefined && controller !== tc.metadata.uid) {
      const error = `${kind} ${desired.metadata.namespace ?? ''}/${desired.metadata.name ?? ''} exists but is controlled by another owner (uid ${controller})`;
      return { actions, outcome: fail(error) };
    }
    const write = planApply(discoveryApply(kind, desired, tc), desired, live);
    if (write) actions.push(write);
  }
  if (actions.length === 0) return { actions, outcome: complete() };
  const changed = actions.map((a) => `${a.kind} ${a.ref.kind}`).join(', ');
  return { actions, outcome: complete(`discovery: ${changed}`) };
}

/** The shared apply protocol for one discovery object: the owned fields and owner decide "applied". */
function discoveryApply(kind: DiscoveryKind, desired: KubeObject, tc: TidbCluster): ApplyPolicy<LiveObject> {
  return { kind, isApplied: (_desired, live) => isUpToDate(kind, desired, live, tc), updated: (_desired, live) => updatedObject(kind, desired, live) };
}

function liveObjects(snapshot: Snapshot, kind: DiscoveryKind): readonly LiveObject[] {
  const live: readonly LiveObject[] = observedObjects(snapshot, kind);
  return live;
}

/** Whether `live` already has every label, the owner reference and the owned fields of `desired`. */
function isUpToDate(kind: DiscoveryKind, desired: KubeObject, live: LiveObject, tc: TidbCluster): boolean {
  const meta = live.metadata ?? {};
  if (!isSubset(desired.metadata.labels, meta.labels ?? {}, false)) return false;
  if (controllerUid(meta) !== tc.metadata.uid) return false;
  const body = live as Json;
  if (kind === 'Role' || kind === 'RoleBinding') return OWNED_BODY[kind].every((key) => jsonEqual(desired[key], body[key]));
  const applied = desired.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (applied !== undefined && !jsonEqual(parseJson(applied), parseJson(meta.annotations?.[LAST_APPLIED_ANNOTATION]))) return false;
  return OWNED_BODY[kind].every((key) => isSubset(desired[key], body[key], false));
}

/**
 * Whether `live` holds everything `desired` sets: objects key by key, arrays element by element (same
 * length), scalars equal — resource quantities by amount (the API server rewrites `0.5` as `500m`).
 */
function isSubset(desired: unknown, live: unknown, isQuantity: boolean): boolean {
  if (desired === undefined) return true;
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((d, i) => isSubset(d, live[i], false));
  }
  if (isJsonObject(desired)) {
    if (!isJsonObject(live)) return false;
    return Object.entries(desired).every(([key, value]) => {
      const isResources = key === 'requests' || key === 'limits';
      return isSubset(value, live[key], isQuantity || isResources);
    });
  }
  if (isQuantity && desired !== live) {
    const amount = quantityValue(desired);
    return amount !== undefined && amount === quantityValue(live);
  }
  return desired === live;
}

/**
 * The update of `live` towards `desired`: live metadata (uid, resourceVersion, others' labels and
 * annotations) with ours merged in and our owner reference added; a `spec` merged over the live one
 * (so server-set fields such as a Service's clusterIP stay); RBAC bodies replaced. No status.
 */
function updatedObject(kind: DiscoveryKind, desired: KubeObject, live: LiveObject): KubeObject {
  const meta = live.metadata ?? {};
  const body = live as Json;
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'status' && key !== 'metadata'));
  const owned = Object.fromEntries(
    OWNED_BODY[kind].map((key) => {
      const ours = desired[key];
      const theirs = body[key];
      return [key, key === 'spec' && isJsonObject(ours) && isJsonObject(theirs) ? { ...theirs, ...ours } : ours];
    }),
  );
  const owner = desired.metadata.ownerReferences?.[0];
  const metadata: ObjectMeta = {
    ...meta,
    labels: { ...meta.labels, ...desired.metadata.labels },
    ...(desired.metadata.annotations ? { annotations: { ...meta.annotations, ...desired.metadata.annotations } } : {}),
    ownerReferences: withOwner(meta.ownerReferences ?? [], owner),
  };
  return { ...rest, apiVersion: desired.apiVersion, kind: desired.kind, metadata, ...owned };
}

/** `refs` with `owner` as the one reference to its uid (a non-controller reference to us is replaced). */
function withOwner(refs: readonly OwnerReference[], owner: OwnerReference | undefined): OwnerReference[] {
  if (owner === undefined) return [...refs];
  return [...refs.filter((r) => r.uid !== owner.uid), owner];
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
