/**
 * What the API server fills in, before anyone else sees an object: a Pod and a PVC start `Pending`,
 * a Service gets a cluster IP from the service range (10.100.0.0/16, as EKS); on every write the
 * spec defaults of the real API (StatefulSet update strategy and policies, Deployment strategy, pod
 * template restart/DNS/grace settings, container pull policy and port protocols). A reconciler that
 * compares its desired spec with the stored one sees these fields exactly as on EKS.
 */
import { defaultJobSpec } from './job-strategy.js';
import type { KubeObject } from './object.js';
import { UNREACHABLE_TAINT } from './nodes.js';

/** Allocates cluster IPs; `inUse` lists the addresses Services already hold. */
export class ClusterIpAllocator {
  private next = 0;

  /** The next free address of the range. */
  allocate(inUse: { has(ip: string): boolean }): string {
    for (let tries = 0; tries < 65024; tries++) {
      const n = this.next++ % 65024;
      const ip = `10.100.${Math.floor(n / 254)}.${(n % 254) + 1}`;
      if (!inUse.has(ip)) return ip;
    }
    throw new Error('the service IP range 10.100.0.0/16 is exhausted');
  }
}

type Json = Record<string, unknown>;

/** As the v1 → internal Secret conversion: `stringData` is write-only, merged into `data` (base64), winning on a shared key. */
function mergeStringData(obj: KubeObject): void {
  const stringData = obj['stringData'] as Record<string, unknown> | undefined;
  if (stringData === undefined || stringData === null || typeof stringData !== 'object') return;
  const data = { ...((obj['data'] as Record<string, string> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  obj['data'] = data;
  delete obj['stringData'];
}

/** Applies the spec defaults of the API to `obj` in place (on create and on update). */
export function applySpecDefaults(kind: string, obj: KubeObject): void {
  if (kind === 'Secret') {
    mergeStringData(obj);
    // As SetDefaults_Secret: a Secret without a type is Opaque.
    if (obj['type'] === undefined || obj['type'] === '') obj['type'] = 'Opaque';
  }
  const spec = obj.spec as Json | undefined;
  if (!spec || typeof spec !== 'object') return;
  if (kind === 'Pod') defaultPodSpec(spec);
  if (kind === 'StatefulSet') {
    spec.replicas ??= 1;
    spec.podManagementPolicy ??= 'OrderedReady';
    spec.revisionHistoryLimit ??= 10;
    spec.updateStrategy ??= {};
    const us = spec.updateStrategy as Json;
    // A strategy without a type (`updateStrategy: {}`, as Go clients send it) is a rolling update.
    if (!us.type) us.type = 'RollingUpdate';
    if (us.type === 'RollingUpdate') us.rollingUpdate = { partition: 0, ...((us.rollingUpdate as Json | undefined) ?? {}) };
    spec.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: 'Retain', whenScaled: 'Retain' };
    defaultTemplate(spec.template);
    for (const claim of (spec.volumeClaimTemplates as Json[] | undefined) ?? []) {
      const cs = (claim.spec ?? {}) as Json;
      cs.volumeMode ??= 'Filesystem';
      claim.spec = cs;
      claim.apiVersion ??= 'v1';
      claim.kind ??= 'PersistentVolumeClaim';
    }
  }
  if (kind === 'Job') {
    defaultJobSpec(spec);
    defaultTemplate(spec.template);
  }
  if (kind === 'Deployment') {
    spec.replicas ??= 1;
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= {};
    const strategy = spec.strategy as Json;
    // As SetDefaults_Deployment: no type (`strategy: {}`) is a rolling update, its bounds 25 % each.
    if (!strategy.type) strategy.type = 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { maxSurge: '25%', maxUnavailable: '25%', ...((strategy.rollingUpdate as Json | undefined) ?? {}) };
    defaultTemplate(spec.template);
  }
  if (kind === 'Service') {
    for (const p of (spec.ports as Json[] | undefined) ?? []) {
      p.protocol ??= 'TCP';
      // A zero targetPort (0 or "", as Go clients send an unset one) means the port itself.
      if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
    }
  }
}

function defaultTemplate(template: unknown): void {
  const t = template as Json | undefined;
  if (t && typeof t.spec === 'object' && t.spec !== null) defaultPodSpec(t.spec as Json);
}

function defaultPodSpec(spec: Json): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  for (const c of [...((spec.initContainers as Json[] | undefined) ?? []), ...((spec.containers as Json[] | undefined) ?? [])]) {
    const image = typeof c.image === 'string' ? c.image : '';
    const tag = image.includes('@') ? 'digest' : image.split('/').pop()?.split(':')[1];
    c.imagePullPolicy ??= tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
    c.terminationMessagePath ??= '/dev/termination-log';
    c.terminationMessagePolicy ??= 'File';
    c.resources ??= {};
    for (const p of (c.ports as Json[] | undefined) ?? []) p.protocol ??= 'TCP';
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) defaultProbe(probe);
  }
}

// As SetDefaults_Probe (pkg/apis/core/v1/defaults.go): timeout 1 s, period 10 s, success 1, failure 3.
function defaultProbe(probe: unknown): void {
  if (!probe || typeof probe !== 'object') return;
  const p = probe as Json;
  if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  if (!p.periodSeconds) p.periodSeconds = 10;
  if (!p.successThreshold) p.successThreshold = 1;
  if (!p.failureThreshold) p.failureThreshold = 3;
}

const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

/**
 * The DefaultTolerationSeconds admission plugin (plugin/pkg/admission/defaulttolerationseconds):
 * a new pod that does not already tolerate the not-ready / unreachable NoExecute taints (a
 * toleration with that key or no key, and NoExecute or no effect) gets one for each, for 300 s.
 */
function addDefaultTolerations(spec: Json): void {
  const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as Json[]) : [];
  const tolerates = (key: string): boolean => tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const added = [NOT_READY_TAINT, UNREACHABLE_TAINT].filter((key) => !tolerates(key)).map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

/** Applies create-time defaults to `obj` in place. */
export function applyCreateDefaults(kind: string, obj: KubeObject, allocateIp: () => string): void {
  applySpecDefaults(kind, obj);
  if (kind === 'Pod' && obj.spec && typeof obj.spec === 'object') addDefaultTolerations(obj.spec as Json);
  if (kind === 'Pod' && !obj.status?.phase) obj.status = { ...(obj.status ?? {}), phase: 'Pending', qosClass: obj.status?.qosClass ?? 'BestEffort' };
  if (kind === 'PersistentVolumeClaim') obj.status = { phase: 'Pending' };
  if (kind === 'Namespace') {
    // As the namespace strategy on create: Active, with the namespace controller's finalizer.
    const spec = (obj.spec ?? {}) as Json;
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    spec.finalizers = finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'];
    obj.spec = spec;
    obj.status = { phase: 'Active' };
  }
  if (kind === 'Service') {
    const spec = (obj.spec ?? {}) as Record<string, unknown>;
    spec.type = spec.type ?? 'ClusterIP';
    spec.sessionAffinity = spec.sessionAffinity ?? 'None';
    if (spec.type !== 'ExternalName' && (spec.clusterIP === undefined || spec.clusterIP === '')) {
      const ip = allocateIp();
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    } else if (typeof spec.clusterIP === 'string' && spec.clusterIPs === undefined) {
      spec.clusterIPs = [spec.clusterIP];
    }
    obj.spec = spec;
  }
}
